"""Environment step: start the episode, or send the actor's command to the game and record the answer.

The trajectory line is written before the state update is checkpointed; a resumed run cuts the
trajectory back to the checkpointed steps when it rebuilds the session, so no step is recorded twice.
"""

from __future__ import annotations

from typing import Any

from langgraph.config import get_config
from langgraph.runtime import Runtime

from ..agent.context import AgentContext
from ..agent.session import live_session, record_step
from ..agent.state import AgentState
from ..envs import Observation, check_served_spec
from ..envs.registry import check_split
from ..runs import new_run_id
from .common import check_models


def observation_fields(observation: Observation) -> dict[str, Any]:
    return {
        "observation": observation.text,
        "admissible": list(observation.admissible_actions),
        "location": observation.location,
        "inventory": list(observation.inventory) if observation.inventory is not None else None,
        "score": observation.score,
        "max_score": observation.max_score,
        "done": observation.done,
        "won": observation.won,
        "lost": observation.lost,
    }


MAX_STEPS_LIMIT = 100_000  # far beyond any episode here; bounds the recursion limit LangGraph is given
SEED_LIMIT = 2**31  # game generators take 32-bit seeds


def check_episode_input(state: AgentState) -> None:
    """The caller's input (CLI, Studio, SDK), checked before anything is written."""
    if not state.get("env"):
        raise ValueError("the episode input needs 'env', e.g. {\"env\": \"cooking:1\", \"seed\": 1}")
    check_numbers(max_steps=state.get("max_steps"), seed=state.get("seed"), variation=state.get("variation"))
    check_split(state["env"], state.get("split"))
    for name in ("lessons", "script"):
        value = state.get(name)
        if value is not None and not (isinstance(value, list) and all(isinstance(x, str) for x in value)):
            raise ValueError(f"the episode input's '{name}' must be a list of strings")


def out_of_steps(state: AgentState, step: int) -> bool:
    """The step limit, or the end of a given script, ends the episode."""
    limit, script = state.get("max_steps"), state.get("script")
    return bool(limit and step >= limit) or bool(script and step >= len(script))


def check_numbers(*, max_steps: object, seed: object, variation: object) -> None:
    """The numbers an episode is started with: integers in the ranges the games and LangGraph take."""
    if max_steps is not None and (type(max_steps) is not int or not 1 <= max_steps <= MAX_STEPS_LIMIT):
        raise ValueError(f"max steps must be an integer between 1 and {MAX_STEPS_LIMIT:,}, got {max_steps!r}")
    for name, value in (("seed", seed), ("variation", variation)):
        if value is not None and (type(value) is not int or not 0 <= value < SEED_LIMIT):
            raise ValueError(f"{name} must be an integer between 0 and {SEED_LIMIT - 1}, got {value!r}")


def served_environment(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """The environment node of the graph a LangGraph server serves: a client's ``file:`` game must
    lie in the server's games directory."""
    if "observation" not in state and state.get("env"):
        check_served_spec(state["env"])
    return environment(state, runtime)


def run_id_for(state: AgentState) -> str:
    """The caller's run id; on a LangGraph server, the thread id, so one thread is one run."""
    if state.get("run_id"):
        return state["run_id"]
    thread = (get_config().get("configurable") or {}).get("thread_id")
    return str(thread) if thread else new_run_id(state.get("env") or "run")


def environment(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    starting = "observation" not in state
    if starting:
        check_episode_input(state)
        check_models(context)  # a server run gets here without play(): nothing is written yet
        state = {**state, "run_id": run_id_for(state)}
    session = live_session(state, context, start=starting)
    if starting:
        observation = session.observation
        record_step(session.run, 0, None, observation)
        goal = getattr(session.env, "goal", None) or ""
        return {**observation_fields(observation), "run_id": state["run_id"], "step": 0, "goal": goal, "actions": [], "reasons": [], "last_action": None,
                "belief": "", "plan": [], "needs_plan": True, "replans": 0, "expected": None, "feedback": None, "reward": 0.0,
                "history": [{"step": 0, "action": None, "observation": observation.text}]}
    step = state.get("step", 0) + 1
    action = state["proposed"]
    if action is None:  # the actor always proposes a command before the next step
        raise RuntimeError(f"run {state['run_id']}: step {step} has no command to play")
    observation = session.env.step(action)
    session.observation = observation
    record_step(session.run, step, action, observation, reason=state.get("reason"))
    observation_done = observation.done or out_of_steps(state, step)
    return {
        **observation_fields(observation),
        "done": observation_done,
        "step": step,
        "actions": [*state.get("actions", []), action],
        "reasons": [*state.get("reasons", []), state.get("reason")],
        "last_action": action,
        "history": [{"step": step, "action": action, "observation": observation.text}],
        "replans": 0,
        "proposed": None,
        "reason": None,  # logged with the step it was given for: a plan's later steps were not reasoned about again
        "reward": observation.score - (state.get("score") or 0.0),
    }
