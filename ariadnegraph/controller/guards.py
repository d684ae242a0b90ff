"""The actor's guards: small checks, in order, on the command a plan step grounds to, each of which may play
something else or send the step back to the planner, saying why with a reason code.

They are the ``ariadne`` preset's heuristics for a small model, each behind its switch (``explore``,
``strict_grounding``, ``rules_shield``, ``loop_guard``, ``stall_steps``, ``object_memory``, ``keys_first``): the
general actor (nodes/actor.py) grounds a step and asks :func:`guard` first. While the step has replans left, a step
that should not be played goes back to the planner; once they are used up, the way forward plays instead: what the
next step needs from memory (nodes/finding.py), else an exit not taken, a way out, a thing here to take or open,
else what changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property

from ..agent.presets import Preset
from ..agent.records import PlanStep
from ..envs.families import GameFamily
from ..envs.families.base import Taker, held_in
from ..envs.text import (
    EXPLORE,
    TAKING_VERBS,
    direction_of_command,
    is_explore,
    is_movement,
    placing,
    room_moved_to,
    safe_command,
    take_first,
    taking,
)
from ..memory import WorldMemory
from ..vocabulary import READING_COMMANDS, SAFE_COMMANDS
from . import finding
from .candidates import Candidate, Source
from .rules import breaks_rules, within_rules
from .steps import explore_moves, next_step, step_command
from .view import View

PLACING_VERBS = ("put ", "place ", "insert ")  # the commands that put a thing somewhere (envs/text.placing)

# a move the way forward made this often from one situation (the same place, inventory and score) is a loop between
# two leads, each the nearest from the other's room (a lead no valid command searches once there is never crossed
# off): a third is walked toward instead
WORN_AFTER = 3


class Reason(StrEnum):
    """Why a guard played something else than the plan's step, or sent it back."""

    KEYS_FIRST = "keys first"  # a key lying here is taken, a lock whose key is held unlocked, a note here read
    GOAL_IN_REACH = "goal in reach"  # the thing the goal names can be taken here: taken
    PACING = "pacing"  # a move made twice from here already: explore instead
    TAKE_FIRST = "take first"  # not valid now, and a thing it names can be taken here: take it first
    NO_EXIT_LEFT = "no exit left"  # 'explore' with every exit taken
    NOT_VALID = "not valid"  # no valid command (strict grounding)
    RULED_OUT = "ruled out"  # the game family's rules say it ruins the game
    REPEATED = "repeated"  # played twice from this situation already, and it changed nothing
    UNDOES = "undoes"  # puts a thing back where it was last taken from
    NO_OP_AGAIN = "no-op again"  # changes nothing (look, inventory, examine) and was played here already
    STALLED = "stalled"  # no score for stall_steps steps
    WAY_FORWARD = "way forward"  # the replans are used up: the way forward instead


SEND_BACK_REASONS = frozenset(
    {
        Reason.NO_EXIT_LEFT,
        Reason.NOT_VALID,
        Reason.RULED_OUT,
        Reason.REPEATED,
        Reason.UNDOES,
        Reason.NO_OP_AGAIN,
        Reason.STALLED,
    }
)
NO_OP_VERBS = ("examine", "read", "x", "look at")  # what shows a thing again without changing it
TAKING = tuple(f"{verb} " for verb in TAKING_VERBS)
FINDING = (*TAKING, "find ", "retrieve ", "get ", "collect ", "fetch ", "grab ")  # a goal's step that has a thing taken


@dataclass(frozen=True)
class GuardDecision:
    """What a guard decided: ``command`` to play instead (``then``: the moves after it), or None to send the step back
    to the planner with ``why``; ``avoid``: a command left out of the planner's choices for the rest of the step."""

    reason: Reason
    why: str
    command: str | None = None
    then: tuple[PlanStep, ...] = ()
    avoid: str | None = None
    expected: str | None = None


