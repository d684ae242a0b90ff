"""Rule-based triplet extraction from TextWorld-style observations (the scripted relation retriever).

TextWorld describes rooms with a large template grammar; the patterns below cover the sentence
shapes that introduce objects, list the contents of containers and supporters, name doors and
exits, and report what an action did. Triplets follow the memory's conventions
(:mod:`ariadnegraph.memory.spatial`, :mod:`ariadnegraph.memory.conflicts`): ``(player, in, room)``,
``(room, has exit, dir)``, ``(new room, <dir> of, old room)`` and the way back, ``(x, in|on, holder)``,
``(x, in, inventory)``, ``(x, is, open|closed|locked|sliced|fried|...)``, recipe facts
``(recipe, requires, x)`` / ``(x, needs, sliced)``. Everything here reads text only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...envs.families import textworld_cooking as cooking
from ...envs.text import direction_of_command, parse_inventory
from ...nodes import prompts
from ...vocabulary import DIRECTIONS, OPPOSITE

Triplet = tuple[str, str, str]

PLAYER = "player"
INVENTORY = "inventory"
RECIPE = prompts.RECIPE  # the name the extraction prompt fixes
_DIR_ALT = "|".join(sorted(DIRECTIONS, key=len, reverse=True))

# Adjectives TextWorld puts in front of an ingredient's name to show its state.
CUT_STATES = {s: s for s in cooking.CUT_STATES}
COOK_STATES = {s: s for s in (*cooking.COOK_STATES, cooking.BURNED)}
STATE_WORDS = (cooking.RAW, *CUT_STATES, *COOK_STATES)
# Verbs in a recipe's directions and the state each asks for.
RECIPE_VERBS = {**cooking.CUT_VERBS, **cooking.COOK_VERBS}
# Answers to a cutting / cooking command.
_CUT_DONE = re.compile(r"^You (slice|dice|chop) the (.+?)\.", re.IGNORECASE | re.MULTILINE)
_COOK_DONE = re.compile(r"^You (fried|roasted|grilled|burned) the (.+?)\.", re.IGNORECASE | re.MULTILINE)

_HEADER = re.compile(r"^-=\s*(.+?)\s*=-\s*$", re.MULTILINE)
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.IGNORECASE)
_OPENNESS = r"(?:(?P<state>locked|closed|opened|open)\s+)?"
# Where an object's name stops in a room description.
_NAME_END = (
    r"(?=\s*(?:[.!?,;:]|$|\s(?:here|in the room|nearby|close by|in the corner|right there by you|which looks|"
    r"is (?:here|in the room|nearby|close by|in the corner|right there by you)|on the\b|in the\b|on it\b|in it\b|and "
    r"(?:an?|the|some)\s)))"
)
_NAME = r"(?P<name>[A-Za-z0-9][A-Za-z0-9'\- ]*?)"
# Phrases after which TextWorld names one object of the room (prefixes of its room grammar).
_INTRODUCERS = (
    r"you (?:can )?(?:see|make out)",
    r"you can (?:even |suddenly )?see",
    r"seeing",
    r"you notice",
    r"follow it to",
    r"it's(?: just)?",
    r"it looks like it's",
    r"fall onto",
    r"you find",
    r"other than",
    r"look over there[!,]",
    r"here's",
    r"reveal",
)
_INTRO = re.compile(
    rf"(?:^|[\s,!?.])(?:{'|'.join(_INTRODUCERS)})\s+(?:an?|the)\s+{_OPENNESS}{_NAME}{_NAME_END}",
    re.IGNORECASE,
)
_IS_HERE = re.compile(
    rf"(?:^|[.!?]\s+)(?:an?)\s+{_OPENNESS}{_NAME}\s+is\s+(?:here|in the room|nearby|close by|in the corner|right there "
    rf"by you)\b",
    re.IGNORECASE,
)
_LIST = r"(?P<list>(?:an?|the|some|\d+)\s[^.!?]*?)"
_ON_SUPPORT = [
    re.compile(rf"On the (?P<holder>[^,.!?]+?),? you (?:can )?(?:see|make out) {_LIST}(?=[.!?]|$)", re.IGNORECASE),
    re.compile(rf"You see {_LIST} on the (?P<holder>[^,.!?]+?)(?=[.!?,]|$)", re.IGNORECASE),
    re.compile(rf"On the (?P<holder>[^,.!?]+?) (?:one)?,? you see {_LIST}(?=[.!?]|$)", re.IGNORECASE),
]
_CONTAINS = "contains|has|is filled with|reveals inside it|holds|shelters|offers you|reveals to you"
_IN_CONTAINER = [
    re.compile(rf"The (?P<holder>[^,.!?]+?) (?:{_CONTAINS}) {_LIST}(?=[.!?]|$)", re.IGNORECASE),
    re.compile(rf"You can see {_LIST} in the (?P<holder>[^,.!?]+?)(?=[.!?]|$)", re.IGNORECASE),
    re.compile(rf"There (?:is|are) {_LIST} (?:found )?in the (?P<holder>[^,.!?]+?)(?=[.!?]|$)", re.IGNORECASE),
    re.compile(rf"You open the (?P<holder>[^,.!?]+?), revealing {_LIST}(?=[.!?]|$)", re.IGNORECASE),
]
# Contents of "it": the container named just before.
_IN_IT = [
    re.compile(rf"(?:It|Something about it) (?:{_CONTAINS}) {_LIST}(?=[.!?]|$)"),
    re.compile(rf"There (?:is|are) {_LIST} (?:found )?in it(?=[.!?]|$)", re.IGNORECASE),
    re.compile(rf"In it, you can see {_LIST}(?=[.!?]|$)", re.IGNORECASE),
    re.compile(
        rf"(?:Contents-|Contained within-|Inside are the following-|Inventory is as follows-|Here's what's "
        rf"inside)\s*{_LIST}(?=[.!?]|$)"
    ),
    re.compile(rf"Let's see what's inside - {_LIST}(?=[.!?]|$)"),
    re.compile(rf"Oh, how they also contained {_LIST}(?=[.!?]|$)"),
    re.compile(rf"there (?:is|are) {_LIST} in this silly \w+ thing", re.IGNORECASE),
    re.compile(rf"and (?:{_CONTAINS}) {_LIST}(?=[.!?]|$)"),
]
_ON_FLOOR = re.compile(rf"There (?:is|are) {_LIST} on the floor", re.IGNORECASE)
_DOOR = [
    re.compile(rf"There is (?:an? )?{_OPENNESS}(?P<name>[^.!?,]+?) leading (?P<dir>{_DIR_ALT})\b", re.IGNORECASE),
    re.compile(
        rf"The exit to the (?P<dir>{_DIR_ALT}) is going through (?:an? |the )?"
        rf"{_OPENNESS}(?P<name>[^.!?,]+?)(?=[.!?]|$)",
        re.IGNORECASE,
    ),
    re.compile(
        rf"The (?P<dir>{_DIR_ALT}) exit has (?:an? |the )?{_OPENNESS}(?P<name>[^.!?,]+?) blocking it", re.IGNORECASE
    ),
    re.compile(rf"(?:^|[.!?]\s+)an? {_OPENNESS}(?P<name>[^.!?,]+? door) leads (?P<dir>{_DIR_ALT})\b", re.IGNORECASE),
]
_EXIT_SENTENCE = re.compile(r"\b(?:exit|exits|going|leading|leads|leave|go|entranceway|door)\b", re.IGNORECASE)
_DIR_WORD = re.compile(rf"\b({_DIR_ALT})\b", re.IGNORECASE)
_LIST_SPLIT = re.compile(r",\s*(?:and\s+)?|\s+and\s+(?=(?:an?|the|some|\d+)\s)", re.IGNORECASE)
# The flavour clauses TextWorld's grammar (house_room.twg, suffix rules) may put after a list with a comma.
_LIST_SUFFIX = re.compile(r",\s*so (?:there's that|why not take a picture, it'll last longer)\W*$", re.IGNORECASE)
# Words that look like objects in the story's flavour text but are not.
_NOT_OBJECTS = {
    "gleam",
    "noise",
    "wall",
    "secret button",
    "shock",
    "text adventure",
    "bump",
    "price tag",
    "room",
    "place",
    "kind of place",
    "one",
    "thing",
    "sign",
    "placard",
    "notice",
    "signboard",
    "board",
    "door person",
    "doors fan",
    "exit",
    "picture",
    "mental note",
    "note of this",
    "list",
    "complete list",
    "technique",
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_NOTE_KEY = re.compile(
    r"\b(?:the\s+)?(?P<key>[A-Za-z0-9][\w\- ]*?)\s+(?:lying in [\w ]+?\s+)?(?:unlocks|opens)\s+"
    r"(?:the\s+)?(?P<lock>[A-Za-z0-9][\w\- ]*?)(?=[.!?,]|$)",
    re.IGNORECASE,
)
# A task's general statements: "Every locker is locked ...", "Get the treasure from the golden locker."
_EVERY = re.compile(r"\bEvery (?P<kind>[a-z]+) is (?P<state>locked|closed)\b", re.IGNORECASE)
_GET_FROM = re.compile(r"\bGet the (?P<thing>[\w\- ]+?) from the (?P<holder>[\w\- ]+?)[.!,]", re.IGNORECASE)
# "... the golden locker. It opens with a golden key ..."
_OPENS_WITH = re.compile(
    r"the (?P<lock>[\w\-]+(?: [\w\-]+){0,2})\.\s+It (?:opens|is opened|is unlocked) with (?:an?|the) (?P<key>[\w\- "
    r"]+?key)\b",
    re.IGNORECASE,
)


@dataclass
class Extracted:
    """Triplets an observation states and stored facts it makes outdated."""

    triplets: list[Triplet] = field(default_factory=list)
    outdated: list[Triplet] = field(default_factory=list)

    def add(self, subject: str, relation: str, obj: str) -> None:
        triplet = (subject.strip(), relation, obj.strip())
        if triplet[0] and triplet[2] and triplet not in self.triplets:
            self.triplets.append(triplet)


def clean_name(name: str) -> str:
    """An object name without article, trailing punctuation, or ``X looking`` adjective."""
    name = " ".join(name.split()).strip(" .,!?;:'\"")
    name = _ARTICLE.sub("", name)
    name = re.sub(r"^\w+ looking ", "", name)
    name = re.sub(r"^(?:opened|open|closed|locked)\s+", "", name, flags=re.IGNORECASE)
    return name.strip()


def split_state(name: str) -> tuple[str, list[str]]:
    """``"sliced fried red onion"`` -> ``("red onion", ["sliced", "fried"])``."""
    words = name.split()
    states = []
    while len(words) > 1 and words[0].lower() in STATE_WORDS:
        states.append(words.pop(0).lower())
    return " ".join(words), states


def split_list(text: str) -> list[str]:
    """Inform's list of things ("a knife, a red apple and some water") as clean names."""
    text = re.sub(r"\s*\([^()]*\)", "", text)
    text = _LIST_SUFFIX.sub("", text)
    items = [clean_name(part) for part in _LIST_SPLIT.split(text.strip().rstrip("."))]
    return [i for i in items if i and i.lower() not in _NOT_OBJECTS]


