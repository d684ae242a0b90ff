"""What the roles hand each other through the state, typed: a plan's steps, the actor's decision, the feedback a
step sent back carries to the planner.

All three are plain dicts at run time (checkpoints and ``trajectory.jsonl`` hold them as they are); the types say
which keys exist and what their values mean. ``typing_extensions.TypedDict``: pydantic builds the server's JSON
schemas from the state on Python 3.11.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, Required

from typing_extensions import TypedDict

# A plan step: ``action`` the command (or 'go to <place>', 'explore'); ``expected`` a phrase the game's answer should
# contain; ``reward`` the predicted score change (DAVIS); ``by`` who chose it (nodes/common.BY_*: the model, or code
# and why); ``in`` the room a route step is to be played in (dropped elsewhere); ``from_actor`` a step the actor wrote
# (an expansion's): grounded when due, never expanded again. Functional form: ``in`` is a keyword.
PlanStep = TypedDict(
    "PlanStep",
    {
        "action": Required[str],
        "expected": str,
        "reward": str,
        "by": str,
        "in": str,
        "from_actor": bool,
    },
    total=False,
)


class How(StrEnum):
    """How the actor came to the command it played (the values are what ``trajectory.jsonl`` holds)."""

    GROUNDED = "grounded"  # the plan's command, or a close spelling of it
    EXPANDED = "expanded"  # the first of the commands the actor decomposed the step into (DAVIS)
    MODEL = "model"  # the step was no valid command: the model mapped it to one
    CHOICE = "choice"  # the model chose from the valid commands (ReAct, SayCan)
    AS_WRITTEN = "as_written"  # sent as the plan wrote it (DAVIS without its actor)
    SCRIPT = "script"  # a given trajectory's command
    RANDOM = "random"  # drawn from the valid commands (random_walk)
    FALLBACK = "fallback"  # nothing usable: a command that changes nothing, or the way forward
    SENT_BACK = "sent back"  # no command: the step went back to the planner (``reason`` says which guard)
    KEYS_FIRST = "keys first"  # a guard took a key, unlocked a lock or read a note first
    GOAL_IN_REACH = "goal in reach"  # a guard took the thing the goal names, here
    EXPLORE = "explore"  # a guard explored instead of pacing
    TAKE_FIRST = "take first"  # a guard took first a thing the invalid step names


class ActorDecision(TypedDict, total=False):
    """The actor's record of a step (``decided["actor"]``): the plan's step, the command it became and how."""

    planned: Required[str | None]  # the plan's step as written (None: no plan step, e.g. a script's command)
    played: Required[str | None]  # the command sent to the game (None: sent back)
    how: Required[str]  # a How value, as a plain string (checkpoints and trajectory.jsonl hold it)
    by: str  # who chose the command: nodes/common.BY_* or a guard's reason code
    reason: str  # the guard's reason code (nodes/guards.Reason), when a guard decided
    why: str  # the guard's words for the planner, when one decided
    into: list[str]  # an expansion's commands (how == EXPANDED)
    chosen: str  # the choice as the model wrote it ('go to <place>'), when it became a move


FeedbackSource = Literal["actor", "critic", "safety"]


class Feedback(TypedDict):
    """Why the planner is asked again: ``by`` the role that sent the step back (the actor's guards, the critic, DAVIS's
    safety check), ``reason`` its code when it has one (a guard's), ``text`` its words for the planner."""

    by: FeedbackSource
    reason: str | None
    text: str


def feedback(by: FeedbackSource, text: str, reason: str | None = None) -> Feedback:
    return {"by": by, "reason": reason, "text": text}


def feedback_of(value: Feedback | str | None) -> Feedback | None:
    """The state's feedback as a record; a checkpoint written before feedback was typed holds the critic's words."""
    if not value:
        return None
    return feedback("critic", value) if isinstance(value, str) else value


def feedback_text(value: Feedback | str | None) -> str | None:
    """The words of the state's feedback (a plan's record and the report keep them as text)."""
    record = feedback_of(value)
    return record["text"] if record else None