@dataclass
class Situation:
    """What the guards read: the step's view, the plan step and the command it grounds to."""

    view: View
    planned: str  # the plan's step as written
    command: str | None  # the valid command it grounds to (None: none)

    @property
    def preset(self) -> Preset:
        return self.view.switches

    @property
    def family(self) -> GameFamily:
        return self.view.family

    @property
    def memory(self) -> WorldMemory:
        return self.view.memory

    @property
    def goal(self) -> str:
        return self.view.goal

    @property
    def admissible(self) -> list[str]:
        return list(self.view.valid)

    @property
    def tried(self) -> dict[str, tuple[int, str]]:
        """What was played from this very situation (place, inventory, score), how often, and the game's answer."""
        return self.view.tried

    @cached_property
    def worn(self) -> set[str]:
        """Commands played ``WORN_AFTER`` times or more from this very situation: no way to a place to search."""
        return {command for command, (times, _) in self.tried.items() if times >= WORN_AFTER}

    @property
    def replans_left(self) -> bool:
        return self.view.replans < self.preset.max_replans

    @cached_property
    def asked_now(self) -> bool:
        """Whether the command is the one the chooser follows for what the game says to play now or for the next
        item of a list read (``NextStep.word_for_word``): played even when it changes nothing and was played before."""
        step = next_step(self.view) if self.command is not None else None
        if step is None or not step.word_for_word:
            return False
        return step_command(self.view, step.text, self.admissible) == self.command

    def times_here(self, command: str | None) -> int:
        return self.view.times_here(command)


def is_no_op(command: str, family: GameFamily) -> bool:
    """A command that changes nothing in the world: look, inventory, or showing a thing again (examine, read)."""
    words = " ".join(command.lower().split())
    return words in SAFE_COMMANDS or shown_again(words)


def moves_player(command: str | None) -> bool:
    """A command that takes the player elsewhere: a direction ("go east", Crafter's "move left") or a place named
    ("go to kitchen": ScienceWorld's only moves, which the loop guard took for commands that change nothing)."""
    return direction_of_command(command) is not None or is_movement(command)


def _showing_verb(command: str) -> str | None:
    """The verb of a command that shows a thing ('look at' of 'look at baby wolf'), else None."""
    words = " ".join(command.lower().split())
    return next((verb for verb in NO_OP_VERBS if words.startswith(f"{verb} ")), None)


def _shown_thing(command: str) -> set[str]:
    """The words of the thing a showing command shows ('look at baby wolf': baby, wolf)."""
    words = " ".join(command.lower().split())
    return set(words[len(_showing_verb(command) or "") :].split())


def shown_again(command: str) -> bool:
    """A command that shows a thing (examine, read): its answer does not depend on where it is asked."""
    return _showing_verb(command) is not None


# -- the guards that play something else --------------------------------------------------------------------------
def pacing(s: Situation) -> GuardDecision | None:
    """A move made twice from here already (``explore``): explore instead, when an exit not taken yet is left."""
    command = s.command
    if not (s.preset.explore and command is not None and s.admissible and moves_player(command)):
        return None
    if s.times_here(command) < 2:
        return None
    moves = explore_moves(s.memory, s.view.location)
    first = s.family.ground(moves[0]["action"], s.admissible) if moves else None
    if not moves or first is None or first == command:
        return least_taken_instead(s, command)
    return GuardDecision(
        Reason.PACING,
        f"'{command}' was already played twice from here",
        command=first,
        then=tuple(moves[1:]),
        expected=moves[0]["expected"] or None,
    )


def keys_first(s: Situation) -> GuardDecision | None:
    """A key the family names lying here, a lock whose key is held, or a note here never read (``keys_first``): that
    first. A lock opens for its key only, and a key left where it lies is walked back to later; a note says which
    lock the next key opens."""
    if not s.preset.keys_first or s.command is None or not s.admissible:
        return None
    found = unlocking(s)
    if found is None or found[0] == s.command:
        return None
    return GuardDecision(Reason.KEYS_FIRST, found[1], command=found[0])