def room_header(text: str) -> str | None:
    """The last ``-= Room =-`` header of a text."""
    headers = _HEADER.findall(text or "")
    return headers[-1].strip() if headers else None


def _add_item(out: Extracted, raw: str, relation: str, holder: str) -> str:
    name, states = split_state(raw)
    out.add(name, relation, holder)
    for state in states:
        out.add(name, "is", state)
    return name


def parse_room_description(text: str, room: str, out: Extracted) -> None:
    """Objects, holders, doors and exits of one room description."""
    placed: set[str] = set()
    last_container: str | None = None
    for paragraph in [p.strip() for p in text.split("\n") if p.strip()]:
        if _HEADER.match(paragraph):
            continue
        for sentence in _SENTENCE.split(paragraph):
            _parse_sentence(sentence, room, out, placed, last_container)
            intro = _last_intro(sentence)
            if intro:
                last_container = intro
    # Room-level objects: introduced objects not placed on/in something else.
    for match in list(_INTRO.finditer(text)) + list(_IS_HERE.finditer(text)):
        name = split_state(clean_name(match.group("name")))[0]
        if (
            not name
            or name.lower() in _NOT_OBJECTS
            or name.split()[0].lower() in _NOT_OBJECTS
            or name in placed
            or "door" in name.lower()
        ):
            continue
        if any(name.lower() == d for d in DIRECTIONS):
            continue
        out.add(name, "in", room)
        state = (match.group("state") or "").lower()
        if state:
            out.add(name, "is", "open" if state == "opened" else state)


