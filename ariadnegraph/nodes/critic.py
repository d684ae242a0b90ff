"""Critic: checks the last action's outcome against its expectation (DAVIS) and the next planned
action before it runs (STMA); either failure sends the planner back to work with feedback. Presets
turn either check off (``outcome_check``, ``precheck``); DAVIS's mismatches become reflections (without
``reflections`` a mismatch only triggers the new plan: DAVIS's D-C).

Its verdict is state (``needs_plan``), which the graph's edge after the critic reads (graphs/agent.py), never
a ``Command(goto=...)``: a fork at the checkpoint after the critic (``update_state`` as the critic) runs the
node's edges but not its return value, and a goto would leave that branch with no next node."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.presets import Preset
from ..agent.records import feedback
from ..agent.state import AgentState
from ..controller.rules import shown_commands
from ..envs.families import GameFamily
from ..envs.text import go_to_target, is_listed, safe_command
from .common import (
    INADMISSIBLE,
    after_rejection,
    ask_structured,
    belief_section,
    environment_section,
    episode_family,
    extra_commands,
    with_issue,
)
from .prompts import CRITIC, CRITIC_REASONED
from .schemas import Critique, ReasonedCritique

Verdict = Critique | ReasonedCritique  # STMA's critic reasons first (appendix D.5); the verdict reads the same


def is_valid_command(
    command: str, admissible: list[str], go_to: bool, family: GameFamily, grounding: bool = True
) -> bool:
    """A valid command of the game (when it lists them), or a 'go to' the actor expands on the map. Without
    ``grounding`` the command goes to the game as written, so only a listed one is valid (up to case, spacing
    and articles), not a short form or a close spelling the actor would have mapped to one."""
    if not admissible or (go_to and go_to_target(command) is not None):
        return True
    return family.ground(command, admissible) is not None if grounding else is_listed(command, admissible)


def critic_sections(state: AgentState, preset: Preset, proposed: str, expected: str | None) -> dict[str, object]:
    """What the critic reads: the last outcome against what was expected of it, and the next command to judge."""
    rewards = preset.expected_rewards and expected is not None
    valid, family = state.get("admissible") or [], episode_family(state)
    judged = family.ground(proposed, valid) if valid else None  # shown whatever the cut: it is judged
    return {
        p.ENVIRONMENT: environment_section(state),
        p.GOAL: state.get("goal", ""),
        # the subgoal the proposed command serves: STMA's critic judges against it first (appendix D.5)
        p.SUBGOAL: (state.get("subgoal") or p.NONE) if preset.precheck else None,
        p.COMMANDS: extra_commands(preset),
        p.ADMISSIBLE: shown_commands(
            family, state.get("goal") or "", state.get("inventory") or [], valid, keep=[judged]
        ),
        p.BELIEF: belief_section(state, preset),
        p.SPATIAL: state.get("spatial_belief") if preset.aggregator == "llm" else None,
        p.LAST_ACTION: state.get("last_action") or p.NONE,
        p.EXPECTED: expected or p.NOTHING_EXPECTED,
        # the observation, once: as the outcome to judge when one was expected, else as what is seen now
        p.ACTUAL: state.get("observation", "") if expected else None,
        p.OBSERVATION: None if expected else state.get("observation", ""),
        p.EXPECTED_REWARD: (state.get("expected_reward") or p.NOT_PREDICTED) if rewards else None,
        p.ACTUAL_REWARD: f"{state.get('reward', 0.0):+g}" if rewards else None,
        p.PROPOSED_ACTION: proposed if preset.precheck else None,
    }


def critic(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    preset = context.switches
    plan = state.get("plan") or []
    proposed = plan[0]["action"] if plan else safe_command(state.get("admissible") or [])
    expected = state.get("expected") if preset.outcome_check else None
    sections = critic_sections(state, preset, proposed, expected)
    invalid = preset.precheck and not is_valid_command(
        proposed, state.get("admissible") or [], preset.go_to, episode_family(state), preset.grounding
    )
    # Ours (reject_invalid off): a command the game does not take as written is not judged (there is nothing to judge
    # yet): the actor grounds it to a valid one, which costs a short call, where a rejection would cost a new plan.
    # STMA's critic (reject_invalid) is asked about it as about any command, and rejects it whatever it answers: its
    # prompt tells it to reject what is not among the possible actions (appendix D.5), and the planner revises (B.1).
    judged = bool(expected or (preset.precheck and (not invalid or preset.reject_invalid)))  # a model's verdict
    if invalid and not preset.reject_invalid:
        sections[p.PROPOSED_ACTION] = None
    verdict: Verdict
    if judged:
        schema, system, fallback = (
            (ReasonedCritique, CRITIC_REASONED, ReasonedCritique(reasoning="", action_approved=True))
            if preset.critic_reasoning
            else (Critique, CRITIC, Critique(action_approved=True))
        )
        verdict, update = ask_structured(
            context,
            node="critic",
            schema=schema,
            system=system,
            sections=sections,
            fallback=fallback,
            step=state.get("step", 0),
        )
    else:
        verdict, update = Critique(outcome_matches=True, action_approved=True), {}
    if invalid:
        if preset.reject_invalid:
            advice = "" if verdict.action_approved else verdict.feedback  # an approval's words argue for the command
            verdict = verdict.model_copy(
                update={"action_approved": False, "feedback": f"{p.not_listed()} {advice}".strip()}
            )
        else:
            verdict = verdict.model_copy(update={"action_approved": True})
        update = with_issue(update, "planner", INADMISSIBLE)  # the plan held a command the game does not take
    update["expected"] = None  # an outcome is judged once
    update["expected_reward"] = None
    update["decided"] = {
        "verdicts": [
            {
                "proposed": proposed,
                "judged": judged,
                "valid": not invalid,
                "approved": verdict.action_approved if preset.precheck else None,
                "outcome_matches": verdict.outcome_matches if expected else None,
                "last_action": state.get("last_action"),
                # what a rejection or a mismatch said (STMA's buffer keeps it with the step's command)
                "feedback": None if verdict.action_approved and verdict.outcome_matches else verdict.feedback,
            }
        ]
    }
    return routed(state, preset, proposed, expected, verdict, update)


def routed(
    state: AgentState, preset: Preset, proposed: str, expected: str | None, verdict: Verdict, update: dict[str, Any]
) -> dict[str, Any]:
    """Back to the planner (``needs_plan``) when the last outcome deviated from what was expected (with a
    reflection, where the preset keeps them) or the next command was rejected, while the step's replans last;
    else on to the actor: with the rejected command, or (``rejected="withheld"``) a look in its place."""
    can_replan = state.get("replans", 0) < preset.max_replans
    if expected and not verdict.outcome_matches and can_replan:
        mismatch = (
            f"step {state.get('step', 0)}: '{state.get('last_action')}' was expected to give '{expected}' but did not."
        )
        if preset.reflections:
            reflection = f"{mismatch} {verdict.feedback}".strip()
            update = {
                **update,
                "plan": [],
                "feedback": feedback("critic", verdict.feedback or reflection),
                "reflections": [reflection],
            }
        else:  # DAVIS without its critic (D-C): the mismatch still triggers a new plan, with no critique to learn from
            update = {**update, "plan": [], "feedback": feedback("critic", mismatch)}
        return {**update, "needs_plan": True}
    if preset.precheck and not verdict.action_approved:
        _, then = after_rejection(state, preset, "critic", f"'{proposed}'", verdict.feedback.strip())
        return {**update, "needs_plan": False, **then}
    return {**update, "needs_plan": False}
