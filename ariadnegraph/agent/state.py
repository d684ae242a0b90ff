"""The agent's state: what one step hands the next, all plain data so checkpoints can hold it.

Live resources (the game process, the open memory) are not state: they are looked up by ``run_id`` in
:mod:`ariadnegraph.agent.session` and rebuilt from this state after a restart.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


def add_usage(left: dict[str, dict[str, int]] | None, right: dict[str, dict[str, int]] | None) -> dict[str, dict[str, int]]:
    """Reducer: per-node counters (token usage, reply outcomes) added up."""
    merged = {node: dict(counts) for node, counts in (left or {}).items()}
    for node, counts in (right or {}).items():
        total = merged.setdefault(node, {})
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    return merged


def keep_last(limit: int):
    """Reducer factory: append, keeping the newest ``limit`` items."""

    def reducer(left: list | None, right: list | None) -> list:
        return ((left or []) + (right or []))[-limit:]

    return reducer


class EpisodeInput(TypedDict, total=False):
    """What a caller (CLI, Studio, SDK) sends to start an episode."""

    env: str  # environment spec, e.g. "cooking:1"
    seed: int | None
    variation: int | None
    split: str | None  # the games' split where they have one (ScienceWorld, TextWorldExpress); None: the env's default (test)
    max_steps: int
    run_id: str
    lessons: list[str]  # reflections from earlier trials or runs (Reflexion), shown to the deciding roles
    script: list[str]  # commands to play in order instead of choosing them (a gold trajectory read into memory)


class AgentState(EpisodeInput, total=False):
    # the environment as the agent sees it
    step: int
    goal: str
    observation: str
    admissible: list[str]
    location: str | None
    inventory: list[str] | None
    score: float
    max_score: float
    done: bool
    won: bool
    lost: bool
    actions: list[str]  # every executed command, in order: replaying them rebuilds the game
    reasons: list[str | None]  # the reason each was chosen with: a step written again after a crash keeps it
    last_action: str | None
    history: Annotated[list[dict[str, Any]], keep_last(1000)]  # {step, action, observation}; the full_history preset reads it all
    # memory path
    belief: str
    extraction: list[list[str]]  # triplets of this step, before memory_update stores them
    outdated: list[list[str]]
    memory_text: list[str]  # retrieved facts, time-ordered, as shown to the planner
    episodes_text: list[str]
    unexplored: list[str]
    spatial_belief: str
    notes: list[str]  # world-model QA findings for the planner
    # planning
    subgoal: str
    plan: list[dict[str, str]]  # remaining steps {action, expected}
    expected: str | None  # what the last executed action should have produced
    expected_reward: str | None  # its predicted score change (DAVIS presets)
    reward: float  # the score change of the last step
    feedback: str | None  # critic feedback for the planner
    needs_plan: bool
    replans: int  # planner calls in this step
    reflections: Annotated[list[str], keep_last(10)]
    proposed: str | None  # the action the critic approved, for the actor
    reason: str | None  # why the next command was chosen (the planner's or the chooser's reasoning), logged with the step
    thought_db: dict[str, Any]  # AgentKit presets: the thought graph's database (plans, knowledge, history)
    thought_trace: list[str]  # the thought nodes that ran this step, temporary ones included
    # accounting
    usage: Annotated[dict[str, dict[str, int]], add_usage]
    replies: Annotated[dict[str, dict[str, int]], add_usage]  # per node: reply outcomes and issues (models.structured)
    fallbacks: Annotated[list[str], keep_last(100)]
