"""The agent's state: what one step hands the next, all plain data so checkpoints can hold it.

Live resources (the game process, the open memory) are not state: they are looked up by ``run_id`` in
:mod:`ariadnegraph.agent.session` and rebuilt from this state after a restart.

A checkpoint costs the same at step 1,000 as at step 10: what grows with the episode (every command and
observation, every fact) lives in the run's files and memory, and the state keeps bounded windows of it
(``history``: the last :data:`HISTORY_KEPT` steps) and the ``trail`` that names the history it is on.

``typing_extensions.TypedDict``: pydantic builds the server's JSON schemas from these on Python 3.11.
"""

from __future__ import annotations

from typing import Annotated, Any, Required

from langgraph.managed import RemainingSteps
from pydantic import Field
from typing_extensions import TypedDict

from ..envs.registry import Split
from .episode_input import MAX_STEPS_LIMIT, SEED_LIMIT
from .presets import HISTORY_BUFFER
from .records import Feedback, PlanStep

HISTORY_KEPT = HISTORY_BUFFER + 1  # the longest window a preset reads (STMA's buffer) and the current step
READINGS_KEPT = 3
WORKED_KEPT = 20  # the task's questions answered that are kept (a sorting game asks one per thing placed)
INSIGHTS_KEPT = 9  # Simulacra: three reflections of three insights each (ours)


def add_usage(
    left: dict[str, dict[str, int]] | None, right: dict[str, dict[str, int]] | None
) -> dict[str, dict[str, int]]:
    """Reducer: per-node counters (token usage, reply outcomes) added up."""
    merged = {node: dict(counts) for node, counts in (left or {}).items()}
    for node, counts in (right or {}).items():
        total = merged.setdefault(node, {})
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    return merged


