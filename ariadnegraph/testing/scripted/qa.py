"""The scripted world-model QA: which KG tools to call, and the ``question -> answer`` lines after.

Stateless: each turn it rereads the conversation (its own earlier tool calls and the ToolMessages
answering them) and decides the next calls or the final answer. Tool answers are read as text; a
room is recognised by name among the rooms the belief has visited or the tools reported.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ... import prompting as p
from . import extract as ex
from .reading import APPLIANCES, CUT_VERBS, MAX_SEEN, lowered
from .sections import is_empty
from .situation import Situation

MAX_WHERE = 6


@dataclass(frozen=True)
class ToolResult:
    name: str
    args: dict
    result: str


def _call(name: str, **args: object) -> tuple[str, dict]:
    return name, dict(args)


def needed_entities(s: Mapping[str, str]) -> list[str]:
    """What the planner will want located: recipe items still missing, tools, locks of carried keys."""
    sit = Situation(s)
    carried = sit.carried()
    wanted: list[str] = []
    if sit.recipe:
        pending_cook = []
        for ing in sit.recipe:
            key = lowered(ing)
            if key not in carried:
                wanted.append(ing)
                continue
            for need in sit.needs.get(key, []):
                if need in APPLIANCES and need not in carried[key]:
                    pending_cook.append(APPLIANCES[need] if APPLIANCES[need] != "bbq" else "BBQ")
        if "knife" not in carried and any(n in CUT_VERBS for ns in sit.needs.values() for n in ns):
            wanted.append("knife")
        wanted += pending_cook
    elif re.search(r"meal|recipe|cook", sit.goal, re.IGNORECASE):
        wanted += ["cookbook"]
    else:
        for key, lock in sit.key_notes.items():
            if key in carried and lock not in sit.unlocked:
                wanted.append(lock)
        for word in re.findall(r"[a-z]+", sit.goal.lower()):
            if word in ("treasure", "coin", "key"):
                wanted.append(word)
    return list(dict.fromkeys(wanted))[:MAX_WHERE]


def first_calls(s: Mapping[str, str], available: set[str]) -> list[tuple[str, dict]]:
    question = s.get(p.QUESTION)
    if question and not is_empty(question):
        return question_calls(question, s.get(p.LOCATION), available)
    # Ask only what the belief does not already answer: where needed things are that it does not
    # locate (when its list of things seen is complete, unseen things need no lookup either).
    sit = Situation(s)
    complete = "Seen" in sit.belief and len(sit.seen) < MAX_SEEN
    wanted = [e for e in needed_entities(s) if not complete and sit.locate(e) is None]
    calls = []
    if (
        not sit.recipe
        and re.search(r"meal|recipe|cook", sit.goal, re.IGNORECASE)
        and not sit.belief
        and "entity_neighbourhood" in available
    ):
        calls.append(_call("entity_neighbourhood", entity="recipe", hops=2))
    if wanted and "unexplored_exits" in available:
        calls.append(_call("unexplored_exits", location=""))
    if "where_is" in available:
        calls += [_call("where_is", entity=e) for e in wanted]
    return calls


def question_calls(question: str, location: str | None, available: set[str]) -> list[tuple[str, dict]]:
    """Tool calls for a free-text question (the ``ask`` graph)."""
    q = question.strip().rstrip("?").strip()
    low = q.lower()
    calls: list[tuple[str, dict]] = []
    m = re.search(
        r"(?:how (?:do i|to|can i) (?:get|go)|path|way)\s+(?:from\s+(?:the\s+)?(.+?)\s+)?to\s+(?:the\s+)?(.+)$", low
    )
    if m and "path_between" in available:
        start = m.group(1) or (location if location and not is_empty(location) else "")
        if start:
            calls.append(_call("path_between", start=start, goal=m.group(2)))
    m = re.search(
        r"where (?:is|are|was|were|did)\s+(?:the\s+|my\s+)?(.+?)(?:\s+(?:now|go|end up|found|seen|put))?$", low
    )
    if m and "where_is" in available:
        calls.append(_call("where_is", entity=m.group(1)))
    m = re.search(r"what(?:'s| is| was)? (?:in|on|inside)\s+(?:the\s+|my\s+)?(.+)$", low)
    if m and "what_is_in" in available:
        calls.append(_call("what_is_in", container=m.group(1)))
    if re.search(r"unexplored|explore|not (?:yet )?visited", low) and "unexplored_exits" in available:
        calls.append(_call("unexplored_exits", location=""))
    m = re.search(
        r"(?:when|history of|timeline of|what happened to)\s+(?:did\s+)?(?:the\s+)?(.+?)(?:\s+(?:happen|change))?$", low
    )
    if m and "entity_timeline" in available and not calls:
        calls.append(_call("entity_timeline", entity=m.group(1)))
    if not calls:
        if "search_facts" in available:
            calls.append(_call("search_facts", query=q))
        if "search_episodes" in available:
            calls.append(_call("search_episodes", query=q))
    return calls


_PLACED = re.compile(r"^(?P<thing>.+?) is (?P<rel>in|on|at|inside) (?P<holder>.+?)(?: \(since step \d+\))?$")


def _placement(result: str) -> tuple[str, str] | None:
    """First ``X is in Y`` line of a where_is answer -> (relation, holder)."""
    for line in result.splitlines():
        m = _PLACED.match(line.strip())
        if m:
            return m.group("rel"), m.group("holder").strip()
    return None


def known_rooms(s: Mapping[str, str], results: list[ToolResult]) -> list[str]:
    sit = Situation(s)
    rooms = list(sit.rooms)
    for r in results:
        if r.name == "unexplored_exits":
            for line in r.result.splitlines():
                if ":" in line:
                    room = line.rpartition(":")[0].strip()
                    if room and room not in rooms:
                        rooms.append(room)
    return rooms


def _is_room(name: str, rooms: list[str]) -> bool:
    return lowered(name) in {lowered(r) for r in rooms}


def follow_up_calls(s: Mapping[str, str], results: list[ToolResult], available: set[str]) -> list[tuple[str, dict]]:
    """``where_is`` of the holders that are not rooms (a knife on a counter: where is the counter?)."""
    if "where_is" not in available or (s.get(p.QUESTION) and not is_empty(s.get(p.QUESTION))):
        return []
    rooms = known_rooms(s, results)
    asked = {lowered(str(r.args.get("entity", ""))) for r in results if r.name == "where_is"}
    calls = []
    for r in results:
        if r.name != "where_is":
            continue
        placed = _placement(r.result)
        if placed and placed[1] != ex.INVENTORY and not _is_room(placed[1], rooms) and lowered(placed[1]) not in asked:
            asked.add(lowered(placed[1]))
            calls.append(_call("where_is", entity=placed[1]))
    return calls


def final_answer(s: Mapping[str, str], results: list[ToolResult]) -> str:
    """One ``question -> answer`` line per finding."""
    question = s.get(p.QUESTION)
    if question and not is_empty(question):
        found = [
            f"{r.name}({', '.join(str(v) for v in r.args.values())}): {' '.join(r.result.split())}" for r in results
        ]
        return p.finding_line(question.strip(), " | ".join(found) if found else "not known from memory")
    rooms = known_rooms(s, results)
    holder_of = {}
    for r in results:
        if r.name == "where_is":
            placed = _placement(r.result)
            if placed:
                holder_of[lowered(str(r.args.get("entity", "")))] = placed
    lines = []
    for r in results:
        if r.name == "unexplored_exits":
            entries = [line.strip() for line in r.result.splitlines() if ":" in line]
            lines.append(p.finding_line("unexplored exits", "; ".join(entries) if entries else "none known"))
    followed = {h[1].lower() for h in holder_of.values()}
    for r in results:
        if r.name != "where_is":
            continue
        entity = str(r.args.get("entity", ""))
        if lowered(entity) in followed and not any(lowered(entity) == e for e in needed_entities(s)):
            continue
        chain, where, seen = [], lowered(entity), set()
        room = None
        while where in holder_of and where not in seen:
            seen.add(where)
            rel, holder = holder_of[where]
            if lowered(holder) == ex.INVENTORY:
                room = "inventory"
                break
            if _is_room(holder, rooms):
                room = holder
                break
            chain.append(f"{rel} {holder}")
            where = lowered(holder)
        if room is None:
            answer = f"unknown ({' '.join(chain)})" if chain else "unknown"
        else:
            answer = room + (f" ({', '.join(chain)})" if chain else "")
        lines.append(p.finding_line(f"where is {entity}", answer))
    for r in results:
        if r.name == "entity_neighbourhood" and lowered(str(r.args.get("entity", ""))) == ex.RECIPE:
            from .sections import facts as parse_facts

            found = [f"{a} {rel} {o}" for a, rel, o in parse_facts(r.result) if rel in ("requires", "needs")]
            lines.append(p.finding_line("recipe", "; ".join(found) if found else "unknown"))
            continue
        if r.name not in ("where_is", "unexplored_exits"):
            lines.append(
                f"{r.name}({', '.join(str(v) for v in r.args.values())}) -> {' '.join(r.result.split())[:200]}"
            )
    return "\n".join(lines) or "nothing to look up -> nothing"


def dated_answer(s: Mapping[str, str]) -> str:
    """DAVIS's graph QA: the latest dated facts that share a word with the question, as they were written."""
    words = set(re.findall(r"[a-z]{3,}", s.get(p.QUESTION, "").lower())) - {"what", "happened", "after", "the", "where"}
    lines = [line[2:].strip() for line in s.get(p.DATED_FACTS, "").splitlines() if line.startswith("- ")]
    found = [line for line in lines if words & set(re.findall(r"[a-z]{3,}", line.lower()))] or lines
    return "; ".join(found[-2:]) if found else "not known"