def goal_in_reach(s: Situation) -> GuardDecision | None:
    """The thing the goal names, not held, that a valid command takes here (``keys_first``): taken before the plan's
    step. Holding it is what the goal asks, and a step elsewhere walks away from it (a container just opened shows
    it, and a plan written before goes on)."""
    if not s.preset.keys_first or s.command is None or not s.admissible:
        return None
    held = {thing.lower() for thing in s.view.inventory}
    for step in s.family.goal_steps(s.goal):
        if not step.lower().startswith(FINDING):  # "check the cookbook" names a thing to read, not to take
            continue
        for thing in s.family.things_named(step):
            # the valid command that takes it, as the family grounds a short 'take X' ("take treasure from locker")
            command = s.family.ground(f"take {thing}", s.admissible) if thing.lower() not in held else None
            if command is not None and command.lower().startswith(TAKING):
                if command == s.command:
                    return None
                return GuardDecision(Reason.GOAL_IN_REACH, f"the {thing} the goal names is here", command=command)
    return None


def least_taken_instead(s: Situation, command: str) -> GuardDecision | None:
    """With nothing left to explore, a way out of here taken fewer times than the pacing move: two moves played in
    turn between two rooms are a loop that only another way breaks. Where there is none (two rooms of one exit each),
    the way forward, unless it is the same move or changes nothing: what the goal needs may be valid here (a thing
    held, and the box it goes into in this room)."""
    others = [c for c in exits_least_taken(s) if c != command]
    if others and s.times_here(others[0]) < s.times_here(command):
        return GuardDecision(Reason.PACING, f"'{command}' was already played twice from here", command=others[0])
    forward = way_forward(s)
    if forward.command == command or is_no_op(forward.command, s.family):
        return None
    return GuardDecision(
        Reason.PACING, f"'{command}' was already played twice from here; instead {forward.why}", command=forward.command
    )


def leaves(command: str, location: str | None) -> bool:
    """Whether a valid move takes the player out of ``location``: a game may list a move to the room the player is in
    ('teleport to bathroom' in the bathroom), which goes nowhere."""
    if not moves_player(command):
        return False
    room = room_moved_to(command)
    return room is None or location is None or room != " ".join(location.lower().split())


def exits_least_taken(s: Situation) -> list[str]:
    """The valid moves from here, the one taken fewest times from this situation first."""
    location = s.view.location
    return sorted((c for c in s.admissible if leaves(c, location)), key=s.times_here)


def taken_thing(command: str) -> str:
    """The thing a take command takes, in lower case, without where from ('pick up the egg from the nest' -> "the
    egg"; "" for a command that takes nothing): every take verb, not only the one-word ones."""
    return held_in((taking(command) or "").lower())[0]


def taking_first(s: Situation) -> GuardDecision | None:
    """A step not valid now that names a thing that can be taken here (``strict_grounding``): take it first."""
    if s.command is not None or not s.preset.strict_grounding or not s.admissible:
        return None
    if s.family.takes_what_lies_about is Taker.NOBODY:
        return None
    needed = take_first(s.planned, s.admissible)
    if needed and taken_thing(needed) in placed_by_the_agent(s.view):
        return None  # a thing the agent put somewhere (a placement written again) is not taken back out for it
    return (
        GuardDecision(Reason.TAKE_FIRST, f"'{s.planned}' needs the thing taken first", command=needed)
        if needed
        else None
    )


# -- the guards that send a step back (while replans are left) ------------------------------------------------------
def no_exit_left(s: Situation) -> GuardDecision | None:
    if s.command is None and s.preset.explore and is_explore(s.planned) and s.admissible:
        return GuardDecision(
            Reason.NO_EXIT_LEFT, "no exit is left that has not been taken: choose one of VALID COMMANDS", avoid=EXPLORE
        )
    return None


def not_valid_why(written: str, admissible: list[str], synonyms: dict[str, str]) -> str:
    """Why a written step goes back to the planner: not a valid command, and what may be needed first. When no
    valid command starts with its verb, what could be taken is named (a tool is usually taken first)."""
    verb = (written.split() or [""])[0].lower()
    same = {verb, synonyms.get(verb, verb)}  # read is examine, get is take, ...
    if any(synonyms.get(first, first) in same for c in admissible for first in c.lower().split()[:1]):
        return f"'{written}' is not a valid command here; choose one of VALID COMMANDS"
    takes = [c for c in admissible if c.lower().startswith(tuple(f"{verb} " for verb in TAKING_VERBS))][:6]
    hint = f"; things that can be taken here: {', '.join(takes)}" if takes else ""
    return (
        f"no valid command here can '{verb}' yet: what it needs first is not at hand (a tool held, a container opened, "
        f"another place){hint}"
    )