def _last_intro(sentence: str) -> str | None:
    matches = list(_INTRO.finditer(sentence)) + list(_IS_HERE.finditer(sentence))
    if not matches:
        return None
    return clean_name(max(matches, key=lambda m: m.start()).group("name")) or None


def _parse_sentence(sentence: str, room: str, out: Extracted, placed: set[str], last_container: str | None) -> None:
    for pattern in _ON_SUPPORT:
        for m in pattern.finditer(sentence):
            holder = clean_name(m.group("holder"))
            for item in split_list(m.group("list")):
                placed.add(_add_item(out, item, "on", holder))
    for pattern in _IN_CONTAINER:
        for m in pattern.finditer(sentence):
            holder = clean_name(m.group("holder"))
            if holder.lower() in ("room", "floor", "corner") or "silly" in holder:
                continue
            for item in split_list(m.group("list")):
                placed.add(_add_item(out, item, "in", holder))
    intro: str | None = _last_intro(sentence) or last_container
    if intro:
        for pattern in _IN_IT:
            for m in pattern.finditer(sentence):
                for item in split_list(m.group("list")):
                    placed.add(_add_item(out, item, "in", intro))
    for m in _ON_FLOOR.finditer(sentence):
        for item in split_list(m.group("list")):
            placed.add(_add_item(out, item, "in", room))
    door_found = False
    for pattern in _DOOR:
        for m in pattern.finditer(sentence):
            name = clean_name(m.group("name"))
            direction = m.group("dir").lower()
            if not name or name.lower() in ("exit", "door"):
                continue
            door_found = True
            placed.add(name)
            out.add(room, "has exit", direction)
            out.add(name, "leads", f"{direction} from {room}")
            state = (m.group("state") or "").lower()
            if state:
                out.add(name, "is", "open" if state == "opened" else state)
    if _EXIT_SENTENCE.search(sentence) and not door_found:
        for d in _DIR_WORD.findall(sentence):
            out.add(room, "has exit", d.lower())


