"""How an AgentKit database entry keeps what nodes write to it, as a thought graph declares (``keep:``).

An entry with no declaration holds the last value written. A declared one accumulates:

- ``{last: N}``: a list, one item per write, the last N kept (the step history reflection reads).
- ``{collect: N}``: a list of items, each a line ``name: text`` (or just a text). A write's lines are
  merged in: an item whose name is already there replaces it (what was learned later wins), "nothing"
  or "NA" lines are dropped, and the N most recent items are kept. ``answers: KEY`` (another collected
  entry): an item stored here removes the item of the same name from KEY, as a knowledge base answers
  its list of unknowns (AgentKit section 3.3).
- ``{per: KEY, last: N}``: one list per value of the entry KEY (e.g. per skill), each keeping its last
  N writes and counting every write (``steps``), so "every 3 steps under a skill" can be asked of it.
  While KEY is empty (no skill chosen yet) a write is not kept.

Values stay plain data (lists, dicts of lists): the database lives in checkpoints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

NAME_CHARS = 60  # a longer text before ':' is not an item's name, just its text
GROUPS_KEPT = 30  # most groups a per-entry holds (the oldest goes first)
_NOTHING = {"", "na", "n a", "none", "nothing", "nothing new", "nothing learned", "no", "unknown", "not applicable"}
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


@dataclass(frozen=True)
class Keep:
    kind: str  # "last", "collect" or "per"
    size: int
    answers: str | None = None  # collect: the collected entry whose same-named items this one removes
    per: str | None = None  # per: the entry whose value names the group

    def start(self) -> Any:
        return {} if self.kind == "per" else []


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def item_name(item: str) -> str:
    """The name an item is merged by: its text before ':' when that is short, else its whole text."""
    head, colon, _ = item.partition(":")
    return _normal(head) if colon and 0 < len(head.strip()) <= NAME_CHARS else _normal(item)


def items_of(text: str) -> list[str]:
    """The items of one written value: its lines, bullets stripped, placeholders ("nothing", "NA") dropped."""
    found = []
    for line in str(text).splitlines():
        item = " ".join(_BULLET.sub("", line).split())
        _, colon, rest = item.partition(":")
        if _normal(item) in _NOTHING or (colon and _normal(rest) in _NOTHING):
            continue  # "nothing", or "name: NA"
        found.append(item)
    return found


def collect(existing: list[str], text: str, size: int) -> list[str]:
    """``existing`` with the items of ``text`` merged in by name, the ``size`` most recent kept."""
    kept = list(existing)
    for item in items_of(text):
        name = item_name(item)
        kept = [old for old in kept if item_name(old) != name] + [item]
    return kept[-size:]


def write(db: dict[str, Any], keep: dict[str, Keep], key: str, value: str) -> dict[str, Any]:
    """The entries that change when ``value`` is written to ``key``, as their new values."""
    rule = keep.get(key)
    if rule is None:
        return {key: value}
    current = db.get(key)
    if rule.kind == "last":
        return {key: [*(current if isinstance(current, list) else []), value][-rule.size :]}
    if rule.kind == "collect":
        merged = collect(current if isinstance(current, list) else [], value, rule.size)
        changes: dict[str, Any] = {key: merged}
        answered = rule.answers
        if answered and isinstance(db.get(answered), list):
            names = {item_name(item) for item in items_of(value)}
            changes[answered] = [item for item in db[answered] if item_name(item) not in names]
        return changes
    groups = dict(current) if isinstance(current, dict) else {}
    group = str(db.get(rule.per or "") or "")
    if not group:
        return {}  # no group yet (no skill chosen): nothing is under one
    entry = groups.pop(group, None) or {"steps": 0, "items": []}
    groups[group] = {"steps": int(entry["steps"]) + 1, "items": [*entry["items"], value][-rule.size :]}
    return {key: dict(list(groups.items())[-GROUPS_KEPT:])}


def shown(db: dict[str, Any], keep: dict[str, Keep], key: str) -> Any:
    """What a node reading ``key`` is shown: a per-entry shows the current group's items only."""
    value = db.get(key)
    rule = keep.get(key)
    if rule is not None and rule.kind == "per":
        entry = (value or {}).get(str(db.get(rule.per or "") or "")) if isinstance(value, dict) else None
        return list(entry["items"]) if entry else []
    if isinstance(value, dict):
        return [f"{k}: {v}" for k, v in value.items()]
    return value


def steps_under(db: dict[str, Any], keep: dict[str, Keep], key: str) -> int:
    """How many writes a per-entry has had under the current group."""
    rule = keep.get(key)
    value = db.get(key)
    if rule is None or rule.kind != "per" or not isinstance(value, dict):
        return 0
    entry = value.get(str(db.get(rule.per or "") or ""))
    return int(entry["steps"]) if entry else 0