def not_valid(s: Situation) -> GuardDecision | None:
    if s.command is None and s.preset.strict_grounding and s.admissible:
        return GuardDecision(Reason.NOT_VALID, not_valid_why(s.planned, s.admissible, dict(s.family.synonyms)))
    return None


def ruled_out(s: Situation) -> GuardDecision | None:
    why = ruin(s)
    if why is None:
        return None
    return GuardDecision(Reason.RULED_OUT, f"'{s.command}' is ruled out: {why}; choose another", avoid=s.command)


def ruin(s: Situation) -> str | None:
    """Why the command breaks the game family's rules for good (``rules_shield``), else None."""
    if not (s.preset.rules_shield and s.command and s.view.env):
        return None
    return breaks_rules(s.view, s.command)


def repeated(s: Situation) -> GuardDecision | None:
    """A command, not a move, played twice already from this situation, or once when the game answered that it did
    nothing (``loop_guard``: the same command gets the same refusal in the same situation; a move may be the only way
    out of a dead end: pacing and stalls catch moves)."""
    if not s.preset.loop_guard or s.command is None or moves_player(s.command):
        return None
    count, answer = s.tried.get(s.command, (0, ""))
    if count < 2 and not (count and s.family.changed_nothing(answer)):
        return None
    times = "once" if count == 1 else f"{count} times"
    return GuardDecision(
        Reason.REPEATED,
        f"'{s.command}' was already played {times} here and the game answered '{answer}': do something else",
        avoid=s.command,
    )


def undoes(s: Situation) -> GuardDecision | None:
    """Putting a thing back on the holder it was last taken from undoes the take (``loop_guard``): the world is as
    before both steps, and where the take scored (a thing moved from where it lay out of place) the point is lost."""
    put = placing(s.command or "") if s.preset.loop_guard else None
    if put is None:
        return None
    thing, holder = put[1].lower(), put[3].lower()
    takes = (held_in((taking(c) or "").lower()) for c in s.view.past.last_played(TAKING))
    taken_from = next((where for taken, where in takes if taken == thing), None)
    if taken_from != holder:
        return None
    return GuardDecision(
        Reason.UNDOES,
        f"'{s.command}' puts the {thing} back where it was taken from: that undoes the take; put it where it belongs",
        avoid=s.command,
    )


def no_op_again(s: Situation) -> GuardDecision | None:
    """A command that changes nothing, played already (``object_memory``: what it showed is in memory): look and
    inventory at most once in the same situation, showing a thing again (examine, read) at most once in the episode
    (its answer is the same wherever it is asked, and what it showed is known: a chooser that looks at each thing in
    turn spends its steps learning nothing)."""
    if not s.preset.object_memory or s.command is None or not is_no_op(s.command, s.family) or s.asked_now:
        return None
    if s.family.rereads(s.command):  # its text changes each time it is read
        return None
    again = shown_again(s.command) and s.command in s.view.past.played()
    if s.times_here(s.command) < 1 and not again:
        return None
    return GuardDecision(
        Reason.NO_OP_AGAIN,
        f"'{s.command}' changes nothing and was played here already: what it showed is known; do something else",
        avoid=s.command,
    )


def stalled(s: Situation) -> GuardDecision | None:
    """No score for ``stall_steps`` steps (checked once per step, before any replan)."""
    since = s.view.step + 1 - s.view.progress_step
    if (
        s.preset.stall_steps
        and s.view.replans == 0
        and since >= s.preset.stall_steps
        and since % s.preset.stall_steps == 0
    ):
        return GuardDecision(
            Reason.STALLED,
            f"no score for {since - 1} steps: what the plan does is not working; look for what the goal still needs",
        )
    return None


# -- the way forward, once the replans are used up ------------------------------------------------------------------
def mentioned_here(written: str, observation: str) -> bool:
    """Whether the thing a command names (its words after the verb) is in the latest observation."""
    words = [w for w in written.lower().split()[1:] if w not in ("the", "a", "an", "with", "from", "on", "in", "to")]
    text = observation.lower()
    return bool(words) and all(w in text for w in words)


