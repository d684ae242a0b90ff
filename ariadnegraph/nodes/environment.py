"""Environment step: start the episode, or send the actor's command to the game and record the answer.

``episode_state`` checks what the step plays from before anything is touched; the graph then hands the node
the episode's session (graphs/agent.py), created on the first step.

The trajectory line is written before the state update is checkpointed; a resumed run cuts the
trajectory back to the checkpointed steps when it rebuilds the session, so no step is recorded twice.
"""

from __future__ import annotations

from typing import Any

from langgraph.config import get_config
from langgraph.runtime import Runtime

from ..agent.approval import approved_command, approving
from ..agent.context import AgentContext
from ..agent.episode_input import check_episode_input, check_recursion_budget
from ..agent.presets import Preset, switch_values
from ..agent.recall import recall
from ..agent.session import Session
from ..agent.state import AgentState
from ..agent.switches import check_switches
from ..envs import Observation, check_served_spec
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


def out_of_steps(state: AgentState, step: int) -> bool:
    """The step limit, or the end of a given script, ends the episode."""
    limit, script = state.get("max_steps"), state.get("script")
    return bool(limit and step >= limit) or bool(script and step >= len(script))


def episode_state(state: AgentState, context: AgentContext, *, served: bool = False) -> AgentState:
    """The state the step plays from, checked before the game or the run folder is touched: a new episode's input
    (``served``: on a LangGraph server, a client's ``file:`` game must lie in the server's games directory) and its
    models, given its run id; every step, LangGraph's recursion budget."""
    if "observation" not in state:
        if served and state.get("env"):
            check_served_spec(state["env"])
        check_episode_input(state)
        # an oracle the game gives no truth for, RAP with no gold runs to retrieve
        check_switches(context.preset, context.switches, state["env"], context.memory_from)
        check_models(context)  # a server run gets here without play(): nothing is written yet
        state = {**state, "run_id": run_id_for(state)}
    check_recursion_budget(state, context, state.get("remaining_steps"))
    return state


def run_id_for(state: AgentState) -> str:
    """The caller's run id; on a LangGraph server, the thread id, so one thread is one run."""
    if state.get("run_id"):
        return state["run_id"]
    thread = (get_config().get("configurable") or {}).get("thread_id")
    return str(thread) if thread else new_run_id(state.get("env") or "run")


def buffered_feedback(state: AgentState, switches: Preset) -> dict[str, str]:
    """The critic's last word on the way to this step's command, where the history buffer keeps it (STMA)."""
    if not switches.buffer_feedback:
        return {}
    said = [v["feedback"] for v in (state.get("decided") or {}).get("verdicts") or [] if v.get("feedback")]
    return {"feedback": said[-1]} if said else {}


def _first_step(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    """Step 0: the game's first observation recorded, and the state an episode starts from."""
    context = runtime.context
    observation = session.observation
    session.record(0, None, observation, trail=session.trail)
    return {
        **observation_fields(observation),
        "run_id": state["run_id"],
        "step": 0,
        "approving": approving(state, context.approve_commands),
        "goal": getattr(session.env, "goal", None) or "",
        "last_action": None,
        "trail": session.trail,
        "memory_step": -1,
        "belief": "",
        "plan": [],
        "needs_plan": True,
        "replans": 0,
        "expected": None,
        "feedback": None,
        "reward": 0.0,
        "lessons": recall(state, session, context.memory_from, runtime.store),
        "switches": switch_values(context.switches),
        "family": session.family.name,
        "progress_step": 0,
        "history": [{"step": 0, "action": None, "observation": observation.text}],
    }


def environment(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    """``state`` as ``episode_state`` returned it; ``session``: the episode's, new on its first step."""
    context = runtime.context
    if "observation" not in state:
        return _first_step(state, runtime, session)
    step = state.get("step", 0) + 1
    action = state["command"]
    if action is None:  # the actor always proposes a command before the next step
        raise RuntimeError(f"run {state['run_id']}: step {step} has no command to play")
    replaced: dict[str, Any] = {}
    asking = approving(state, context.approve_commands)
    if asking:
        approved, replaced = approved_command(state)
        if approved is None:  # a person stopped the episode: nothing played, the result is written (finish)
            return {**replaced, "approving": asking}
        action = approved
    observation, trail = session.play(step, action, replaced.get("reason", state.get("reason")), state.get("decided"))
    switches = switch_values(context.switches)
    update = {
        **replaced,
        **(
            {"switches": switches} if state.get("switches") != switches else {}
        ),  # a thread continued with another context
        **observation_fields(observation),
        "done": observation.done or out_of_steps(state, step),
        "step": step,
        "approving": asking,
        "trail": trail,
        "last_action": action,
        "last_reason": replaced.get("reason", state.get("reason")),
        "decided": None,  # written into this step's line
        "last_decided": state.get("decided") or {},  # (a line torn by a crash is written again with it)
        "history": [
            {
                "step": step,
                "action": action,
                "observation": observation.text,
                **buffered_feedback(state, context.switches),
            }
        ],
        "replans": 0,
        "avoid": None,  # a new step: every command may be offered again
        "command": None,
        "reason": None,  # logged with the step it was given for: a plan's later steps were not reasoned about again
        "reward": observation.score - (state.get("score") or 0.0),
    }
    if update["reward"] > 0:
        update["progress_step"] = step
    return update
