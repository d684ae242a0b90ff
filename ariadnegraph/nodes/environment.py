"""Environment step: start the episode, or send the actor's command to the game and record the answer.

The trajectory line is written before the state update is checkpointed; a resumed run cuts the
trajectory back to the checkpointed steps when it rebuilds the session, so no step is recorded twice.
"""

from __future__ import annotations

from typing import Any

from langgraph.config import get_config, get_stream_writer
from langgraph.runtime import Runtime

from ..agent.approval import approved_command
from ..agent.context import AgentContext
from ..agent.presets import switch_values
from ..agent.recall import recall
from ..agent.session import live_session, record_step
from ..agent.state import AgentState
from ..envs import Observation, check_served_spec
from ..envs.registry import check_split
from ..runs import check_run_id, new_run_id
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
    if not state.get("env") or not isinstance(state["env"], str):
        raise ValueError("the episode input needs 'env' (text), e.g. {\"env\": \"cooking:1\", \"seed\": 1}")
    if state.get("run_id") is not None:
        check_run_id(state["run_id"])
    if state.get("split") is not None and not isinstance(state["split"], str):
        raise ValueError(f"the episode input's 'split' must be text, got {state['split']!r:.60}")
    if state.get("max_steps") is None:
        raise ValueError(f"the episode input needs 'max_steps' (an integer between 1 and {MAX_STEPS_LIMIT:,}), e.g. "
                         "{\"env\": \"cooking:1\", \"seed\": 1, \"max_steps\": 50}")
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


def nodes_per_step(context: AgentContext) -> int:
    """The most graph nodes one step can run: the memory path, the thinking, the critic and the planner
    again for each replan it may ask for, the actor and the approval. LangGraph's recursion limit counts them."""
    return 11 + 2 * context.max_replans


def recursion_limit(context: AgentContext, max_steps: int) -> int:
    """The recursion limit an episode of ``max_steps`` needs (the first step and ``finish`` included)."""
    return nodes_per_step(context) * (max_steps + 1) + 2


def check_recursion_budget(state: AgentState, context: AgentContext, remaining: int | None) -> None:
    """A run that could not reach the episode's end within LangGraph's recursion limit is refused at its
    start (a step costs at most ``nodes_per_step``; a budget that holds at one step holds at the next)."""
    if remaining is None or not state.get("max_steps"):
        return
    needed = nodes_per_step(context) * (state["max_steps"] - state.get("step", -1)) + 1
    if remaining < needed:
        raise ValueError(f"an episode of {state['max_steps']} steps needs a recursion limit of at least "
                         f"{recursion_limit(context, state['max_steps'])} (the run's config 'recursion_limit'); this run has {remaining} left")


def served_environment(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """The environment node of the graph a LangGraph server serves (whose nodes all check the client's
    context first, ``checked_for_clients``): a client's ``file:`` game must lie in the server's games directory."""
    if "observation" not in state and state.get("env"):
        check_served_spec(state["env"])
    return environment(state, runtime)


def run_id_for(state: AgentState) -> str:
    """The caller's run id; on a LangGraph server, the thread id, so one thread is one run."""
    if state.get("run_id"):
        return state["run_id"]
    thread = (get_config().get("configurable") or {}).get("thread_id")
    return str(thread) if thread else new_run_id(state.get("env") or "run")


def _shown(update: dict[str, Any]) -> None:
    """The step as a custom stream event (``stream_mode="custom"``), for a client to show as it happens."""
    get_stream_writer()({"event": "step", **{k: update.get(k) for k in STEP_EVENT_KEYS}})


STEP_EVENT_KEYS = ("run_id", "step", "last_action", "observation", "score", "max_score", "done", "won", "lost")


def environment(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    starting = "observation" not in state
    if starting:
        check_episode_input(state)
        check_models(context)  # a server run gets here without play(): nothing is written yet
        state = {**state, "run_id": run_id_for(state)}
    check_recursion_budget(state, context, state.get("remaining_steps"))
    session = live_session(state, context, start=starting)
    if starting:
        observation = session.observation
        record_step(session.run, 0, None, observation, trail=session.trail)
        goal = getattr(session.env, "goal", None) or ""
        update = {**observation_fields(observation), "run_id": state["run_id"], "step": 0, "goal": goal, "last_action": None,
                  "trail": session.trail, "memory_step": -1, "belief": "", "plan": [], "needs_plan": True, "replans": 0,
                  "expected": None, "feedback": None, "reward": 0.0, "lessons": recall(state, session, context.memory_from, runtime.store),
                  "switches": switch_values(context.switches), "progress_step": 0,
                  "history": [{"step": 0, "action": None, "observation": observation.text}]}
        _shown(update)
        return update
    step = state.get("step", 0) + 1
    action = state["proposed"]
    if action is None:  # the actor always proposes a command before the next step
        raise RuntimeError(f"run {state['run_id']}: step {step} has no command to play")
    replaced: dict[str, Any] = {}
    if context.approve_commands:
        action, replaced = approved_command(state)
    observation, trail = session.play(step, action, replaced.get("reason", state.get("reason")), state.get("decided"))
    switches = switch_values(context.switches)
    update = {
        **replaced,
        **({"switches": switches} if state.get("switches") != switches else {}),  # a thread continued with another context
        **observation_fields(observation),
        "done": observation.done or out_of_steps(state, step),
        "step": step,
        "trail": trail,
        "last_action": action,
        "last_reason": replaced.get("reason", state.get("reason")),
        "decided": None,  # written into this step's line
        "last_decided": state.get("decided") or {},  # (a line torn by a crash is written again with it)
        "history": [{"step": step, "action": action, "observation": observation.text}],
        "replans": 0,
        "avoid": None,  # a new step: every command may be offered again
        "proposed": None,
        "reason": None,  # logged with the step it was given for: a plan's later steps were not reasoned about again
        "reward": observation.score - (state.get("score") or 0.0),
    }
    if update["reward"] > 0:
        update["progress_step"] = step
    _shown(update)
    return update