def unexplored_move(s: Situation) -> str | None:
    """A valid 'go' command through an exit the map has never seen taken from here."""
    here = s.memory.location() or s.view.location
    exits = next(iter(s.memory.unexplored_exits(here).values()), []) if here else []
    return next((c for d in exits if (c := s.family.ground(f"go {d}", s.admissible))), None)


def needed_move(s: Situation) -> tuple[str, str] | finding.Way | None:
    """What the next step of a list read needs, from memory (``object_memory``): (command, why), a ``finding.Way``
    where a lead's search follows on arrival, or None."""
    if not s.preset.object_memory:
        return None
    step = next_step(s.view)
    if step is None:
        return None
    item, location = step.text, s.view.location
    found = finding.needs(item, s.family, s.memory, location, s.goal)
    does = None
    if not finding.done_elsewhere(found, location, s.view.inventory):
        does = s.family.command_for_item(item, s.admissible) or finding.in_holder_command(
            item, found, s.family, s.admissible
        )
    shown = does is not None and shown_again(does) and does in s.view.past.played()
    allowed = does is not None and breaks_rules(s.view, does) is None  # the shield's word
    if does is not None and does not in s.tried and not shown and allowed:  # the step can be done here and now
        return does, "what the next step asks, valid here"
    searches = finding.leads(s.memory, location, found, s.family, s.admissible)
    if move := finding.next_move(found, searches, s.memory, s.admissible, location, s.family, s.worn):
        return move
    kind, choices = finding.kind_choices(item, found, s.family, s.admissible)
    if choices:  # which one is the model's, and they are here: a search elsewhere would walk away from them and back
        return staying(s, choices), f"which {kind} the step means is the model's: {', '.join(choices)}"
    return None


def staying(s: Situation, choices: list[str]) -> str:
    """What the way forward plays while the step's choice among things here is the model's: a look at one of them not
    taken yet this episode, else time let pass (the family's waiting command), else a look at the place."""
    played = s.view.past.played()  # (once, not per command)
    looks = [c for c in s.admissible if shown_again(c) and c not in played]
    named = [set(choice.lower().split()) for choice in choices]
    verb = set.intersection(*named)  # the step's own words ("focus on"), which name none of them
    look = next((c for c in looks if (shown := _shown_thing(c) - verb) and any(shown <= w - verb for w in named)), None)
    waiting = s.family.waiting if s.family.waiting in s.admissible else None
    return look or waiting or safe_command(s.admissible)


def ways_forward(s: Situation) -> Iterator[Candidate]:
    """What code would play, best first, when the planner keeps coming back to a step that should not be played (the
    first is the way forward) or when the choice is the model's (the candidates it chooses among): what the next step
    needs from memory, a lock whose key is held or a key lying here, the nearest place not searched yet (a container
    never opened, a closed door, an exit not taken: ``object_memory``), an exit not taken yet from here, the first move
    of 'explore', the ways out not taken yet from this situation, the things here not taken or opened yet, then what
    changes nothing (once in a situation: then the way out taken least, or where there is none a thing not examined
    yet, else the step's own command); each with why. A command may come more than once."""
    if found := needed_move(s):
        way = found if isinstance(found, finding.Way) else finding.Way(*found)
        yield Candidate(way.command, Source.NEED, way.why, way.then, way.room)
    if lock := unlocking(s):
        yield Candidate(lock[0], Source.KEY, lock[1])
    if s.preset.object_memory and (
        search := finding.search_move(
            finding.leads(s.memory, s.view.location, family=s.family, valid=s.admissible),
            s.memory,
            s.admissible,
            s.view.location,
            s.family,
            s.worn,
        )
    ):
        yield Candidate(search.command, Source.SEARCH, f"not searched yet: {search.why}", search.then, search.room)
    if move := unexplored_move(s):
        yield Candidate(move, Source.EXIT, "an exit not taken yet")
    moves = explore_moves(s.memory, s.view.location) if s.preset.explore else None
    if moves and (first := s.family.ground(moves[0]["action"], s.admissible)):
        yield Candidate(first, Source.EXIT, "toward an exit not taken yet")
    for way_out in [c for c in s.admissible if leaves(c, s.view.location) and c not in s.tried]:
        yield Candidate(way_out, Source.WAY_OUT, "a way out not taken from here")
    for reach in untried_reaches(s):
        yield Candidate(reach, Source.REACH, "a thing here not taken or opened yet")
    safe = safe_command(s.admissible)
    exits = exits_least_taken(s)
    if s.times_here(safe) and exits:  # what changes nothing is played once in a situation: a move changes it
        yield Candidate(exits[0], Source.WAY_OUT, "the way out taken least from here")
    if s.times_here(safe) and (unseen := never_shown(s)):  # no way out (a game of one room): a thing not seen closely
        yield Candidate(unseen, Source.LOOK, "a thing here not examined yet")
    if s.times_here(safe) and (chosen := chosen_instead(s)):  # code has nothing left that changes anything: the step
        yield Candidate(chosen, Source.LOOK, "code has nothing else: the step as chosen")
    if s.times_here(safe) >= 2:  # looked here twice already: a thing carried, used as not tried here, changes more
        untried = [c for c in s.admissible if c not in s.tried]
        yield from uses_of_carried(s.view, within_rules(s.view, untried))[:1]
    yield Candidate(safe, Source.LOOK, "nothing else to do")


