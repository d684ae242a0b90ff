"""Text helpers every family shares: what the agent should read of a game's answer, and the commands it takes.

TextWorld games (played through Jericho's dumb-frotz) print an ASCII-art banner before the first
room, end every reply with the prompt line (``>`` plus the status bar ``-= Kitchen =-3/7``) and, once
the game is over, an interpreter question (``Would you like to RESTART, ...``). None of that is part
of the story, and the status bar would leak the room on every step, so it is removed here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence

from ..vocabulary import ABBREVIATIONS, DIRECTIONS, LOOK, SAFE_COMMANDS

_ALNUM = re.compile(r"[A-Za-z0-9]")
# Last line that starts with the prompt: ">" plus the status bar, e.g. ">      -= Kitchen =-3/7".
_PROMPT_LINE = re.compile(r"(?:^|\n)>[^\n]*\Z")
_GAME_OVER_QUESTION = re.compile(r"Would you like to RESTART, RESTORE a saved game,[^\n]*", re.IGNORECASE)
_BLANK_RUNS = re.compile(r"\n{3,}")

# TextWorld prints each room as "-= Kitchen =-"; ScienceWorld says "This room is called the kitchen."
_TW_HEADER = re.compile(r"^-=\s*(.+?)\s*=-\s*$", re.MULTILINE)
_SW_ROOM = re.compile(r"\b(?:This room is called|You move to) the ([^.\n]+?)\s*\.", re.IGNORECASE)

_DIRECTIONS = "north|south|east|west|northeast|northwest|southeast|southwest|up|down|n|s|e|w|ne|nw|se|sw|u|d"
_MOVEMENT = re.compile(rf"^(?:(?:go|walk|run|move|head)\s+(?:to\s+(?:the\s+)?)?)?(?:{_DIRECTIONS})$", re.IGNORECASE)
_GO_TO = re.compile(r"^(?:go|walk|run|move|head|teleport)\s+(?:to|into)\s+\S", re.IGNORECASE)
_MOVE_FAILED = re.compile(
    r"can't go|cannot go|can not go|no exit|not a verb|can't see|you need to|is closed|is locked|"
    r"blocked|have to|isn't (?:a|an) |only understood|not possible|no way|what do you want",
    re.IGNORECASE,
)

_CARRYING = re.compile(r"You are carrying\s*:?\s*(.*)", re.IGNORECASE | re.DOTALL)
_EMPTY_HANDED = re.compile(r"You are (?:carrying nothing|empty[- ]handed|not carrying anything)", re.IGNORECASE)
_PARENTHESES = re.compile(r"\s*\([^()]*\)")
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.IGNORECASE)
# Inform lists every item with its article: "a knife, a candles and a salt and papper shakers".
_LIST_SPLIT = re.compile(r",\s*(?:and\s+)?|\s+and\s+(?=(?:a|an|the|some|\d+)\s)", re.IGNORECASE)


def strip_banner(text: str) -> str:
    """Drop the leading lines that carry no letter or digit (TextWorld's ASCII-art title).

    The banner is made only of ``_ | $ \\ / < >`` and spaces, so this keeps every line of story,
    including the objective that follows it. Text without a banner comes back unchanged.
    """
    lines = text.split("\n")
    start = 0
    while start < len(lines) and not _ALNUM.search(lines[start]):
        start += 1
    return "\n".join(lines[start:])


def clean_feedback(text: str, *, banner: bool = False) -> str:
    """The part of a raw TextWorld reply the agent should read.

    Removes the trailing prompt/status line, the game-over interpreter question, trailing and
    leading spaces of lines, runs of blank lines and, when ``banner`` is true, the title art.
    """
    text = (text or "").replace("\r\n", "\n").rstrip()
    text = _PROMPT_LINE.sub("", text)
    text = _GAME_OVER_QUESTION.sub("", text)
    if banner:
        text = strip_banner(text)
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip()


def parse_location(text: str) -> str | None:
    """The room the text puts the player in (its last room header), or None if it names none."""
    if not text:
        return None
    headers = _TW_HEADER.findall(text)
    if headers:
        return headers[-1]
    rooms = _SW_ROOM.findall(text)
    return rooms[-1].strip() if rooms else None


def is_movement(command: str | None) -> bool:
    """Whether a command tries to move the player (``go north``, ``n``, ``go to kitchen``, ``teleport to kitchen``)."""
    if not command:
        return False
    command = " ".join(command.split())
    return bool(_MOVEMENT.match(command) or _GO_TO.match(command))


def movement_failed(text: str) -> bool:
    """Whether the reply to a movement command says the player stayed where they were."""
    return bool(_MOVE_FAILED.search(text or ""))


# Crafter's moves name the screen's sides: up is north on its map.
_SCREEN_SIDES = {"left": "west", "right": "east", "up": "north", "down": "south"}


def direction_of_command(command: str | None) -> str | None:
    """The direction a movement command goes (``go east`` / ``east`` / ``e``, NetHack's ``far east``,
    Crafter's ``move left``), else None."""
    words = (command or "").lower().split()
    if len(words) == 2 and words[0] == "move" and words[1] in _SCREEN_SIDES:
        return _SCREEN_SIDES[words[1]]
    if words and words[0] in ("go", "walk", "run", "move", "head", "far"):
        words = words[1:]
    if len(words) != 1:
        return None
    word = ABBREVIATIONS.get(words[0], words[0])
    return word if word in DIRECTIONS else None


# "go to the kitchen", "walk back to Kitchen": the agent's own command (expanded on its map), not the game's
_GO_TO_PLACE = re.compile(r"^\s*(?:go|walk|head|return)\s+(?:to|back to)\s+(?:the\s+)?(.+?)\s*$", re.IGNORECASE)


EXPLORE = "explore"  # the agent's own command: walk to the nearest exit not yet taken, and through it


def is_explore(command: str | None) -> bool:
    return " ".join((command or "").lower().split()) == EXPLORE


_NAMED_MOVE = re.compile(r"^(?:go|teleport) to (?:the )?(?P<room>.+)$", re.IGNORECASE)  # ScienceWorld's moves


def room_moved_to(command: str) -> str | None:
    """The room a game's move names ('go to kitchen', 'teleport to the kitchen': ScienceWorld's), in lower case with
    single spaces; None for a move by direction or anything else."""
    named = _NAMED_MOVE.match(" ".join(command.lower().split()))
    return named["room"] if named else None


def go_to_target(command: str) -> str | None:
    """The place a 'go to <place>' command names, else None."""
    found = _GO_TO_PLACE.match(command or "")
    return found.group(1) if found else None


ARTICLES = frozenset({"a", "an", "the", "some"})  # the words before a name that are not part of it


# Verbs text games take for the same action: a command written with one matches a valid one written with
# another ("read cookbook" is "examine cookbook" where only that is listed; "pick up" is "take").
VERB_SYNONYMS = {
    "read": "examine",
    "x": "examine",
    "inspect": "examine",
    "check": "examine",
    "look at": "examine",
    "pick up": "take",
    "get": "take",
    "grab": "take",
    "place": "put",
    "walk": "go",
    "move": "go",
    "head": "go",
}
Synonyms = Mapping[str, str]


def command_words(command: str, ignored: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """A command's words, lower case, without articles (and a family's ``ignored`` words)."""
    return tuple(w for w in (command or "").lower().split() if w not in ARTICLES and w not in ignored)


_command_words = command_words


def is_listed(command: str, valid: Sequence[str]) -> bool:
    """Whether ``command`` is one of ``valid`` as written, up to case, spacing and articles (what a game takes as
    it is, with no grounding to map a short form or a close spelling)."""
    wanted = _command_words(command)
    return bool(wanted) and any(_command_words(v) == wanted for v in valid)


def _verb_normalised(words: tuple[str, ...], synonyms: Synonyms = VERB_SYNONYMS) -> tuple[str, ...]:
    for phrase, verb in synonyms.items():
        phrase_words = tuple(phrase.split())
        if words[: len(phrase_words)] == phrase_words:
            return (verb, *words[len(phrase_words) :])
    return words


def with_verb_named(words: tuple[str, ...], synonyms: Synonyms = VERB_SYNONYMS) -> tuple[str, ...]:
    """A command's words with its verb, of one word or several, under the one name text games take it by ("pick up
    the objects": take, the, objects)."""
    return _verb_normalised(words, synonyms)


def verb_of(words: tuple[str, ...], synonyms: Synonyms = VERB_SYNONYMS) -> str | None:
    """The verb a command's words start with, under the one name text games take it by; None for no words."""
    return _verb_normalised(words, synonyms)[0] if words else None


def ground_command(
    command: str, valid: Sequence[str], *, synonyms: Synonyms = VERB_SYNONYMS, ignored: frozenset[str] = frozenset()
) -> str | None:
    """The valid command ``command`` means, or None. The same words up to case, spacing and articles (and
    verbs the game takes for the same action, :data:`VERB_SYNONYMS` or a game family's ``synonyms``); else a close
    spelling (difflib ratio >= 0.9) with the same verb and the same direction, or the one valid command with the same
    verb that holds every word written ("take knife" is "take knife from table"), so that a
    near miss never turns into another action ("go west" is not "go east", "open" is not "close")."""
    wanted = command_words(command, ignored)
    if not wanted:
        return None
    by_words = {command_words(v, ignored): v for v in valid}
    if wanted in by_words:
        return by_words[wanted]
    by_verb = {_verb_normalised(words, synonyms): v for words, v in by_words.items()}
    if _verb_normalised(wanted, synonyms) in by_verb:  # the same command under another verb for it
        return by_verb[_verb_normalised(wanted, synonyms)]
    if len(wanted) >= 2 and direction_of_command(" ".join(wanted)) is None:
        # a command written short ("take knife"): the one valid command with the same verb that holds every word of it
        verb = _verb_normalised(wanted, synonyms)
        holding = [v for words, v in by_verb.items() if words and words[0] == verb[0] and set(verb) <= set(words)]
        if len(holding) == 1:
            return holding[0]
    # a close spelling: the same verb and number of words, each word a near miss of its own ("potatoe"), never
    # another word ("green" for "red" is another thing, though the whole command reads 90% alike)
    same_verb = {
        " ".join(words): v
        for words, v in by_words.items()
        if words
        and words[0] == wanted[0]
        and len(words) == len(wanted)
        and all(_close_word(a, b) for a, b in zip(words, wanted))
        and direction_of_command(" ".join(words)) == direction_of_command(" ".join(wanted))
    }
    close = difflib.get_close_matches(" ".join(wanted), list(same_verb), n=1, cutoff=0.9)
    return same_verb[close[0]] if close else None


def _close_word(a: str, b: str) -> bool:
    """A word misspelt, not another word: equal, or one edit apart in a word of five letters or more."""
    return a == b or (min(len(a), len(b)) >= 5 and difflib.SequenceMatcher(None, a, b).ratio() >= 0.8)


def safe_command(valid: Sequence[str]) -> str:
    """A valid command that changes nothing, for when no command the model wrote can be used."""
    lowered = {v.lower(): v for v in valid}
    return next((lowered[c] for c in SAFE_COMMANDS if c in lowered), valid[0] if valid else LOOK)


def next_location(previous: str | None, command: str | None, text: str) -> str | None:
    """Track the player's room from text alone.

    A room header wins; otherwise the last known room is kept, unless the command was a movement
    that did not visibly fail (then the player is somewhere we cannot name yet: None).
    """
    named = parse_location(text)
    if named:
        return named
    if is_movement(command) and not movement_failed(text):
        return None
    return previous


def parse_inventory(text: str | None) -> tuple[str, ...] | None:
    """Item names from an inventory reply, ``()`` when empty, None when the text is not one.

    Handles TextWorld's one-line form ("You are carrying: a knife and a red apple.") and Inform's
    indented list form; articles and parenthesised states like "(open)" are dropped, names that
    contain "and" ("a salt and papper shakers") survive because Inform gives every item an article.
    """
    if not text:
        return None
    if _EMPTY_HANDED.search(text):
        return ()
    match = _CARRYING.search(text)
    if not match:
        return None
    chunk = match.group(1).strip().split("\n\n")[0]  # the list ends at the first blank line
    lines = [line.strip() for line in chunk.split("\n") if line.strip()]
    if len(lines) > 1 and not lines[0].endswith((",", " and")):
        parts = lines  # Inform's indented form: one item per line
    else:
        parts = _LIST_SPLIT.split(" ".join(lines).rstrip("."))
    items = []
    for part in parts:
        name = _PARENTHESES.sub("", part).strip().rstrip(".,;:").strip()
        name = _ARTICLE.sub("", name).strip()
        if name:
            items.append(name)
    return tuple(items)


def offset_text(dx: int, dy: int) -> str:
    """Where something is from the player on a grid, in steps: ``"2 east and 1 north"`` (y grows south)."""
    parts = []
    if dx:
        parts.append(f"{abs(dx)} {'east' if dx > 0 else 'west'}")
    if dy:
        parts.append(f"{abs(dy)} {'south' if dy > 0 else 'north'}")
    return " and ".join(parts) or "here"


# -- lists in a text the agent read (a recipe's ingredients and directions, a note's steps) -----------------
LIST_ITEM_WORDS = 6  # a line of a list under a "Heading:" line is short; longer lines are prose
_STOPWORDS = frozenset({"a", "an", "the", "some", "to", "of", "and", "with", "in", "on", "into", "from", "your", "it"})
HAVE, DONE, TO_DO = "in inventory", "done", "to do"


def _stem(word: str) -> str:
    """A word's stem for matching a direction with the game's report of it (roast/roasted, fry/fried, dice/diced)."""
    word = word.lower().strip(".,!?;:'\"")
    if len(word) >= 3 and word.endswith("y"):
        return word[:-1] + "i"
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in text.split() if w.lower() not in _STOPWORDS} - {""}


def _said(word: str, said: str) -> bool:
    """Whether a report's word ``said`` says a line's ``word`` (both stems): the same word, one that starts with its
    first four letters ("roast": "roasted"), or a short word's own forms ("fry": "fried", never "fridge")."""
    return (
        said == word or (len(word) >= 4 and said.startswith(word[:4])) or said in (word + "ed", word + "d", word + "s")
    )


def _reported(words: set[str], report: set[str]) -> bool:
    """Every word of a line is in the report (:func:`_said`)."""
    return bool(words) and all(any(_said(w, r) for r in report) for w in words)


def relevant_commands(valid: Sequence[str], focus: str, limit: int, keep: Sequence[str] = ()) -> list[str]:
    """At most ``limit`` of ``valid`` (more only for ``keep``), in their order: ``keep`` (the plan's step), the moves
    and the commands of one word ("go to kitchen", "inventory"), then each verb's commands in turns (every verb's
    first, then every verb's second, ...), a verb's commands on the things the focus names first. For a game whose
    valid commands are every verb on every thing and pair of things (ScienceWorld lists about a thousand): every verb
    shown at work, on what the goal is about."""
    valid = [command for command in dict.fromkeys(valid) if command.split()]
    kept = {" ".join(c.lower().split()) for c in keep}
    wanted = _stems(focus)
    first = [i for i, c in enumerate(valid) if " ".join(c.lower().split()) in kept]
    always = first + [
        i
        for i, c in enumerate(valid)
        if i not in first and (len(c.split()) == 1 or c.lower().startswith(("go ", "look around")))
    ]
    by_verb: dict[str, list[int]] = {}
    for i, command in enumerate(valid):
        if i not in always:
            by_verb.setdefault(command.lower().split()[0], []).append(i)
    rank: dict[int, tuple[int, int]] = {}
    for commands in by_verb.values():
        named = sorted(commands, key=lambda i: -len(_stems(" ".join(valid[i].split()[1:])) & wanted))
        rank |= {i: (turn, -len(_stems(valid[i]) & wanted)) for turn, i in enumerate(named)}
    shown = set(first) | set((always + sorted(rank, key=lambda i: rank[i]))[:limit])
    return [command for i, command in enumerate(valid) if i in shown]


def _stem_list(text: str) -> list[str]:
    return [stem for word in text.split() if word.lower() not in _STOPWORDS and (stem := _stem(word))]


def _item_reported(item: str, report: str) -> bool:
    """A list's item is reported when every word of it is, and its first word (an instruction's verb) also apart
    from the thing it names: "You take the pork chop." holds every word of "chop the pork chop" but reports no
    chopping; "You roasted the block of cheese." reports "roast the block of cheese"."""
    words, said = _stem_list(item), _stem_list(report)
    if not _reported(set(words), set(said)):
        return False
    verb, thing = words[0], words[1:]
    if not thing:
        return True
    rest, i = [], 0
    while i < len(said):  # the report without each mention of the thing
        if said[i : i + len(thing)] == thing:
            i += len(thing)
        else:
            rest.append(said[i])
            i += 1
    return any(_said(verb, word) for word in rest)


LIST_HEADING_WORDS = 3  # "Directions:"; "You open the cookbook and start reading:" is prose
LIST_LEAD_WORDS = 8  # what a list stated on one line starts with: "Simon says, take these actions in order:"
BULLET = "- "  # an item of a list whatever comes before it
_INLINE_LIST = re.compile(r"^(?P<heading>[^:]{1,80}):\s*(?P<items>[^:]+?)[.!]?$")
INLINE_LIST_MIN_ITEMS = 3


def inline_lists(text: str) -> list[str]:
    """The lists a text states on one line ("Simon says, take these actions in order: touch cucumber, slice olive,
    eat coconut."), each as its lead line and one bulleted line per item, in order; [] when it states none (a room's
    description lists what it holds without a colon, "a counter that has a knife, a green apple, and a cookbook")."""
    lines: list[str] = []
    for sentence in text.splitlines():
        match = _INLINE_LIST.match(" ".join(sentence.split()))
        if not match or len(match["heading"].split()) > LIST_LEAD_WORDS:
            continue
        items = [item.strip() for item in re.split(r",\s*(?:and\s+)?|\s+and\s+", match["items"]) if item.strip()]
        if len(items) >= INLINE_LIST_MIN_ITEMS and all(len(item.split()) <= LIST_ITEM_WORDS for item in items):
            lines += [f"{match['heading']}:", *(BULLET + item for item in items)]
    return lines


def list_item(line: str) -> str:
    """A list's line as the item it names (its bullet dropped)."""
    text = line.strip()
    return text[len(BULLET) :].strip() if text.startswith(BULLET) else text


def checklist(
    lines: Sequence[str], confirmations: Sequence[str], inventory: Sequence[str] | None
) -> list[tuple[str, str | None]]:
    """Each line with its mark, for the lines of a list (short lines under a short heading ending in ':', such as
    "Directions:", or bulleted): ``in inventory`` when an item held holds its words, ``done`` when a confirmation (a
    command that raised the score, with the game's answer) holds every word of the line, by stem ("roast the red bell
    pepper" is reported by "You roasted the red bell pepper."), an instruction's verb apart from the thing it names
    (``_item_reported``), else ``to do``. An item a list repeats ("touch pea" second and fifth) is done a second time
    only when a second confirmation reports it. Other lines (prose, headings) have no mark."""
    marked: list[tuple[str, str | None]] = []
    seen: dict[tuple[str, ...], int] = {}  # how often each item came up so far in the list
    in_list = False
    for line in lines:
        text, bulleted = list_item(line), line.strip().startswith(BULLET)
        if text.endswith(":") and len(text.split()) <= LIST_HEADING_WORDS:
            in_list = True
            marked.append((line, None))
        elif not (in_list or bulleted) or not text or len(text.split()) > LIST_ITEM_WORDS:
            in_list = False
            marked.append((line, None))
        elif any(_stems(text) <= _stems(item) and _item_reported(text, item) for item in inventory or []):
            # (the thing's words, not a verb that is also one of them: "chop the pork chop" is not held as "pork chop")
            marked.append((line, HAVE))
        else:
            key = tuple(_stem_list(text))
            seen[key] = occurrence = seen.get(key, 0) + 1
            reported = sum(1 for report in confirmations if _item_reported(text, report))
            marked.append((line, DONE if reported >= occurrence else TO_DO))
    return marked


TAKING_VERBS = ("take", "pick up", "get")


def command_for_item(
    item: str, valid: Sequence[str], *, synonyms: Synonyms = VERB_SYNONYMS, ignored: frozenset[str] = frozenset()
) -> str | None:
    """The one valid command that carries out a list item word for word, or None: an instruction ("chop the red
    bell pepper") by a command with its verb (or another verb for it) holding its other words ("chop red bell pepper
    with knife"); a thing to have ("red bell pepper") by the one command that takes it. Of several, the one naming
    the thing alone: 'pick up caesium', not 'pick up cup containing caesium' (a game may name a holder by what it
    holds, and the item means the thing)."""
    words = command_words(item, ignored)
    if not words:
        return None
    listed = [(v, command_words(v, ignored)) for v in valid]
    verbs = {_verb_normalised(w, synonyms)[0] for _, w in listed if w}
    verb = _verb_normalised(words, synonyms)[0]
    if verb in verbs:  # an instruction
        wanted = _verb_normalised(words, synonyms)
        rest = set(wanted[1:])
        found = [(v, w) for v, w in listed if w and _verb_normalised(w, synonyms)[0] == verb and rest <= set(w)]
        alone = [v for v, w in found if _verb_normalised(w, synonyms) == wanted]
    else:  # a thing to have
        found = [(v, w) for v, w in listed if " ".join(w).startswith(TAKING_VERBS) and set(words) <= set(w)]
        taken = " ".join(words)
        alone = [v for v, w in found if any(" ".join(w) == f"{taking} {taken}" for taking in TAKING_VERBS)]
    if len(found) == 1:
        return found[0][0]
    return alone[0] if len(alone) == 1 else None


_PLACING = re.compile(
    r"^(?P<verb>put|place|insert|drop)\s+(?P<thing>.+?)\s+(?P<how>into|inside|in|onto|on)\s+(?P<destination>.+)$",
    re.IGNORECASE,
)


def placing(command: str) -> tuple[str, str, str, str] | None:
    """A command or instruction placing a thing, as (verb, thing, how, destination): "put the coin into the box found
    in the bar" is (put, the coin, into, the box found in the bar); None for any other."""
    found = _PLACING.match(" ".join((command or "").split()))
    return (found["verb"].lower(), found["thing"], found["how"].lower(), found["destination"]) if found else None


def taking(command: str) -> str | None:
    """The thing a take command names, as written after its verb ('pick up egg' -> "egg", 'take coin from box' ->
    "coin from box"); None for any other command."""
    words = " ".join((command or "").split())
    verb = next((v for v in TAKING_VERBS if words.lower().startswith(f"{v} ")), None)
    return words[len(verb) + 1 :] if verb else None


_TAKEN_THING = re.compile(r"^(?:take|pick up|get)\s+(.+?)(?:\s+(?:from|off|out of|in|on)\s+.+)?$")


def take_first(written: str, valid: Sequence[str]) -> str | None:
    """For a command that is not valid now, the one valid command taking a thing it names ("chop tuna with knife",
    the knife on the table: "take knife from table"): what it needs may be that thing in hand. None otherwise."""
    named = " " + " ".join(_command_words(written)) + " "
    found = []
    for command in valid:
        taken = _TAKEN_THING.match(" ".join(_command_words(command)))
        if taken and f" {taken.group(1)} " in named:
            found.append(command)
    return found[0] if len(found) == 1 else None


_CLAUSES = re.compile(r"[.!?;]\s+|,\s*(?:then\s+)?|\s+then\s+|\s+and then\s+")


def steps_of(goal: str) -> list[str]:
    """A goal's clauses in order ("Read the recipe, cook the meal, then eat the meal": three steps)."""
    return [part.strip(" .!?") for part in _CLAUSES.split(goal or "") if part.strip(" .!?")]


def goal_steps_left(
    goal: str,
    done_commands: Sequence[str],
    steps: Sequence[str] | None = None,
    carries_out: Callable[[str, str], bool] | None = None,
    instructs: Callable[[str], bool] | None = None,
) -> list[str]:
    """The steps of ``goal`` (its clauses, or ``steps``: as a game family reads them) that no command that raised the
    score carried out: a step is carried out by a command whose every word (by stem) the step holds ("take the coin
    that is located in the shower" by "take coin"), or as ``carries_out`` (step, command) says (the game family's
    reading: "focus on the living thing" by 'focus on adult bee'). [] for a goal of one clause, and for a lone step
    that is the goal's own opening or, by ``instructs``, no instruction ("starting from earliest to latest"): it says
    itself. A family's one step read from a goal of several ("First, focus on the sodium chloride", the rest remarks
    and conditions) is a step all the same; with ``instructs``, a remark between steps is none."""
    parts = steps_of(goal) if steps is None else list(steps)
    clauses = steps_of(goal)
    if not parts:
        return []
    if len(parts) == 1 and (
        len(clauses) < 2 or parts[0] == clauses[0] or (instructs is not None and not instructs(parts[0]))
    ):
        return []
    done = [command for command in done_commands if command]

    def carried(part: str, command: str) -> bool:
        return _reported(_stems(command), _stems(part)) or (carries_out is not None and carries_out(part, command))

    # a remark (by ``instructs``: "This will require growing several plants") is no step: no command carries it out
    left = [part for part in parts if not any(carried(part, command) for command in done)]
    return [part for part in left if instructs is None or instructs(part)]
