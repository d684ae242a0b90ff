"""Reading the sections a node hands over: inventories, fact lines, notes, history, the belief.

The scripted model decides only from these texts, so every parser here is forgiving: bullets or
comma lists, ``(none)``/``(unknown)`` placeholders, fact lines with or without a time span.
"""

from __future__ import annotations

import re

from ...prompting import (
    START_ACTION,
    bullet_items,
    is_placeholder,
    parse_exits_line,
    parse_finding_line,
    parse_history_line,
    parse_history_transcript,
)

Triplet = tuple[str, str, str]

_EMPTY_WORDS = {"none", "unknown", "nothing"}  # what a model might write where a placeholder would stand
_SPAN = re.compile(r"\s*\[[^\]]*\]\s*$")
# Relations the memory uses; used to split fact lines whose names contain commas.
_RELATIONS = ("has exit", "requires", "needs", "unlocks", "leads", "in", "on", "at", "is", "inside")


def is_empty(body: str | None) -> bool:
    return is_placeholder(body) or (body or "").strip().lower() in _EMPTY_WORDS


def items(body: str | None) -> list[str]:
    """A list section: bullet lines, else a comma separated line."""
    if is_empty(body):
        return []
    bullets = bullet_items(body)
    if bullets:
        return bullets
    return [part.strip() for part in re.split(r",|\n", body or "") if part.strip() and not is_empty(part)]


def parse_fact(line: str) -> Triplet | None:
    """``"red apple, in, fridge [from step 3 until now]"`` -> ``("red apple", "in", "fridge")``."""
    line = _SPAN.sub("", line.strip().lstrip("- ").strip())
    parts = [p.strip() for p in line.split(", ")]
    if len(parts) < 3:
        return None
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    for i in range(1, len(parts) - 1):
        rel = parts[i].lower()
        if rel in _RELATIONS or rel.endswith(" of"):
            return ", ".join(parts[:i]), parts[i], ", ".join(parts[i + 1 :])
    return None


def facts(body: str | None) -> list[Triplet]:
    lines = bullet_items(body) or [l for l in (body or "").splitlines() if l.strip()]
    return [t for t in (parse_fact(l) for l in lines if not is_empty(l)) if t]


def exits_table(body: str | None) -> dict[str, list[str]]:
    """UNEXPLORED EXITS lines ``Room: north, east`` -> room -> directions."""
    table: dict[str, list[str]] = {}
    for line in bullet_items(body) or (body or "").splitlines():
        entry = None if is_empty(line) else parse_exits_line(line)
        if entry and entry[0] and entry[1]:
            table[entry[0]] = [d.lower() for d in entry[1]]
    return table


def notes(body: str | None) -> list[tuple[str, str]]:
    """WORLD MODEL NOTES ``question -> answer`` pairs."""
    pairs = []
    for line in bullet_items(body) or (body or "").splitlines():
        finding = parse_finding_line(line)
        if finding:
            pairs.append(finding)
    return pairs


def history_records(body: str | None) -> list[tuple[str, str]]:
    """Whole-text RECENT HISTORY records -> (action, observation); the episode's start has the action ``""``."""
    return [(action, observation) for _, action, observation in parse_history_transcript(body)]


def history(body: str | None) -> list[tuple[str, str]]:
    """RECENT HISTORY ``action -> first line`` pairs, oldest first (either format)."""
    records = history_records(body)
    if records:
        return [(a, next((l.strip() for l in o.splitlines() if l.strip()), "")) for a, o in records if a]
    pairs = [parse_history_line(line) for line in bullet_items(body)]
    return [pair for pair in pairs if pair and pair[0] != START_ACTION]


# -- the belief -------------------------------------------------------------------------------------
BELIEF_KEYS = (
    "Task",
    "Recipe",
    "Directions",
    "Notes",
    "Notes read",
    "Unlocked",
    "Location",
    "Visited",
    "Moves",
    "Exits",
    "Seen",
    "Done",
    "Last failure",
)


def parse_belief(text: str | None) -> dict[str, str]:
    """``Key: value`` lines of a belief written by :func:`render_belief` (other lines are ignored)."""
    found: dict[str, str] = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in BELIEF_KEYS:
            found[key.strip()] = value.strip()
    return found


def render_belief(fields: dict[str, str]) -> str:
    return "\n".join(f"{k}: {fields[k]}" for k in BELIEF_KEYS if fields.get(k))


def split_semicolons(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(";") if v.strip()]


def seen_map(belief: dict[str, str]) -> dict[str, str]:
    """``Seen: knife @ Kitchen; ...`` -> thing (lower case) -> room."""
    seen = {}
    for entry in split_semicolons(belief.get("Seen")):
        thing, sep, room = entry.partition(" @ ")
        if sep:
            seen[thing.strip().lower()] = re.sub(r"\s*\(.*\)$", "", room).strip()
    return seen