def parse_recipe(text: str) -> tuple[list[str], list[str]] | None:
    """Ingredients and directions of a cookbook page, or None if the text shows none."""
    match = re.search(
        r"Ingredients:\s*\n(?P<ing>.*?)\n\s*\n?\s*Directions:\s*\n(?P<dir>.*?)(?:\n\s*\n|$)", text, re.DOTALL
    )
    if not match:
        return None
    ingredients = [clean_name(line) for line in match.group("ing").splitlines() if line.strip()]
    directions = [" ".join(line.split()) for line in match.group("dir").splitlines() if line.strip()]
    return ingredients, directions


def recipe_needs(directions: list[str]) -> dict[str, list[str]]:
    """Directions -> ingredient -> states the recipe asks for (``"fry the red onion"`` -> fried)."""
    needs: dict[str, list[str]] = {}
    for line in directions:
        words = line.lower().split()
        if not words or words[0] not in RECIPE_VERBS:
            continue
        target = clean_name(" ".join(words[1:]))
        needs.setdefault(target, []).append(RECIPE_VERBS[words[0]])
    return needs


def parse_task(text: str) -> list[Triplet]:
    """Facts a task statement gives: where the goal object is, and a state shared by a kind of thing
    (applied to the things of that kind the same text names: a later room cannot be matched)."""
    flat = " ".join(text.split())
    found = [(clean_name(m.group("thing")), "in", clean_name(m.group("holder"))) for m in _GET_FROM.finditer(flat)]
    for m in _EVERY.finditer(flat):
        kind, state = m.group("kind").lower(), m.group("state").lower()
        for name in re.findall(rf"\b(?:the|an?)\s+((?:[\w\-]+\s+)?{kind})\b", flat, re.IGNORECASE):
            if name.split()[0].lower() not in ("other", "each", "every", "its", "own"):
                found.append((clean_name(name), "is", state))
    unique: dict[tuple[str, ...], Triplet] = {}
    for triplet in found:  # "Golden locker" in the room, "golden locker" in the task: one fact
        unique.setdefault(tuple(part.lower() for part in triplet), triplet)
    return list(unique.values())


def parse_notes(text: str) -> list[Triplet]:
    """What a note or instruction states: ``(key 2, unlocks, red locker)``, ``(x, in, y)``."""
    found: list[Triplet] = []
    flat = " ".join(text.split())
    for m in _OPENS_WITH.finditer(flat):
        found.append((clean_name(m.group("key")), "unlocks", clean_name(m.group("lock"))))
    for sentence in _SENTENCE.split(flat):
        for m in _NOTE_KEY.finditer(sentence):
            key, lock = clean_name(m.group("key")), clean_name(m.group("lock"))
            if key and lock and len(key.split()) <= 4 and len(lock.split()) <= 4:
                found.append((key, "unlocks", lock))
    return found