_NOT_A_USE = ("take ", "pick up ", "get ", "drop ", "examine ", "read ", "look", "inventory", "x ")
# the words of a carried thing's state, which a command naming it leaves out ("sliced red potato": cook red potato)
_STATE_WORDS = frozenset({"raw", "sliced", "diced", "chopped", "fried", "roasted", "grilled", "burned", "burnt"})


def uses_of_carried(view: View, commands: list[str]) -> list[Candidate]:
    """Those of ``commands`` that do something with a thing carried, other than taking, dropping or looking at it."""
    # a thing's name is what its inventory line says before a comma (ScienceWorld: "thermometer, currently reading a
    # temperature of 10 degrees celsius")
    carried = [set(thing.partition(",")[0].lower().split()) - _STATE_WORDS for thing in view.inventory]
    uses = []
    for command in commands:
        words = " ".join(command.lower().split())
        if words.startswith(_NOT_A_USE):
            continue
        if any(thing and thing <= set(words.split()) for thing in carried):
            uses.append(Candidate(command, Source.CARRIED, "does something with a thing carried"))
    return uses


def way_forward(s: Situation) -> Candidate:
    """The first of :func:`ways_forward`: what code plays when a step should not be played and no replan is left."""
    return next(ways_forward(s))


def chosen_instead(s: Situation) -> str | None:
    """The step's own command, when code has nothing but a look already taken here: valid, changing something, not
    undoing a take, nor (with the rules shield on) ruining the game; a step sent back for playing twice still changes
    more than a second look."""
    command = s.command
    if command is None or is_no_op(command, s.family) or ruin(s) is not None or undoes(s) is not None:
        return None
    return command


def never_shown(s: Situation) -> str | None:
    """A valid command that shows a thing (examine, read) the episode has not played anywhere yet."""
    candidates = [c for c in s.admissible if shown_again(c)]
    if not candidates:  # (no need to read the trajectory)
        return None
    played = s.view.past.played()
    return next((c for c in candidates if c not in played), None)


def unlocking(s: Situation) -> tuple[str, str] | None:
    """A lock and its key (the family's keys): a valid 'unlock' not played from here, else a key lying here, else a
    note lying here never read (the family's notes that tell the way: which lock the next key opens)."""
    unlock = [c for c in s.admissible if c.lower().startswith("unlock ") and c not in s.tried]
    if unlock:
        return unlock[0], "a lock whose key is held"
    keys = [
        c for c in s.admissible if taking(c) is not None and c not in s.tried and s.family.opens_locks(taken_thing(c))
    ]
    if keys:
        return keys[0], "a key lying here: locks need it"
    read = {c.lower().split(" ", 1)[1] for c in s.view.past.played() if c.lower().startswith(READING_COMMANDS)}
    notes = [
        c
        for c in s.admissible
        if c.lower().startswith(READING_COMMANDS)
        and s.family.tells_the_way(thing := c.split(" ", 1)[1])
        and thing.lower() not in read
    ]
    return (notes[0], "a note here not read yet: it says where to go next") if notes else None