def record_decisions(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: what the roles decided on the way to the next command (lists add up: every plan and every
    verdict of a step); the environment node writes it into the step's trajectory line and clears it (None)."""
    if right is None:
        return {}
    merged = dict(left or {})
    for key, value in right.items():
        merged[key] = merged[key] + value if isinstance(value, list) and isinstance(merged.get(key), list) else value
    return merged


def add_until_cleared(left: list | None, right: list | None) -> list:
    """Reducer: append; None clears (what one step collects, cleared by the next)."""
    return [] if right is None else (left or []) + right


def keep_last(limit: int):
    """Reducer factory: append, keeping the newest ``limit`` items."""

    def reducer(left: list | None, right: list | None) -> list:
        return ((left or []) + (right or []))[-limit:]

    return reducer


class EpisodeInput(TypedDict, total=False):
    """An episode to play: the game, and the most steps it may take (Studio's input form; a client's input)."""

    env: Required[
        Annotated[
            str,
            Field(
                description="The game: a TextWorld cooking level, a ScienceWorld task, a TextWorldExpress game, one of "
                "AriGraph's games, Crafter or NetHack (README, Environments).",
                examples=["cooking:1", "scienceworld:melt", "twx:coincollector", "arigraph:hunt", "crafter"],
            ),
        ]
    ]
    max_steps: Required[Annotated[int, Field(ge=1, le=MAX_STEPS_LIMIT, description="The step budget.", examples=[50])]]
    seed: Annotated[
        int | None, Field(ge=0, lt=SEED_LIMIT, description="The generated game's seed (TextWorld, TWX, Crafter).")
    ]
    variation: Annotated[
        int | None, Field(ge=0, lt=SEED_LIMIT, description="A ScienceWorld task's variation (None: its first).")
    ]
    split: Annotated[
        Split | None,
        Field(description="The games' split, for ScienceWorld and TextWorldExpress (None: test, the suites')."),
    ]
    run_id: Annotated[str, Field(description="The run's folder name (on a server: the thread's id, when not given).")]


class PlayInput(EpisodeInput, total=False):
    """What the CLI and the evals start an episode with: a client's input, and what their own runs hand the graph
    (a trial's lessons, a given trajectory), which is no client's to send."""

    lessons: list[str]  # reflections from earlier trials or runs (Reflexion), shown to the deciding roles
    script: list[str]  # commands to play in order instead of choosing them (a gold trajectory read into memory)


class AgentState(PlayInput, total=False):
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
    stopped: bool  # a person stopped the episode at an approval (agent/approval.py): done, no command played
    approving: bool  # whether a person approves each command: the thread's, until a run's context changes it
    trail: str  # the fingerprint of the history up to this step (runs.next_trail), as its trajectory line holds it
    last_action: str | None
    last_reason: str | None  # why it was chosen: a step written again after a crash keeps it
    # {step, action, observation[, feedback: STMA]}; longer windows read the trajectory
    history: Annotated[list[dict[str, Any]], keep_last(HISTORY_KEPT)]
    remaining_steps: RemainingSteps  # LangGraph's recursion budget left (not checkpointed)
    switches: dict[str, Any]  # the preset's switches the run plays with: routing reads them here (graphs/agent.py)
    family: str  # the game family, resolved from the env spec at the first step (envs/families): nodes ask it
    # memory path
    belief: str
    extraction: list[list[str]]  # triplets of this step, before memory_update stores them
    memory_step: int  # the last step memory has recorded (-1: none): a resumed or forked run's memory is rewound to it
    outdated: list[list[str]]
    memory_text: list[str]  # retrieved facts, time-ordered, as shown to the planner
    episodes_text: list[str]
    experiences_text: list[str]  # RAP: the gold runs' moments most like this one, with what they did next
    importance: dict[str, int]  # Simulacra: each observation's importance (1-10) as the model rated it, by step
    insights: Annotated[list[str], keep_last(INSIGHTS_KEPT)]  # Simulacra: reflections on what was observed
    reflected_at: int  # Simulacra: the step of the last reflection (-1: none yet)
    unexplored: list[str]
    spatial_belief: str
    notes: list[str]  # world-model QA findings for the planner
    # texts the agent read ("command: text"), shown word for word
    readings: Annotated[list[str], keep_last(READINGS_KEPT)]
    # the task's questions the model answered ({"question": Question.key, "answer": the option, "" when none}):
    # nodes/worked_out.py
    worked_out: Annotated[list[dict[str, str]], keep_last(WORKED_KEPT)]
    progress_step: int  # the last step whose command raised the score (the stall check counts from it)
    # planning
    subgoal: str
    plan: list[PlanStep]  # the steps still to play
    rollout: list[PlanStep]  # DAVIS: the trajectory being imagined, each step with its predicted outcome
    expected: str | None  # what the last executed action should have produced
    expected_reward: str | None  # its predicted score change (DAVIS presets)
    reward: float  # the score change of the last step
    feedback: Feedback | None  # why the planner is asked again (the actor's guards, the critic, the safety check)
    needs_plan: bool
    replans: int  # planner calls in this step
    # commands the actor sent back as repeats this step: not offered to the planner again
    avoid: Annotated[list[str], add_until_cleared]
    reflections: Annotated[list[str], keep_last(10)]
    command: str | None  # the command the actor chose (None: it sent the plan step back), for the environment to play
    # why the next command was chosen (the planner's or the chooser's reasoning), logged with the step
    reason: str | None
    thought_db: dict[str, Any]  # AgentKit presets: the thought graph's database (plans, knowledge, history)
    thought_trace: list[str]  # the thought nodes that ran this step, temporary ones included
    # what each role decided since the last command (per-role diagnostics read it from the trajectory)
    decided: Annotated[dict[str, Any], record_decisions]
    last_decided: dict[str, Any]  # what was decided on the way to the last command (as its trajectory line holds it)
    # accounting
    usage: Annotated[dict[str, dict[str, int]], add_usage]
    replies: Annotated[dict[str, dict[str, int]], add_usage]  # per node: reply outcomes and issues (models.structured)
    fallbacks: Annotated[list[str], keep_last(100)]


class EpisodeResult(TypedDict, total=False):
    """What a finished (or interrupted) episode returns to a caller: its result and cost; the whole state
    stays readable through the thread's checkpoints."""

    run_id: str
    env: str
    seed: int | None
    goal: str
    step: int
    score: float
    max_score: float
    done: bool
    won: bool
    lost: bool
    stopped: bool
    last_action: str | None
    usage: dict[str, dict[str, int]]
    replies: dict[str, dict[str, int]]
