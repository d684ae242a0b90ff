"""A game family: what the agent knows of one kind of game, behind one interface.

The agent's nodes are written for any game; what differs between TextWorld's cooking games, a treasure hunt,
a TextWorldExpress puzzle, ScienceWorld, Crafter or NetHack is asked of the episode's family (resolved once
from the env spec, :func:`~ariadnegraph.envs.families.family_of`): the brief every role reads, the rules whose
breaking ends the game, the family's wordings of an instruction and its verbs, the tools an instruction needs,
how its observations are read into memory (:meth:`GameFamily.perceive`), the states memory keeps exclusive, and
the AgentKit thought graph written for it. A family is one module; the registry lists it once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from .. import text

Triplet = tuple[str, str, str]
PRONOUNS = frozenset({"it", "them", "this", "that", "one"})  # a thing an instruction names by the step before
_NAMED_BEFORE = frozenset({"it", "them"})  # the pronouns a goal's step is rewritten with the thing of the step before
_HELD_IN = re.compile(
    r"^(?P<thing>.+?)\s+(?:that is\s+)?(?:located\s+|found\s+)?(?:in|on|inside|from)\s+(?P<holder>.+)$"
)
# how a placing is worded by the commands games take ("put coin in box", "insert coin into box", "put hat on bed")
_PLACED_AS = {"into": ("in", "into"), "inside": ("in", "into"), "in": ("in", "into"), "onto": ("on",), "on": ("on",)}
_BARE_CONNECTIVES = frozenset({"and", "then", "first", "next", "finally", "also"})
_RELATIVE = frozenset({"that", "which", "who", "where"})
_CONNECTIVE = re.compile(r"^(?:and then|and|then|also)\s+", re.IGNORECASE)  # "..., and put it into the box"


class Taker(StrEnum):
    """Who takes a thing lying about for its own sake (a family's ``takes_what_lies_about``)."""

    CODE = "code"  # the way forward takes it where it has nothing else to do (a coin, a key, a knife)
    MODEL = "model"  # which thing to take is the task itself (a quantity, an order): the model weighs each take
    NOBODY = "nobody"  # furniture and animals can be picked up, and carrying changes nothing (ScienceWorld)


@dataclass(frozen=True)
class Scale:
    """How a question's options are weighed when the answer is the one with the most or the least of something (the
    smallest quantity, the longest life span): the model gives every option its ``measure`` in ``unit`` as a number,
    and the answer is the option with the greatest number (``most``) or the least. Asked this way, a small model
    writes a number for each thing instead of copying the first option it is shown as its answer."""

    measure: str  # what each option is given a number of ("quantity", "life span")
    unit: str  # the one unit every number is in ("g", "years")
    most: bool  # the greatest number answers; else the least


@dataclass(frozen=True)
class Question:
    """What the task asks the player to work out, as a choice: which of ``options`` (things, named as the game names
    them) the answer is. The model answers it (nodes/worked_out.py); with no language model it is never asked.
    ``asked`` is worded for the model and, with the options, is the question's identity (a reworded question is a new
    one: a run resumed across such a change asks it again)."""

    asked: str
    options: tuple[str, ...]
    # what carries an answer out, where the family words it ("move unknown substance B to {answer}"), else its own
    act: str = ""
    scale: Scale | None = None  # the options are weighed on it (else the model names one after a line of working)
    # the names the options are weighed under, in their order, where the game's name misleads a small model (a "baby
    # wolf" is weighed as a wolf: asked the baby's life span, the 1.5B answers 1 year for every animal); else their own
    weighed_as: tuple[str, ...] = ()

    def weighed_names(self) -> tuple[str, ...]:
        """What each option is weighed as: ``weighed_as`` when it names each option once, else the options."""
        named = self.weighed_as
        return named if len(named) == len(self.options) == len(set(named)) else self.options

    @property
    def key(self) -> str:
        return f"{self.asked} | {'; '.join(sorted(self.options))}"  # (the same things, in whatever order: the same)


@dataclass(frozen=True)
class Asking:
    """What a family reads to pose the task's question (:meth:`GameFamily.question`)."""

    goal: str
    readings: tuple[str, ...] = ()  # the texts read, as "command: text"
    valid: tuple[str, ...] = ()  # the valid commands now
    reach: tuple[str, ...] = ()  # the things a valid command takes here
    carried: tuple[str, ...] = ()
    placed: frozenset[str] = frozenset()  # the things the agent put somewhere (lower case)
    played: frozenset[str] = frozenset()  # every command played so far
    location: str | None = None
    heard: tuple[tuple[str, str], ...] = ()  # the last few commands with the game's answers, oldest first


def held_in(thing: str) -> tuple[str, str]:
    """ "recipe in cookbook" -> ("recipe", "cookbook"); "coin that is located in shower" -> ("coin", "shower"); a
    name that says nothing of where -> (name, "")."""
    found = _HELD_IN.match(thing)
    return (found["thing"], found["holder"]) if found else (thing, "")


@dataclass(frozen=True)
class Observed:
    """What one step shows the agent, as perception reads it: the game's answer to ``command`` (None at the start),
    the valid commands it lists, the room the env names and what the player carries."""

    text: str
    command: str | None = None
    valid: Sequence[str] = ()
    location: str | None = None
    inventory: Sequence[str] | None = None  # None: the env did not say


@dataclass(frozen=True)
class Standing:
    """What a family's rules read besides the command: what the player carries, the texts read (a recipe, as TEXTS
    READ keeps them), the task, and ``contents``: what memory has seen in a holder, by its name (None: memory not
    asked)."""

    inventory: Sequence[str] = ()
    readings: Sequence[str] = ()
    goal: str = ""
    contents: Callable[[str], Sequence[str]] | None = None
    location: str | None = None  # the room the player is in (None: not known)


@dataclass(frozen=True)
class Sighting:
    """What perception read off one observation: ``facts`` in memory's vocabulary (``(thing, in|on, holder)``,
    ``(thing, in, inventory)``, ``(thing, is, open|closed|locked)``, ``(room, has exit, direction)``, ``(room, door
    DIRECTION, door)``), and ``shown``: the holders (rooms, open containers, supports) whose whole contents the
    observation shows, so what memory placed there before and is not there now has left (memory/objects.py)."""

    facts: tuple[Triplet, ...] = ()
    shown: frozenset[str] = field(default_factory=frozenset)


NOTHING_SEEN = Sighting()


class GameFamily:
    """The default family: what any text game shares. A family module subclasses it and sets what differs."""

    name: ClassVar[str] = "generic"
    brief: ClassVar[str] = (
        "A text game. You act by sending one short command at a time and the game answers in text; the score rises "
        "when you make progress."
    )

    def brief_for(self, goal: str) -> str:
        """The brief for an episode of ``goal``: the family's, with what that task needs to know where the family
        says (ScienceWorld: how to test conductivity, mix paint, measure a melting point)."""
        return self.brief

    def tools_for(self, goal: str) -> tuple[str, ...]:
        """The things a task of ``goal`` needs carried, taken wherever code finds them (ScienceWorld: the thermometer
        to measure a temperature); the default knows none."""
        return ()

    # verbs (and words) the family's commands take for another's: "enjoy your meal" is "eat meal" in cooking games
    verb_synonyms: ClassVar[Mapping[str, str]] = {}
    ignored_words: ClassVar[frozenset[str]] = frozenset()
    # the verbs the family's instructions start with: "slice the carrot" is an instruction, "block of cheese" a thing
    verbs: ClassVar[frozenset[str]] = frozenset(
        {
            "take",
            "get",
            "open",
            "close",
            "go",
            "move",
            "examine",
            "read",
            "eat",
            "drink",
            "put",
            "insert",
            "drop",
            "unlock",
            "lock",
            "cook",
            "use",
            "find",
            "bring",
            "place",
            "give",
            "turn",
            "look",
            "wait",
        }
    )
    # exclusive states memory keeps (one of a group holds at a time), beside the doors' open/closed/locked
    state_groups: ClassVar[tuple[frozenset[str], ...]] = ()
    thought_graph: ClassVar[str | None] = None  # the AgentKit graph written for the family (agentkit/NAME.yaml)
    tracks_position: ClassVar[bool] = False  # the env names the player's place (a level, a region), not a room
    commands_shown: ClassVar[int | None] = None  # the most valid commands a model is shown at once (None: all)
    # a list the start states on one line is instructions, kept as a text read (TWX's Simon says: "take these actions
    # in order: a, b, c"); False where the start's lines after a colon list what a room holds
    lists_at_start: ClassVar[bool] = True
    # who takes a thing lying about for its own sake (Taker): code, where the way forward has nothing else to do; or,
    # where which thing to take is the task itself, the model, each take here being a candidate it weighs (code takes
    # none on its own: a thing code took at random, the model then places as if it had chosen it); or nobody. Unless
    # nobody, a step not valid now that names a thing here has the thing taken first
    takes_what_lies_about: ClassVar[Taker] = Taker.CODE
    # the command that lets time pass and does nothing else, where the game has one: what the way forward plays to stay
    # while a choice is the model's, a look having been taken already
    waiting: ClassVar[str | None] = None
    # whether a closed thing a step names is opened before the step: ScienceWorld puts a thing into its furnace or
    # freezer (and lists no 'move X to blast furnace' while it is shut); TextWorld cooks with a shut oven
    opens_what_it_uses: ClassVar[bool] = False
    # the kinds a step may name in place of a thing, known by a thing's name (``is_a``): ScienceWorld's "living thing"
    kinds: ClassVar[frozenset[str]] = frozenset()
    # what a task's words mean, as the family's games play them: words of a goal's step (lower case) -> the step it is
    # done by ("solve the math problem": the game's math problem is solved by reading it; the answer is the player's)
    meanings: ClassVar[Mapping[str, str]] = {}
    # things whose text changes each time it is read (an instructions book that says the next task): reading one
    # again is no repeat
    changing_texts: ClassVar[tuple[str, ...]] = ()

    def rereads(self, command: str) -> bool:
        """Whether ``command`` reads a thing whose text changes each time (``changing_texts``)."""
        words = " ".join(command.lower().split())
        return any(words.endswith(f" {thing}") for thing in self.changing_texts)

    def shown_commands(self, valid: Sequence[str], focus: str, keep: Sequence[str] = ()) -> list[str]:
        """The valid commands a model is shown: all, or past ``commands_shown`` the ones the focus (the goal, what is
        carried) makes relevant, and ``keep`` (text.relevant_commands); grounding still reads every valid command."""
        if self.commands_shown is None or len(valid) <= self.commands_shown:
            return list(valid)
        return text.relevant_commands(valid, focus, self.commands_shown, keep)

    def covers(self, prefix: str, rest: str) -> bool:
        """Whether an env spec ``prefix:rest`` is a game of this family (the registry asks, in its order)."""
        return False

    def manual(self) -> str | None:
        """The family's instruction manual, where it has one (Crafter's), else None."""
        return None

    # -- rules: what ruins the game for good ---------------------------------------------------------------------
    def ruinous(self, command: str, standing: Standing) -> str | None:
        """Why ``command`` breaks the family's rules for good (a lost game, a burned ingredient, a failed task), given
        where the player stands (:class:`Standing`), else None."""
        return None

    # -- what the task asks to work out ---------------------------------------------------------------------------
    def question(self, asking: Asking) -> Question | None:
        """What the task asks the player to work out now, where the family knows its form (a sum read in a note, the
        smallest quantity left, the animal that lives longest), else None."""
        return None

    def answer_moves(self, question: Question, answer: str, commands: Sequence[str]) -> list[str]:
        """Those of the valid ``commands`` that carry out an answer to ``question`` (the thing chosen): put it where
        the task wants it, take it, or focus on it. Only the families that pose a question have any."""
        return []

    # -- instructions and commands -------------------------------------------------------------------------------
    def phrasings(self, item: str) -> list[str]:
        """Other wordings of an instruction read, as the family's commands put it, for matching a valid command."""
        return []

    def tools_needed(self, item: str) -> list[str]:
        """What an instruction needs held before any command can do it (a knife to chop)."""
        return []

    def things_named(self, item: str) -> list[str]:
        """The things an instruction read names, the tools it needs after them: what memory is asked where to find.
        "slice the carrot" names the carrot; an item that is a thing to have ("carrot") names itself."""
        words = self._acted_on(text.command_words(item, self.ignored_words))
        verb = text.verb_of(words, self.synonyms)
        instruction = verb is not None and len(words) > 1 and (verb in self.verbs or words[0] in self.verbs)
        thing = " ".join(text.with_verb_named(words, self.synonyms)[1:] if instruction else words)
        placed = text.placing(f"{verb} {thing}") if instruction else None
        if placed:  # "put the coin into the box found in the bar": the coin, where it goes, and where that is
            _, moved, _, where = placed
            moved = moved if moved not in PRONOUNS else ""
            destination, place = held_in(where)
            return [t for t in dict.fromkeys([moved, destination, place, *self.tools_needed(item)]) if t]
        if thing in PRONOUNS:  # "take it": the thing was named by the step before
            return [*self.tools_needed(item)]
        # "the recipe in the cookbook", "the coin that is located in the shower": the thing, and where it is said to be
        thing, holder = held_in(thing)
        thing, _, tool = thing.partition(" with ")  # "unlock the red locker with key 2": the locker, then the key
        return [t for t in dict.fromkeys([thing, holder, tool, *self.tools_needed(item)]) if t]

    def _acted_on(self, words: tuple[str, ...]) -> tuple[str, ...]:
        """An instruction's words from its first verb: a goal's sentence often opens with a preface ("your task is to
        search the environment and find the coin": "find coin"); words with no verb, or one first, are kept."""
        if not words or words[0] in self.verbs or text.verb_of(words, self.synonyms) in self.verbs:
            return words
        # a verb of several words counts too ("your task is to pick up objects": "pick up" is take)
        later = (i for i in range(1, len(words) - 1) if text.verb_of(words[i:], self.synonyms) in self.verbs)
        first = next(later, None)
        return words[first:] if first is not None else words

    def goal_steps(self, goal: str) -> list[str]:
        """A goal's steps in order, as the family reads it: its clauses ("Check the cookbook, then enjoy your meal"),
        without the word joining one to the one before, and a thing the step before named written out where a step
        says "it" ("take the coin ..., and put it into the box": "put the coin into the box")."""
        steps: list[str] = []
        for clause in text.steps_of(goal):
            clause = _CONNECTIVE.sub("", clause)
            if clause.lower() in _BARE_CONNECTIVES:  # "First, focus on the substance"
                continue
            instructing = [step for step in steps if self.instructs(step)]  # not a remark ("Once done")
            step = self._named_again(clause, instructing[-1]) if instructing else clause
            said = " ".join(step.lower().split())
            steps.append(next((meant for words, meant in self.meanings.items() if words in said), step))
        return steps

    def instructs(self, clause: str) -> bool:
        """Whether a clause asks for an action of the family's verbs, perhaps after a preface ("Your task is to take
        the coin"), not a remark ("A map is provided") nor a relative clause adding to the one before ("that you may
        find helpful")."""
        words = text.command_words(clause, self.ignored_words)
        if not words or words[0] in _RELATIVE:
            return False
        acted = self._acted_on(words)
        return acted[0] in self.verbs or text.verb_of(acted, self.synonyms) in self.verbs

    def _named_again(self, step: str, before: str) -> str:
        """``step`` with the thing ``before`` named written where it says "it" right after its verb."""
        words = step.split()
        verb_at = next((i for i, word in enumerate(words) if word.lower() in self.verbs), None)
        if verb_at is None or verb_at + 1 >= len(words) or words[verb_at + 1].lower() not in _NAMED_BEFORE:
            return step
        named = self.things_named(before)
        return " ".join([*words[: verb_at + 1], f"the {named[0]}", *words[verb_at + 2 :]]) if named else step

    def said_to_play(self, observation: str) -> str | None:
        """The command the game's latest text tells the player to play now, where the family's games say one (TWX's
        Simon says: "Simon says, 'touch pea'"), else None."""
        return None

    def opens_locks(self, thing: str) -> bool:
        """Whether a thing is a key of the family's locks, worth taking wherever it lies (TextWorld's keys)."""
        return False

    def tells_the_way(self, thing: str) -> bool:
        """Whether a thing is a note that says where to go next, worth reading once wherever it lies (a treasure
        hunt's notes: "The key 2 unlocks Red locker.")."""
        return False

    def is_a(self, name: str, kind: str) -> bool:
        """Whether a thing of this name is of the kind a step names where it names no thing (ScienceWorld's "living
        thing": an adult bee, a baby beaver), as the family's names tell; the default knows no kinds."""
        return False

    def carries_out(self, step: str, command: str) -> bool:
        """Whether a command that raised the score carried out ``step`` though the step lacks its words (a kind the
        step names, done to a thing of that kind); by words alone (text.goal_steps_left) by default."""
        return False

    def what_was_done(self, command: str, answer: str) -> str:
        """What a command did, in the words steps are read in: the command, unless the game's answer names what it
        was done to better (ScienceWorld: 'focus on substance in fountain' answered "You focus on the water.")."""
        return command

    def where_told(self, thing: str, goal: str) -> list[str]:
        """The rooms the task (``goal``) says ``thing`` is in, where the family's tasks say so; a thing of its name
        seen elsewhere is not the one meant while they are not searched."""
        return []

    def named_by_holder(self, thing: str, holder: str, valid: Sequence[str]) -> list[str]:
        """How the valid commands name ``thing`` lying in ``holder`` when no command names it itself (ScienceWorld:
        "substance in fountain" for the water in it); none by default."""
        return []

    def changed_nothing(self, answer: str) -> bool:
        """Whether the game's answer to a command says it did nothing (a refusal the same command gets again in the
        same situation); none known by default."""
        return False

    def reach(self, room: str, valid: Sequence[str]) -> str | None:
        """The valid command that takes the player to ``room`` in one move from wherever it is, where the family's
        games have one (ScienceWorld's 'teleport to kitchen'); None: rooms are walked to exit by exit."""
        return None

    def rooms_reached(self, valid: Sequence[str]) -> dict[str, str]:
        """Each room one move (``reach``) takes the player to from here, seen or not, with that move (one scan of
        ``valid``, about a thousand commands in ScienceWorld); none by default."""
        return {}

    def names_of_one_of_kind(self, thing: str, kind: str, holder: str | None, held: bool) -> list[str]:
        """The names the valid commands may give ``thing``, one of the ``kind`` a task names, lying in ``holder`` or
        carried (``held``): its own name by default."""
        return [thing]

    def places_named(self, item: str, goal: str) -> list[str]:
        """The room an instruction must be done in, when the family's rules or the task (``goal``) name one ("prepare
        meal": the kitchen)."""
        return []

    def _on_holder(self, item: str) -> list[str]:
        words = text.command_words(item, self.ignored_words)
        if len(words) < 2 or not (words[0] in self.verbs or text.verb_of(words, self.synonyms) in self.verbs):
            return []
        thing, holder = held_in(" ".join(words[1:]))
        return [f"{words[0]} {thing}", f"{words[0]} {holder}"] if holder else []

    def _placed(self, item: str) -> list[str]:
        """ "put the coin into the box found in the bar" as commands put it: "put coin in box", "put coin into box"."""
        words = text.command_words(item, self.ignored_words)
        placed = text.placing(" ".join(words))
        if not placed:
            return []
        verb, thing, how, where = placed
        return [f"{verb} {thing} {worded} {held_in(where)[0]}" for worded in _PLACED_AS[how]]

    @property
    def synonyms(self) -> Mapping[str, str]:
        return {**text.VERB_SYNONYMS, **self.verb_synonyms}

    def ground(self, command: str, valid: Sequence[str]) -> str | None:
        """The valid command ``command`` means (:func:`~ariadnegraph.envs.text.ground_command` with the family's
        verbs and words), or None."""
        return text.ground_command(command, valid, synonyms=self.synonyms, ignored=self.ignored_words)

    def command_for_item(self, item: str, valid: Sequence[str]) -> str | None:
        """The one valid command that does a list item, as written or as the family words it (or, for a step that
        says where its thing is, done to the thing or its holder: "take the coin that is located in the cubicle" is
        "take coin", "read the recipe in the cookbook" is "read cookbook"); None when none or several do."""
        acted = " ".join(self._acted_on(text.command_words(item, self.ignored_words)))  # "Your task is to take ..."
        # a step placing a thing is done by that placing only ("put the hat on the bed" is not "put hat on shelf")
        placed = self._placed(acted)
        for wording in dict.fromkeys((item, acted, *self.phrasings(item), *(placed or self._on_holder(acted)))):
            command = text.command_for_item(wording, valid, synonyms=self.synonyms, ignored=self.ignored_words)
            if command is not None:
                return command
        return None

    # -- perception: what an observation shows, for memory -------------------------------------------------------
    def perceive(self, seen: Observed) -> Sighting:
        """The facts one observation shows (where things are, open or closed, the exits and doors), read by the
        family's parser from the text and the valid commands, never from the game's hidden state. The default reads
        nothing: a family whose text is not regular leaves it to the model's extraction."""
        return NOTHING_SEEN

    def __repr__(self) -> str:
        return f"<game family {self.name}>"