def untried_reaches(s: Situation) -> list[str]:
    """The valid commands that take (where the family has code take what lies about) or open a thing here, not played
    from this situation and not against the family's rules: before a look that changes nothing (a coin lying in the
    room, with no exit left, is taken)."""
    verbs = (*TAKING, "open ") if s.family.takes_what_lies_about is Taker.CODE else ("open ",)
    return _reachable(s, s.admissible, verbs)


def takes_to_weigh(s: Situation, commands: Sequence[str]) -> list[Candidate]:
    """Where which thing to take is the task itself (``Taker.MODEL``): each take of ``commands`` not played from this
    situation, not of a thing the agent put somewhere, and within the family's rules, for the model to weigh."""
    if s.family.takes_what_lies_about is not Taker.MODEL:
        return []
    why = "a thing here: which one to take is the task's (work it out from the goal)"
    return [Candidate(c, Source.WEIGH, why) for c in _reachable(s, commands, TAKING)]


def _reachable(s: Situation, commands: Sequence[str], verbs: tuple[str, ...]) -> list[str]:
    placed = placed_by_the_agent(s.view)
    reach = [
        c
        for c in commands
        if c.lower().startswith(verbs)
        and c not in s.tried
        and not (c.lower().startswith(TAKING) and held_in(c.split(" ", 1)[1].lower())[0] in placed)
    ]
    return within_rules(s.view, reach)


def placed_by_the_agent(view: View) -> frozenset[str]:
    """The things the agent itself put somewhere (lower case): code does not take one back on its own (where it was put
    is where the agent meant it to be; a model may still choose to)."""
    placed = (placing(command) for command in view.past.last_played(PLACING_VERBS))
    return frozenset(found[1].lower() for found in placed if found)


def way_forward_instead(s: Situation, sent_back: GuardDecision | None) -> GuardDecision | None:
    """With the replans used up, a step that would have gone back (or one the planner was not offered) is not mapped by
    a model to another command (it picks an unrelated one): the way forward. Without object memory, first a look at
    the place, when the thing the step names is here (the planner may see it anew)."""
    avoided = s.command is not None and s.command in s.view.avoid
    unplayable = s.command is None and s.preset.strict_grounding
    if not s.admissible or (sent_back is None and not avoided and not unplayable):
        return None
    safe = safe_command(s.admissible)
    elsewhere = s.command is None and not mentioned_here(s.planned, s.view.observation)
    again = repeated(s) is not None or no_op_again(s) is not None
    # (with object memory the place is in memory already: a look shows nothing the way forward does not know)
    if not (elsewhere or again or s.preset.object_memory or s.times_here(safe) >= 2):
        return GuardDecision(Reason.WAY_FORWARD, "look again at the place", command=safe)
    found = way_forward(s)
    on_arrival: tuple[PlanStep, ...] = ()
    if found.room:  # a lead's search, played once in its room (PlanStep's "in")
        on_arrival = tuple({"action": step, "expected": "", "in": found.room} for step in found.then)
    return GuardDecision(Reason.WAY_FORWARD, found.why, command=found.command, then=on_arrival)


PLAYING_GUARDS: tuple[Callable[[Situation], GuardDecision | None], ...] = (
    goal_in_reach,
    keys_first,
    pacing,
    taking_first,
)
SENDING_GUARDS: tuple[Callable[[Situation], GuardDecision | None], ...] = (
    no_exit_left,
    not_valid,
    ruled_out,
    repeated,
    undoes,
    no_op_again,
    stalled,
)


def guard(s: Situation) -> GuardDecision | None:
    """The first guard that objects to the step, in order: those that play something else; then, with replans left,
    those that send it back, else the way forward instead. None: the step may be played as grounded."""
    for check in PLAYING_GUARDS:
        if decision := check(s):
            return decision
    sending = next((d for check in SENDING_GUARDS if (d := check(s)) is not None), None)
    if sending is not None and sending.reason == Reason.STALLED and not s.replans_left:
        sending = None
    if s.replans_left and sending is not None:
        return sending
    return way_forward_instead(s, sending)
