"""The next step, worked out in code: what the game's latest text says to play now, the first item to do of a list
read, the goal's next step, a lock a text said a held key opens; the valid command that does it here, the way to what
it needs, and where memory saw what it needs (the WHERE section). Each reads one :class:`~.view.View`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .. import prompting as p
from ..agent.past import EpisodePast
from ..agent.records import PlanStep
from ..envs.text import TO_DO, checklist, goal_steps_left, list_item
from ..memory import WorldMemory
from ..memory import objects as om
from . import finding
from .view import View

NextStepKind = Literal["said", "listed", "goal", "key"]


@dataclass(frozen=True)
class NextStep:
    """What the next step asks, and where it comes from (``kind``): ``said``, the game's latest text says to play it
    now; ``listed``, the first item to do of a list read, under its heading (no heading: every item is done and this
    is what the goal asks last); ``goal``, nothing read yet and this is a step of the goal (``first``: its first);
    ``key``, a text read said a key held opens a lock memory has not seen open (``key``: that key)."""

    kind: NextStepKind
    text: str
    heading: str | None = None
    first: bool = False
    key: str | None = None

    @property
    def word_for_word(self) -> bool:
        """Said now or listed: played even when it changes nothing and was played before (a game that says to examine
        a thing twice). A goal's step is not: it is done once the score rises; reading the recipe again would not."""
        return self.kind in ("said", "listed")

    def line(self) -> str:
        """The NEXT STEP section."""
        if self.kind == "said":
            return p.said_now(self.text)
        if self.kind == "goal":
            return p.goal_first(self.text) if self.first else p.goal_next(self.text)
        if self.kind == "key":
            return p.key_opens(self.text, self.key or "key")
        return p.step_line(self.heading, self.text) if self.heading is not None else p.all_done(self.text)


def lists_kept(view: View) -> bool:
    """Whether the texts read are kept with their lists' items marked (``pin_readings`` with ``progress_shown``): what
    the next step is read from."""
    return view.switches.pin_readings and view.switches.progress_shown


def next_step(view: View) -> NextStep | None:
    """What the next step asks, in this order: what the game's latest text says to play now, else the first item to
    do of a list read (every item done: what the goal asks last), else, nothing read yet, the goal's next step, else
    (``object_memory``) a lock a text said a held key opens; None when the goal alone says what to do. Worked out once
    per view."""
    if "next_step" not in view.memo:
        view.memo["next_step"] = _next_step(view)
    found: NextStep | None = view.memo["next_step"]
    return found


def _next_step(view: View) -> NextStep | None:
    if said := said_now(view):
        return NextStep("said", said)
    if item := next_item(view):
        return NextStep("listed", item[1], heading=item[0])
    if (left := goal_step_left(view)) is not None:
        first = next((step for step in view.family.goal_steps(view.goal) if view.family.instructs(step)), left)
        return NextStep("goal", left, first=left == first)
    return lock_to_open(view.memory) if view.switches.object_memory else None


def confirmations(past: EpisodePast) -> list[str]:
    """What confirms an item of a list read as done: each command that raised the score, with the game's answer."""
    return [f"{record['action']}\n{record['observation']}" for record in past.score_rises()]


def next_item(view: View) -> tuple[str | None, str] | None:
    """The first item marked to do in the lists of the texts read (the latest text first), as (its list's heading,
    the item); once every item is done, what the goal asks last (no heading); None when no list was read."""
    if not lists_kept(view) or not view.readings:
        return None
    reports = confirmations(view.past)
    listed = False
    for reading in reversed(view.readings):
        heading = None
        for line, mark in checklist(reading.splitlines(), reports, list(view.inventory)):
            if line.strip().endswith(":"):
                heading = line.strip()
            listed = listed or mark is not None
            if mark == TO_DO:
                return heading, list_item(line)
    steps = view.family.goal_steps(view.goal)
    return (None, steps[-1]) if listed and steps else None


def goal_step_left(view: View) -> str | None:
    """Nothing read yet: what a goal of several steps ("read the recipe, cook, eat"; a family may read one step from
    several clauses: "focus on the sodium chloride") asks first, then, once a command that raised the score carried a
    step out, the step after it. A remark of the goal ("This will require growing several plants", "A recipe might
    be found near the kitchen") is no step: no command carries it out, so it would stand as the next step all episode,
    its words a thing to search for."""
    if not lists_kept(view) or view.readings:
        return None
    family, rises = view.family, view.past.score_rises()
    # what each command did, as the game's answer names it too ("focus on water" for 'focus on substance in fountain')
    done = [r.get("action") or "" for r in rises] + [
        family.what_was_done(r.get("action") or "", r.get("observation") or "") for r in rises
    ]
    left = goal_steps_left(view.goal, done, family.goal_steps(view.goal), family.carries_out, family.instructs)
    return left[0] if left else None