def extract(
    observation: str,
    last_action: str | None = None,
    location: str | None = None,
    inventory: list[str] | None = None,
    recipe_ingredients: list[str] | None = None,
) -> Extracted:
    """Facts stated by one observation (the reply to ``last_action`` given in room ``location``)."""
    out = Extracted()
    text = observation or ""
    action = (last_action or "").strip()
    verb = action.split()[0].lower() if action else ""
    room = room_header(text)
    here = room or (location if location and location != "(none)" else None)
    if room:
        out.add(PLAYER, "in", room)
        direction = direction_of_command(action)
        if direction and location and location not in ("(none)", room):
            # Both ways: TextWorld's maps are symmetric, and the way back is what a return trip needs.
            out.add(room, f"{direction} of", location)
            out.add(location, f"{OPPOSITE[direction]} of", room)
        body = text[text.rfind(f"-= {room}") :] if f"-= {room}" in text else text
        parse_room_description(body, room, out)
    _action_results(text, action, verb, here, out, recipe_ingredients or [])
    for triplet in parse_task(text):
        out.add(*triplet)
    recipe = parse_recipe(text)
    if recipe:
        ingredients, directions = recipe
        for ingredient in ingredients:
            out.add(RECIPE, "requires", ingredient)
        for ingredient, states in recipe_needs(directions).items():
            for state in states:
                out.add(ingredient, "needs", state)
        if any(d.lower().startswith("prepare meal") for d in directions):
            out.add("meal", "needs", "prepare")
    elif verb in ("examine", "read", "x") or not action:
        for triplet in parse_notes(text):
            out.add(*triplet)
    carried = parse_inventory(text) if verb in ("inventory", "i") else None
    for item in list(carried or []) + list(inventory or []):
        _add_item(out, item, "in", INVENTORY)
    return out


def _action_results(text: str, action: str, verb: str, here: str | None, out: Extracted, recipe: list[str]) -> None:
    for m in re.finditer(r"You (?:take|pick up) the (.+?)(?: from the (.+?))?\.", text):
        _add_item(out, m.group(1), "in", INVENTORY)
    for m in re.finditer(r"You (?:open|close|unlock|lock) (?:the )?([^,.!?]+?)(?:, revealing (.+?))?[.!?]", text):
        name = clean_name(m.group(1))
        word = m.group(0).split()[1].lower()
        out.add(name, "is", {"open": "open", "close": "closed", "unlock": "closed", "lock": "locked"}[word])
        if m.group(2):
            for item in split_list(m.group(2)):
                _add_item(out, item, "in", name)
    if re.search(r"\bis locked\b|\bIt's locked\b", text) and verb == "open":
        out.add(clean_name(action.split(" ", 1)[1]) if " " in action else "", "is", "locked")
    dropped = re.search(r"^(?:You drop the (.+?)(?: on the (?:ground|floor))?|Dropped)\.", text, re.MULTILINE)
    if dropped and here:
        name = dropped.group(1) or (action.split(" ", 1)[1] if " " in action else "")
        if name:
            _add_item(out, name, "in", here)
    for m in re.finditer(r"You (?:put|place) the (.+?) (on|in|into) the (.+?)\.", text):
        _add_item(out, m.group(1), "on" if m.group(2) == "on" else "in", m.group(3))
    for m in _CUT_DONE.finditer(text):
        out.add(clean_name(m.group(2)), "is", _cut_state(m.group(1)))
    for m in _COOK_DONE.finditer(text):
        out.add(clean_name(m.group(2)), "is", m.group(1).lower())
    if re.search(r"Adding the meal to your inventory", text):
        out.add("meal", "in", INVENTORY)
        for ingredient in recipe:
            out.outdated.append((ingredient, "in", INVENTORY))
    eaten = re.search(r"You eat the (.+?)\.", text)
    if eaten:
        name = clean_name(eaten.group(1))
        out.add(name, "is", "consumed")
        out.outdated.append((name, "in", INVENTORY))


def _cut_state(verb: str) -> str:
    return cooking.CUT_VERBS[verb.lower()]
