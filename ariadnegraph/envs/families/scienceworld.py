"""ScienceWorld: elementary science tasks in a house, a workshop, a greenhouse and the outdoors; read by the
ScienceWorld parser (its looks list each thing, what it holds and the doors to the rooms next door).

Its one rule that ends a task for good: ``focus on X`` is the answer a task asks for, and focusing on anything
else fails the task on the spot (``focus on substance in toilet`` is a focus on the water, and fails a task to
melt lead). The task names what to focus on, directly ("focus on the thermometer", "focus on the green paint") or as
"the substance" of a change of state ("melt lead"); where it names only a kind to find ("the thing", "the animal with
the longest life span"), no focus on a thing of that kind is ruled out (the family knows a living thing by its name,
``is_a``, but not which one a task means). Nor does it know which of the boxes a measurement asks for (each named box
is allowed), nor which water a boil task means (any thing of the substance's name is)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...memory.normalize import singularize
from . import parse_scienceworld, prompts
from .base import PRONOUNS, Asking, GameFamily, Observed, Question, Scale, Sighting, Standing, Taker

_FOCUS = re.compile(r"^focus on (?P<thing>.+)$")
_SUBSTANCE_IN = re.compile(r"^substance in (?P<holder>.+)$")  # how the valid commands name a substance in a holder
_GOAL_FOCUS = re.compile(r"\bfocus on (?:the |a |an )?(?P<thing>[^.,;]+)", re.I)
# "Your task is to melt lead." / "... to change the state of matter of water.": what "the substance" is
_CHANGED = re.compile(
    r"\byour task is to (?P<change>boil|melt|freeze|change the state of matter of) (?P<thing>[^.,;]+)", re.I
)
# "Then, take actions that will cause it to change its state of matter": no thing to take; read as what does it
_CHANGE_STEP = re.compile(r"^take actions that will cause it to change its state of matter\b", re.I)
_CONDITION = re.compile(r"^if\b", re.I)  # "If the melting point of ... is above 150.0 degrees celsius"
# what a task says that is no step: where things are, and "When you are done" (its verbs are the family's or not:
# "measure the temperature", "plant it in a pot" are steps all the same)
_REMARK = re.compile(
    r"\b(?:is|are) located\b|\bcan be found\b|\bare in the\b|\bis in the '[^']+' location|^which\b|^when you are done$",
    re.I,
)
# any change of state counts for "change the state of matter of": heating changes a solid or a liquid
_HOW_CHANGED = {"melt": "heat", "boil": "heat", "freeze": "cool", "change the state of matter of": "heat"}
_SUBSTANCE = "substance"  # how a change-of-state task names its substance in its focus sentence
# the words of a focus sentence that name a kind, not a thing: the family cannot say which thing is meant
_KINDS = frozenset({"thing", "animal", "plant", "seed", "inclined", "stages", "intermediate"})
# what no task's focus is, whatever it names or leaves to find: ScienceWorld's rooms, the doors between them, the
# air, the player (a room's name may hold the task's words: "the living room" for "a living thing")
ROOMS = (  # the game's rooms, the same in every task and variation
    "kitchen",
    "bathroom",
    "workshop",
    "art studio",
    "greenhouse",
    "outside",
    "living room",
    "bedroom",
    "hallway",
    "foundry",
)
_NEVER_FOCUSED = re.compile(rf"^(?:the )?(?:{'|'.join(ROOMS)}|door\b.*|air|agent|inventory)$")
# where a task says a thing is: "The sodium chloride is located around the living room.", "... the melting point of
# solid unknown substance C, which is located around the kitchen.", "The animals are in the 'outside' location."
_TOLD_WHERE = (
    re.compile(
        r"(?:^|[.!?]\s+)(?:the |a |an )?(?P<thing>[^.,;!?]+?) (?:is|are) located around the (?P<room>[^.,;!?]+)", re.I
    ),
    re.compile(
        r"\bof (?:the |a |an )?(?P<thing>[^.,;!?]+?), which (?:is|are) located around the (?P<room>[^.,;!?]+)", re.I
    ),
    re.compile(r"(?:^|[.!?]\s+)(?:the )?(?P<thing>[^.,;!?]+?) (?:is|are) in the '(?P<room>[^']+)' location", re.I),
)
# how code heats or cools a thing (goal_steps writes a melt or a freeze so): the blast furnace (3,000 degrees; a tick
# closes a tenth of the gap) melts a metal on the spot, but takes ice straight past water to steam, and the melt task
# never sees it liquid; the oven (540) shows ice liquid for two ticks; the stove (260) melts no lead, and half the
# change-of-state variations break it ("The stove appears broken"). The kitchen's freezer goes down to -18 degrees;
# mercury freezes at -39, in the workshop's ultra low temperature freezer. (A liquid is moved in what holds it: 'move
# water to freezer' is no valid command, and the model's to word.)
_HEATED = re.compile(r"^(?P<how>heat|cool) (?:the )?(?P<thing>.+)$", re.I)
_METALS = frozenset({"lead", "tin", "gallium", "caesium", "mercury", "iron", "copper", "zinc", "aluminum", "bronze"})
COLD = "freezer"  # where a thing is frozen (the brief says so too)
_FROZEN_IN = {"mercury": "ultra low temperature freezer"}


def _changed_in(how: str, thing: str) -> str:
    """Where code heats (``how``: heat) or cools ``thing``."""
    if how.lower() == "cool":
        return _FROZEN_IN.get(thing, COLD)
    return "blast furnace" if thing in _METALS else "oven"


_MOVED = re.compile(r"^move (?P<thing>.+?) to (?P<where>.+)$", re.I)
HEAT_SOURCES = ("stove", "oven", "blast furnace", "hot plate")  # turned on by 'activate' (code heats with them)
LIT = ("fire pit",)  # heats once lit (the brief names it; code does not light fires)
# the game's answers that say what to play next: a thing put on a heat source heats once it is on ("(disconnecting
# X)You move the X ..." when it was wired); a thing not put in a closed one goes in once it is open
_PUT_ON_HEAT = re.compile(rf"(?:^|\))You move the .+? to the (?P<source>{'|'.join(HEAT_SOURCES)})\.", re.I | re.M)
_NOT_OPEN = re.compile(r"because the (?P<holder>[^.,]+?) isn't open\b", re.I)
# "Your task is to find a(n) living thing. First, focus on the thing.": what "the thing" is
_FIND_KIND = re.compile(r"\byour task is to find a\(n\) (?P<kind>[^.,;]+)", re.I)
_STAGES = "egg|baby|juvenile|adult|larva|pupa|hatchling"  # the words of an animal's name that say its life stage
# what lives, as ScienceWorld names it: an animal by its life stage ("adult bee", "baby beaver", "turtle egg"), a plant
_LIVING = re.compile(rf"\b(?:{_STAGES}|tadpole|caterpillar|seed|seedling|plant|tree)\b", re.I)
# an animal, by its life stage ("baby wolf", "parrot egg") or its kind ("elephant"), not a plant ("adult pea plant")
_ANIMAL_WORDS = (
    f"{_STAGES}|tadpole|caterpillar|ant|bear|beaver|bee|butterfly|chameleon|chicken|"
    "chipmunk|crocodile|dove|dragonfly|elephant|fish|frog|giraffe|hedgehog|jay|moth|mouse|owl|parrot|rabbit|snake|toad|"
    "tortoise|turtle|wolf"
)
_ANIMAL = re.compile(rf"^(?!.*\b(?:plant|tree|seed|seedling)\b).*\b(?:{_ANIMAL_WORDS})\b", re.I)
_KIND_NAMES = {"living thing": _LIVING, "animal": _ANIMAL}
# an animal's name without its life stage: its kind ("baby baby brown bear" is a brown bear)
_STAGE_WORDS = re.compile(rf"\b(?:{_STAGES})\b\s*", re.I)
_TELEPORT = "teleport to "
_NOTHING_DONE = re.compile(
    r"no known action matches|does not appear to produce anything new|there is only one thing|that container is empty"
    r"|it's not clear how to",
    re.I,
)
# the lifespan tasks' focus sentences, in the order the task asks them ("First, focus on the animal with the longest
# life span. Then, focus on the animal with the shortest life span.")
_LIFESPAN_FOCUS = re.compile(r"\bfocus on the animal with the (?P<criterion>\w+est) life span", re.I)
# a task's branches on a temperature measured ("If the unknown substance B temperature is above 50.0 degrees celsius,
# place it in the green box."), and the game's answer to a measurement
_MEASURED_BRANCH = re.compile(
    r"\bIf the (?P<thing>[^.,]+?) temperature is (?:above|below) -?[\d.]+ degrees celsius, place it in the "
    r"(?P<holder>[^.,]+?)\.",
    re.I,
)
_MEASUREMENT = re.compile(r"thermometer measures a temperature of (?P<degrees>-?[\d.]+) degrees celsius", re.I)
_USED_ON = re.compile(r"^use thermometer on (?P<thing>.+)$", re.I)
# a life-stages task's organism ("Your task is to focus on the 4 life stages of the giant tortoise, starting from
# earliest to latest."), and the words that name no organism of its own in it ("the apple plant": the apple)
_STAGES_OF = re.compile(r"\bfocus on the (?:\d+ )?life stages of the (?P<organism>[^,.;]+)", re.I)
_GENERIC_LIVING = frozenset({"plant", "tree"})
_CRITERION = re.compile(r"\s+with (?:the )?\w+est\b.*$", re.I)  # "with the longest life span": which, not what
# "lead in crucible": the thing, not where it is; "cup containing tin": the cup, not what it holds
_WHERE = re.compile(r"\s+(?:in|on|inside|containing)\s+.*$")
# what a name says its thing is for or about ("instructions to make smores", "recipe for salt water"): a text about the
# thing, not the thing
_ABOUT = re.compile(r"\s+(?:to|for|about)\s+.*$")


def _words(name: str) -> list[str]:
    return [w for w in name.lower().split() if w not in ("the", "a", "an")]


def focus_targets(goal: str) -> list[str] | None:
    """What the task says to focus on, as names (``["thermometer", "solid unknown substance c", "orange box", ...]``;
    "the substance" of a change of state is the task's substance); None when a focus names a kind, not a thing, or the
    task says nothing of focusing."""
    changed = _CHANGED.search(goal)
    targets = []
    for found in _GOAL_FOCUS.finditer(goal):
        words = _words(found["thing"])
        if words == [_SUBSTANCE] and changed:
            words = _words(changed["thing"])
        if not words or _KINDS & set(words) or words == [_SUBSTANCE]:
            return None
        targets.append(" ".join(words))
    return targets or None


def focus_kind(goal: str) -> str | None:
    """The kind the task's focus names, when the family knows it: "the animal with the longest life span" is an
    animal; "a(n) living thing. First, focus on the thing" a living thing; else None."""
    found = _FIND_KIND.search(goal)
    if found and (kind := " ".join(_words(found["kind"]))) in _KIND_NAMES:
        return kind
    named = {word for focus in _GOAL_FOCUS.finditer(goal) for word in _words(focus["thing"])}
    return next((kind for kind in _KIND_NAMES if set(kind.split()) <= named), None)


def told_where(goal: str) -> list[tuple[str, str]]:
    """Where the task says things are, as (thing, room) names: ``[("sodium chloride", "living room")]``."""
    found = []
    for pattern in _TOLD_WHERE:
        for told in pattern.finditer(goal):
            room = " ".join(_words(told["room"]))
            if room in ROOMS:
                found.append((" ".join(_words(told["thing"])), room))
    return found


def _singular(words: list[str]) -> set[str]:
    """Each word in the singular: "boxes" is "box", "bees" "bee", "glass" "glass"."""
    return {singularize(word) for word in words}


def names_target(thing: str, target: str) -> bool:
    """Whether a command's thing is the target: the same last word, and one's words among the other's ("unknown
    substance c" is "solid unknown substance c"; "substance" alone is not; "red box" is not "blue box"; "cup
    containing tin" is a cup, not tin; "instructions to make smores" are instructions, not smores)."""
    named, wanted = _words(_ABOUT.sub("", _WHERE.sub("", thing))), _words(target)
    if _unlettered(target) == " ".join(named):  # a lettered unknown substance, as the game's commands name it
        return True
    if not named or named[-1] != wanted[-1]:
        return False
    return set(named) <= set(wanted) or set(wanted) <= set(named)


def _unlettered(thing: str) -> str | None:
    """A lettered unknown substance as the game's commands name it: the room lists "unknown substance B", the task
    says "focus on the unknown substance B", and the valid command is 'focus on unknown substance' (the letter is the
    task's label for it, not the game's name); None for a name with no such letter."""
    named = _words(thing)
    return " ".join(named[:-1]) if len(named) >= 3 and len(named[-1]) == 1 else None


def _lettered_focus(thing: list[str], valid: Sequence[str]) -> str | None:
    """The one valid focus on a lettered unknown substance, as the game's commands name it (:func:`_unlettered`)."""
    name = _unlettered(" ".join(thing))
    wanted = f"focus on {name}" if name else None
    found = [c for c in valid if " ".join(c.lower().split()) == wanted]
    return found[0] if len(found) == 1 else None


class ScienceWorld(GameFamily):
    name = "scienceworld"
    brief = prompts.scienceworld(HEAT_SOURCES + LIT, COLD)
    verbs = GameFamily.verbs | {"focus", "activate", "deactivate", "pour", "mix", "connect", "heat", "cool"}
    verb_synonyms = {"focus on": "focus"}  # "focus on the lead" acts on the lead
    # its valid commands are every verb on every thing and pair of things (300-1,300 a step, 32,000 characters in
    # the kitchen): shown whole, a step's prompt is about 8,000 tokens, minutes of a small local model's reading
    commands_shown = 60  # (the env's max_admissible option cuts what the game lists, alphabetically; unset here)
    # "In the toilet is: A drain, which is open, a substance called water." lists a holder's contents, not things to
    # do (read as a list, its items would be the NEXT STEP: "the toilet." searched for, not what the task names)
    lists_at_start = False
    # a table, a closet and a bed can be picked up, and no task needs furniture carried: the way forward takes
    # nothing for lying about (it opens what is closed), or it would carry off the furniture of every room
    takes_what_lies_about = Taker.NOBODY
    waiting = "wait1"  # ('wait' lets ten steps pass)
    opens_what_it_uses = True
    kinds = frozenset(_KIND_NAMES)

    def covers(self, prefix: str, rest: str) -> bool:
        return prefix == "scienceworld"

    def ground(self, command: str, valid: Sequence[str]) -> str | None:
        """The base grounding; else the one valid command of the same verb and the same last word whose words are
        all in ``command``: a look names a thing in full ("a large cupboard", "an ultra low temperature freezer"),
        the valid commands by a shorter name ("open cupboard"). Without it memory's 'open large cupboard' has no valid
        command, and a lead no command searches stays the nearest from its neighbours, walked to and away from. Never
        a focus: 'focus on red box' is not 'focus on box'."""
        grounded = super().ground(command, valid)
        if grounded is not None:
            return grounded
        words = command.lower().split()
        if words[:2] == ["focus", "on"]:  # a focus is the task's answer: on the thing named in full, or none
            return _lettered_focus(words[2:], valid)
        if len(words) < 3:
            return None
        shorter = [
            c
            for c in valid
            if len(named := c.lower().split()) < len(words)
            and named[0] == words[0]
            and named[-1] == words[-1]
            and set(named) <= set(words)
        ]
        return shorter[0] if len(shorter) == 1 else None

    def perceive(self, seen: Observed) -> Sighting:
        return parse_scienceworld.sighting(seen)

    def _on_holder(self, item: str) -> list[str]:
        """No "X in the Y" reading of a move: "move the living thing to the red box in the workshop" is not done by
        'move workshop' nor 'move living thing to workshop' (that moves the thing into the room, not into the box:
        the room only says where the box is)."""
        return [] if _MOVED.match(" ".join(item.split())) else super()._on_holder(item)

    def named_by_holder(self, thing: str, holder: str, valid: Sequence[str]) -> list[str]:
        """A substance lies in a holder as "substance in fountain": the look says "a fountain (containing a substance
        called water)", and no valid command names the water ('focus on substance in fountain' is answered "You
        focus on the water."). Only when no valid command names the thing: an orange in a bowl
        that holds a substance is not that substance."""
        words = set(_words(thing))
        if not words or any(words <= set(_words(command)) for command in valid):
            return []
        return [f"substance in {holder}"]

    def brief_for(self, goal: str) -> str:
        task = prompts.scienceworld_task_brief(goal)
        return f"{self.brief}\n{task}" if task else self.brief  # (a line of its own: diagnostics tell it copied)

    def tools_for(self, goal: str) -> tuple[str, ...]:
        topics = prompts.scienceworld_topics(goal)
        return tuple(dict.fromkeys(t for words in topics for t in prompts.SCIENCEWORLD_TOOLS.get(words, ())))

    def changed_nothing(self, answer: str) -> bool:
        """ "No known action matches that input.", "Mixing the contents of the outside does not appear to produce
        anything new.", "That container is empty, so there are no items to mix." (played again in the same
        situation, it gets the same answer)."""
        return bool(_NOTHING_DONE.search(answer))

    def reach(self, room: str, valid: Sequence[str]) -> str | None:
        """'teleport to ROOM' (the ``easy`` simplification DAVIS ran, as ours does): a room is one move away, its doors
        open or shut (through the doors, a walk between two rooms goes through the hallway, and a search of the house
        goes back through it between every two rooms)."""
        wanted = f"{_TELEPORT}{' '.join(room.lower().split())}"
        return next((command for command in valid if " ".join(command.lower().split()) == wanted), None)

    def rooms_reached(self, valid: Sequence[str]) -> dict[str, str]:
        said = ((" ".join(command.lower().split()), command) for command in valid)
        return {words[len(_TELEPORT) :]: command for words, command in said if words.startswith(_TELEPORT)}

    def names_of_one_of_kind(self, thing: str, kind: str, holder: str | None, held: bool) -> list[str]:
        """Memory's name ("adult pea plant", the parser's for "a pea plant in the adult stage"), the kind where it lies
        ("living thing in flower pot 5": a plant in a later stage has no name of its own in the commands), the kind
        when carried ("move living thing to red box")."""
        where = [f"{kind} in {holder}"] if holder and not held else []
        return [thing, *where, *([kind] if held else [])]

    def things_named(self, item: str) -> list[str]:
        """The base reading; "heat the caesium" names the caesium and where code heats it (the blast furnace; the
        oven for ice; "cool the water": the freezer); "move the living thing to the red box in the workshop" the thing
        only (the box is where it goes, not a thing to fetch; the room is a place: places_named)."""
        words = " ".join(item.split())
        if moved := _MOVED.match(words):  # ScienceWorld's 'move' puts a thing somewhere (elsewhere it is 'go')
            thing = " ".join(_words(moved["thing"]))  # not where it goes: taken, the red box goes nowhere
            return [thing] if thing not in PRONOUNS else []
        changed = _HEATED.match(words)
        if changed is None:  # "the animal with the longest life span": the animal; which one is the criterion's
            return super().things_named(_CRITERION.sub("", words))
        thing = " ".join(_words(changed["thing"]))
        return [thing, _changed_in(changed["how"], thing)]

    def phrasings(self, item: str) -> list[str]:
        """ "move X to the red box in the workshop" is done by 'move X to red box' (the room says where, and no
        command names it); "heat the caesium" by 'move caesium to blast furnace' (the game then says what is left:
        open it, turn it on: ``said_to_play``): no command of the game says "heat", and a step that does is done by
        the move that puts the thing on the heat source. (A liquid is moved in what holds it: 'move water to stove'
        is no valid command, and the model's to word.)"""
        words = " ".join(item.split())
        if (focused := _FOCUS.match(words.lower())) and (name := _unlettered(focused["thing"])):
            return [f"focus on {name}"]  # a lettered unknown substance, as the game's commands name it
        if (moved := _MOVED.match(words)) and " in the " in moved["where"]:  # the room is where, not what: no command
            return [f"move {moved['thing']} to {moved['where'].partition(' in the ')[0]}"]  # names it
        changed = _HEATED.match(words)
        if changed is None:
            return []
        thing = " ".join(_words(changed["thing"]))
        return [f"move {thing} to {_changed_in(changed['how'], thing)}"]

    def said_to_play(self, observation: str) -> str | None:
        """What the game's answer leaves to play: a thing put on a heat source, the source turned on ("You move the
        gallium to the blast furnace.": 'activate blast furnace'); a thing the closed holder refused, the holder
        opened ("That can't be moved there, because the blast furnace isn't open.")."""
        if put := _PUT_ON_HEAT.search(observation or ""):
            return f"activate {put['source'].lower()}"
        if refused := _NOT_OPEN.search(observation or ""):
            return f"open {refused['holder'].strip().lower()}"
        return None

    def is_a(self, name: str, kind: str) -> bool:
        """A "living thing" is a thing named by its life stage, a plant, a seed or a tree ("adult bee", "peach
        tree": a task that says only "the thing" is done on one of them); an "animal" one named by an animal's life
        stage ("baby wolf", "parrot egg"). The game's own name for one of a kind ("living thing in flower pot 5") is
        one."""
        kind = " ".join(_words(kind))
        pattern = _KIND_NAMES.get(kind)
        if pattern is None:
            return False
        said = f" {name.lower()} "  # the game names one of a kind "living thing in flower pot 5"
        return pattern.search(name) is not None or any(f" {alias} " in said for alias in (kind, "living thing"))

    def carries_out(self, step: str, command: str) -> bool:
        """A step naming a kind is carried out by a command of its verb that raised the score and names every other
        thing the step does ("focus on the living thing" by 'focus on adult bee', or by the game's own 'focus on living
        thing in flower pot 8'; "move the living thing to the red box ..." by 'move adult bee to red box'): the game
        took it. Else the step is never counted done: a second focus would replace the first, and the task could
        not be finished."""
        words = step.lower().split()
        named = self.things_named(step)
        # "the animal with the longest life span" is one animal the criterion picks: not any focus on one
        if not words or not any(thing in self.kinds for thing in named) or _CRITERION.search(step):
            return False
        said = f" {' '.join(command.lower().split())} "
        others = [thing for thing in named if thing not in self.kinds]
        if moved := _MOVED.match(" ".join(step.split())):  # where it goes: "the red box", not the green one
            others.append(" ".join(_words(moved["where"].partition(" in the ")[0])))
        return said.startswith(f" {words[0]} ") and all(f" {thing.lower()} " in said for thing in others)

    def what_was_done(self, command: str, answer: str) -> str:
        """A focus by the game's name for it: 'focus on substance in fountain' is "focus on water" when the game says
        "You focus on the water." (else the step "focus on the water" is never counted done, and code focuses
        again)."""
        if not _FOCUS.match(" ".join(command.lower().split())):
            return command
        focused = parse_scienceworld.FOCUS_ANSWER.search(answer or "")
        return f"focus on {focused['thing'].strip()}" if focused else command

    def where_told(self, thing: str, goal: str) -> list[str]:
        """ "The sodium chloride is located around the living room": the living room; "The animals are in the
        'outside' location": the outside, for a step that names an animal."""
        named = _singular(_words(thing))
        return [room for told, room in told_where(goal) if _singular(told.split()) <= named]

    def places_named(self, item: str, goal: str) -> list[str]:
        """The room the task says a thing the step names is in ("The sodium chloride is located around the living
        room": the step "focus on the sodium chloride" is done there), or the step itself ("move it to the red box in
        the workshop"). Read as a remark, it would leave the whole house to search, and a thing of the name seen in
        another room taken for the task's."""
        told = [room for thing in self.things_named(item) for room in self.where_told(thing, goal)]
        moved = _MOVED.match(" ".join(item.split()))
        room = " ".join(_words(moved["where"].partition(" in the ")[2])) if moved else ""
        return list(dict.fromkeys([*told, *([room] if room in ROOMS else [])]))

    def question(self, asking: Asking) -> Question | None:
        """What the task asks to work out: which animal lives longest (:meth:`_lifespan`), or which of its branches a
        temperature measured calls for (:meth:`_measured`)."""
        return self._measured(asking) or self._lifespan(asking)

    def _measured(self, asking: Asking) -> Question | None:
        """Once the thermometer measured the task's thing (the last such answer heard): which holder the task's
        branches put it in ("If ... above 50.0 degrees celsius, place it in the green box. If ... below ..., place
        it in the blue box."). Comparing the degrees is the model's."""
        branches = list(_MEASURED_BRANCH.finditer(asking.goal))
        holders = tuple(dict.fromkeys(" ".join(_words(found["holder"])) for found in branches))
        if len(holders) < 2:
            return None
        thing = " ".join(_words(branches[0]["thing"]))
        measured = None
        for command, answer in asking.heard:
            used = _USED_ON.match(" ".join(command.split()))
            if used and names_target(used["thing"], thing) and (found := _MEASUREMENT.search(answer)):
                measured = found["degrees"]
        if measured is None:
            return None
        said = " ".join(" ".join(found.group(0).split()) for found in branches)
        asked = prompts.MEASURED_QUESTION.format(measured=measured, thing=thing, branches=said)
        return Question(asked, holders, act=f"move {thing} to {{answer}}")

    def _lifespan(self, asking: Asking) -> Question | None:
        """A lifespan task's next focus: which of the animals here lives longest (or shortest), the ones focused on
        already aside (any focus played is final). Asked only in the room the task says the animals are in, where it
        says, and where two or more can be focused on: elsewhere, or with one in sight, others may be out of sight,
        and a focus on the wrong one fails the task."""
        criteria = [found["criterion"].lower() for found in _LIFESPAN_FOCUS.finditer(asking.goal)]
        focused = {command.lower().removeprefix("focus on ") for command in asking.played if _FOCUS.match(command)}
        told = self.where_told("animal", asking.goal)
        if len(focused) >= len(criteria) or (told and (asking.location or "").lower() not in told):
            return None
        here = [command[len("focus on ") :] for command in asking.valid if _FOCUS.match(command.lower())]
        animals = tuple(dict.fromkeys(t for t in here if self.is_a(t, "animal") and t.lower() not in focused))
        if len(animals) < 2:
            return None
        criterion = criteria[len(focused)]
        scale = Scale("typical life span", "years", most=criterion == "longest")  # (the tasks ask longest or shortest)
        kinds = tuple(" ".join(_STAGE_WORDS.sub("", animal).split()) or animal for animal in animals)
        asked = prompts.LIFESPAN_QUESTION.format(criterion=criterion)
        return Question(asked, animals, scale=scale, weighed_as=kinds)

    def answer_moves(self, question: Question, answer: str, commands: Sequence[str]) -> list[str]:
        """The answer's own move (``question.act``: the thing moved to the holder chosen), as the valid commands name
        it; else a focus on the thing chosen."""
        wanted = question.act.format(answer=answer) if question.act else f"focus on {answer}"
        grounded = self.ground(wanted, commands)
        return [grounded] if grounded else []

    def ruinous(self, command: str, standing: Standing) -> str | None:
        """A focus on what the task does not name fails it. "substance in fountain" names what memory has seen in the
        fountain (``contents``): a focus on it is the task's when that is the one thing there."""
        if " ".join(command.lower().split()) == "reset task":  # (a valid command in every task)
            return "it resets the task: every point scored and every focus so far is lost"
        focused = _FOCUS.match(" ".join(command.lower().split()))
        if focused is None:
            return None
        if _NEVER_FOCUSED.match(focused["thing"]):  # whatever the task names, or when it names only a kind
            return "no task asks to focus on a room, a door or the air; focusing on anything else fails the task"
        told = self.where_told("animal", standing.goal)
        here = (standing.location or "").lower()
        if told and standing.location is not None and here not in told and self.is_a(focused["thing"], "animal"):
            # "The animals are in the 'outside' location": one of them met elsewhere (a bee flown out of its hive into
            # the hallway) is not among those the task means, and a focus on it fails the task
            return f"the task says the animals are in the {told[0]}; a focus on one in the {here} fails the task"
        targets = focus_targets(standing.goal)
        if targets is None and (stages := _STAGES_OF.search(standing.goal)):
            # "focus on the 3 life stages of the brown bear": every focus is on a stage of it ("baby brown bear"), a
            # thing that names it; any other fails the task
            organism = [word for word in _words(stages["organism"]) if word not in _GENERIC_LIVING]
            if organism and not set(organism) & set(_words(focused["thing"])):
                return (
                    f"the task says to focus on the life stages of the {stages['organism']}, and the "
                    f"{focused['thing']} is none; that fails the task"
                )
            return None
        if targets is None and (kind := focus_kind(standing.goal)) and not self.is_a(focused["thing"], kind):
            # (a focus on a thing of another kind fails the task as one on a thing it does not name does)
            return f"the task says to focus on a(n) {kind}, and the {focused['thing']} is none; that fails the task"
        held = _SUBSTANCE_IN.match(focused["thing"])
        names = [focused["thing"]]
        if held and standing.contents is not None and held["holder"] != "inventory":
            inside = list(standing.contents(held["holder"]))
            names = inside if len(inside) == 1 else names  # of two (soil, water), which one the game means is not known
        if targets is None or any(names_target(name, t) for name in names for t in targets):
            return None
        return f"the task says to focus on the {' or the '.join(targets)}; focusing on anything else fails the task"

    def goal_steps(self, goal: str) -> list[str]:
        """The steps code may follow: the base reading without the sentence restating the task (no command carries
        "Your task is to melt lead" out word for word, so the NEXT STEP would never move past it), without remarks
        ("The boxes are located around the kitchen", "When you are done") and without a condition or the step it
        guards ("If it is electrically conductive, place it in the red box": which branch holds is the model's to
        find out, never code's). A change of state's "the substance" is written as the task's ("focus on lead"), and
        "take actions that will cause it to change its state of matter" as what does that ("heat the lead": read as a
        thing to take, the way forward would search for "actions that will cause it ...")."""
        steps = super().goal_steps(goal)
        if len(steps) > 1 and steps[0].lower().startswith("your task is to"):
            steps = steps[1:]
        kept: list[str] = []
        guarded = False
        for step in steps:
            if _CONDITION.match(step):
                guarded = not self.instructs(step)  # "If it is conductive", then its step; "If so put it ..." is one
            elif not _REMARK.search(step):
                if not guarded:
                    kept.append(step)
                guarded = False
        found = _FIND_KIND.search(goal)
        if found and (kind := " ".join(_words(found["kind"]))) in _KIND_NAMES:  # "the thing" is the living thing
            kept = [re.sub(r"\bthe thing\b", f"the {kind}", step, flags=re.I) for step in kept]
        changed = _CHANGED.search(goal)
        if not changed:
            return kept
        thing, how = changed["thing"].strip(), _HOW_CHANGED.get(" ".join(changed["change"].lower().split()))
        kept = [re.sub(r"\bthe substance\b", thing, step, flags=re.I) for step in kept]
        return [f"{how} the {thing}" if how and _CHANGE_STEP.match(step) else step for step in kept]


FAMILY = ScienceWorld()