def said_now(view: View) -> str | None:
    """The command the game's latest text says to play now, as the game family reads it (Simon says)."""
    return view.family.said_to_play(view.observation) if lists_kept(view) else None


def lock_to_open(memory: WorldMemory) -> NextStep | None:
    """The first lock a text read said a held key opens, not seen open yet: unlock it with that key, or, unlocked
    already, open it (a treasure hunt's notes: "The key 2 unlocks Red locker.")."""
    found = om.locks_to_open(memory.current(), memory.ever_open())
    if not found:
        return None
    # a lock memory has seen first: a name no thing has (a note read awry) never hides one that has
    seen = [lock for lock in found if memory.last_seen(lock[1]) is not None]
    key, lock, state = (seen or found)[0]
    key, lock = memory.entity_name(key), memory.entity_name(lock)
    text = f"open {lock}" if state == "closed" else f"unlock {lock} with {key}"
    return NextStep("key", text, key=key)


def step_command(view: View, step: str, valid: Sequence[str]) -> str | None:
    """The one valid command that does a step word for word, as written or as the game family words it; else the one
    that takes the tool the step needs and the inventory lacks ("chop the tuna": take the knife)."""
    family = view.family
    if (command := family.command_for_item(step, valid)) is not None:
        return command
    held = " ".join(view.inventory).lower()
    for tool in family.tools_needed(step):
        if tool not in held and (command := family.command_for_item(tool, valid)) is not None:
            return command
    return None


def goal_step_here(view: View, step: NextStep, valid: Sequence[str]) -> str | None:
    """The valid command that does the goal's next step here (on a thing as the game names it in its holder, too:
    ``finding.in_holder_command``); None when none does, or when the step is done in another room (a thing of its
    name lying here is likely not the one the task means: the task names the room)."""
    found = finding.needs(step.text, view.family, view.memory, view.location, view.goal)
    if finding.done_elsewhere(found, view.location, view.inventory):
        return None
    return step_command(view, step.text, valid) or finding.in_holder_command(step.text, found, view.family, valid)


def way_to_step(view: View, step: NextStep, valid: Sequence[str]) -> tuple[str, str] | None:
    """The first move toward the room where memory has what the next step needs (a lock a note named, an ingredient
    seen in the garden), with why; None when nothing it needs is elsewhere. A command played twice from this very
    situation is not offered again (two needs in two rooms would otherwise walk the agent between them)."""
    fresh = [command for command in valid if view.times_here(command) < 2]
    found = finding.needs(step.text, view.family, view.memory, view.location, view.goal)
    return finding.way_to_seen(found, view.family, fresh) or finding.way_to_told(found, view.memory, view.family, fresh)


def where_section(view: View) -> list[str] | None:
    """The WHERE section (``object_memory``): where memory has each thing the next step needs, or where to search."""
    step = next_step(view)
    if not view.switches.object_memory or step is None:
        return None
    item, family, valid = step.text, view.family, list(view.valid)
    found = finding.needs(item, family, view.memory, view.location, view.goal)
    searches = finding.leads(view.memory, view.location, found, family, valid)

    def playable(command: str) -> bool:
        return not valid or family.ground(command, valid) is not None

    def reach(room: str) -> str | None:
        return family.reach(room, valid)

    choices = finding.kind_choices(item, found, family, valid)
    return finding.where_lines(found, searches, view.memory, view.location, playable, reach, choices) or None


def explore_moves(memory: WorldMemory, location: str | None) -> list[PlanStep] | None:
    """'explore' as single moves: along the map to the nearest place with an exit not taken yet, then through
    it (each with the room it should reach; the last one's is not known); None when no such exit is left."""
    here = memory.location() or location
    if not here:
        return None
    best: list[PlanStep] | None = None
    for place, directions in memory.unexplored_exits().items():
        if not directions:
            continue
        moves = [] if memory.key(place) == memory.key(here) else memory.path(here, place)
        if moves is not None and (best is None or len(moves) + 1 < len(best)):
            route: list[PlanStep] = [{"action": f"go {d}", "expected": room} for d, room in moves]
            best = [*route, {"action": f"go {sorted(directions)[0]}", "expected": ""}]
    return best


MAX_GO_TO_CHOICES = 8  # 'go to <place>' choices offered beside the game's commands (nearest places first)


def go_to_choices(memory: WorldMemory, location: str | None) -> list[str]:
    """'go to <place>' for the known places the KG's map reaches from here (AriGraph's navigation)."""
    here = memory.location() or location
    return [f"go to {place}" for place in memory.reachable_places(here)[:MAX_GO_TO_CHOICES]] if here else []
