"""The scripted double's planner and chooser: cooking games follow the recipe read, others hunt keys, lockers and
the goal object, exploring when nothing better is known; the ReAct choice picks from the valid commands."""

from __future__ import annotations

import re
from typing import cast

from ... import prompting as p
from ... import vocabulary
from ...envs.text import go_to_target
from ...nodes.schemas import (
    ActionChoice,
    Decision,
    Plan,
    StepReply,
)
from .reading import APPLIANCES, CUT_VERBS, DIR_ORDER, LOCKABLE, NO_EXITS, NOTHING_BETTER, Sections, lowered
from .sections import (
    is_empty,
    items,
    split_semicolons,
)
from .situation import Situation, step_reply


def plan(s: Sections) -> Plan:
    """The next actions: cooking games follow the recipe, others hunt keys, lockers and the goal object.
    Every step already known goes in (a take/cut/cook sequence, a route and the exit to explore)."""
    sit = Situation(s)
    if _is_cooking(sit):
        subgoal, reasoning, steps = _cooking(sit)
    else:
        subgoal, reasoning, steps = _hunt(sit)
    if not steps:
        subgoal, reasoning, steps = _explore(sit, "explore")
        if reasoning in (NO_EXITS, NOTHING_BETTER) and not _is_cooking(sit):
            subgoal, reasoning, steps = _try_lockers(sit) if _try_lockers(sit)[2] else (subgoal, reasoning, steps)
    last_failure = sit.last_failure()
    avoid = sit.recent_failures() | ({last_failure} if last_failure else set())
    if lowered(steps[0].action) in avoid:
        alt = _explore(sit, "try something else", avoid)
        if alt[2] and lowered(alt[2][0].action) not in avoid:
            subgoal, reasoning, steps = alt
    if not sit.go_to:
        steps = _without_go_to(sit, steps)
    imagined = _imagined(s)
    if imagined is not None:  # DAVIS's rollout asks for one step at a time: the next of the plan from the real state
        steps = steps[imagined : imagined + 1] or [step_reply(vocabulary.LOOK)]
    return Plan(subgoal=subgoal, reasoning=reasoning, steps=steps)


def _imagined(s: Sections) -> int | None:
    """How many steps a rollout's PREDICTED SO FAR lists (None: the prompt asks for a whole plan). The double does
    not play the imagined outcomes forward: it plans from the real state and hands out that plan's steps in turn."""
    if p.PREDICTED not in s:
        return None
    text = (s.get(p.PREDICTED) or "").strip()
    return 0 if text in ("", p.NONE) else len([line for line in text.splitlines() if line.strip()])


def decide(s: Sections) -> Decision:
    """The plan's first step, with the plan's reasoning (the double always writes a valid command)."""
    chosen = choose(s)
    return Decision(reasoning=chosen.reasoning or "the next step of the plan", action=chosen.action)


def _without_go_to(sit: Situation, steps: list[StepReply]) -> list[StepReply]:
    """No 'go to' for this preset: walk the route the history shows, else explore."""
    out: list[StepReply] = []
    for step in steps:
        place = go_to_target(lowered(step.action))  # the agent's own 'go to' grammar (envs.text)
        if place is None:
            out.append(step)
            continue
        route = sit.route(sit.room_named(place) or place)
        if route is None:
            break
        out += route
    if not out:
        fallback = _explore(_exits_here_only(sit), "explore")[2]
        out = [st for st in fallback if not lowered(st.action).startswith("go to ")] or [
            step_reply(_any_move(sit), "-=")
        ]
    return out


def _exits_here_only(sit: Situation) -> Situation:
    """Without a map, only this room's unexplored exits can be taken."""
    sit.unexplored = {r: d for r, d in sit.unexplored.items() if r == sit.location}
    return sit


def _any_move(sit: Situation) -> str:
    recent = [lowered(a) for a, _ in sit.history]
    moves = [a for a in sit.admissible if lowered(a).startswith("go ")]
    moves.sort(
        key=lambda a: (recent.count(lowered(a)), -max([i for i, r in enumerate(recent) if r == lowered(a)], default=-1))
    )
    return (
        moves[0]
        if moves
        else next((a for a in sit.admissible if lowered(a) == "look"), sit.admissible[0] if sit.admissible else "look")
    )


def _is_cooking(sit: Situation) -> bool:
    text = f"{sit.goal} {sit.s.get(p.OBSERVATION, '')[:300]}".lower()
    return bool(sit.recipe) or "meal" in text or "recipe" in text or "cookbook" in text


def _cooking(sit: Situation) -> tuple[str, str, list[StepReply]]:
    carried = sit.carried()
    if "meal" in carried and sit.adm_lower.get("eat meal"):
        return "eat the meal", "the meal is ready", [step_reply("eat meal", "You eat the meal")]
    if not sit.recipe:
        for cmd in ("examine cookbook", "read cookbook"):
            if cmd in sit.adm_lower:
                return "read the recipe", "the cookbook is here", [step_reply(sit.adm_lower[cmd], "Ingredients")]
        if "cookbook" in carried:
            return "read the recipe", "I carry the cookbook", [step_reply("examine cookbook", "Ingredients")]
        where = sit.locate("cookbook") or sit.room_named("kitchen")
        if where and where != sit.location:
            return "read the recipe", f"the cookbook should be in {where}", [step_reply(f"go to {where}", where)]
        return _explore(sit, "find the kitchen and its cookbook")
    # ingredient states
    pending: list[tuple[str, str, str]] = []  # (ingredient, kind, state)
    missing = []
    for ing in sit.recipe:
        key = lowered(ing)
        if key not in carried:
            missing.append(ing)
            continue
        states = carried[key]
        for need in sit.needs.get(key, []):
            if need in states:
                continue
            if need in CUT_VERBS and not any(st in CUT_VERBS for st in states):
                pending.append((ing, "cut", need))
            elif need in APPLIANCES and not is_cooked(states):
                if f"{key} {need}" not in sit.done:
                    pending.append((ing, "cook", need))
    needs_knife = any(n in CUT_VERBS for ns in sit.needs.values() for n in ns) and "knife" not in carried
    cuts_left = any(k == "cut" for _, k, _ in pending) or any(
        n in CUT_VERBS for m in missing for n in sit.needs.get(lowered(m), [])
    )
    # 1-3. everything that can be done here, in order: take, knife, cut, cook, then prepare and eat
    steps = _here_sequence(sit, carried, missing, needs_knife, cuts_left)
    if steps:
        return "use what is here", "these steps need nothing that is elsewhere", steps
    if not missing and not pending:
        kitchen = sit.room_named("kitchen")
        if kitchen and kitchen != sit.location:
            return "prepare the meal", "the meal is prepared in the kitchen", [step_reply(f"go to {kitchen}", kitchen)]
    # 4. go where things are, and do there what is already known
    targets: list[tuple[str, str, StepReply | None]] = []
    for ing in missing:
        room = sit.locate(ing)
        if room:
            targets.append((f"fetch the {ing}", room, step_reply(_take_command(sit, ing), ing)))
    for ing, kind, need in pending:
        if kind == "cook":
            room = sit.locate(APPLIANCES[need]) or sit.locate(APPLIANCES[need].upper())
            if room is None and APPLIANCES[need] != "bbq":
                room = sit.room_named("kitchen")
            if room:
                targets.append(
                    (
                        f"{need} the {ing} with the {APPLIANCES[need]}",
                        room,
                        step_reply(f"cook {lowered(ing)} with {APPLIANCES[need]}", f"You {need} the {ing}"),
                    )
                )
    if needs_knife and (cuts_left or pending):
        room = sit.locate("knife") or None
        if room:
            targets.append(("fetch the knife", room, step_reply(_take_command(sit, "knife"), "knife")))
    for subgoal, room, _ in targets:
        if room != sit.location:
            then = [t for _, r, t in targets if r == room and t is not None]
            last = (
                not missing and all(lowered(t.action).startswith("cook ") for t in then) and len(then) == len(pending)
            )
            if last and then and lowered(room) == lowered(sit.room_named("kitchen") or ""):
                then += [step_reply("prepare meal", "meal"), step_reply("eat meal", "You eat the meal")]
            return subgoal, f"it is in {room}", [step_reply(f"go to {room}", room), *then]
    # 5. look inside closed containers here for missing ingredients
    if missing:
        opens = [
            a
            for a in sit.admissible_like(r"open .+")
            if not re.search(r"door|gate|hatch|oven|stove|bbq", a, re.IGNORECASE)
        ]
        if opens:
            return "search containers", f"{', '.join(missing)} not found yet", [step_reply(opens[0], "You open")]
    return _explore(sit, f"find {', '.join(missing) or 'what is missing'}")


def is_cooked(states: list[str]) -> bool:
    """Cooked once already (fried, roasted, grilled, or burned): cooking it again burns it."""
    return any(st in APPLIANCES or st == "burned" for st in states)


def _take_command(sit: Situation, thing: str) -> str:
    """'take X from Y' when the belief saw X in or on Y, else 'take X'."""
    for entry in split_semicolons(sit.belief.get("Seen")):
        name, _, where = entry.partition(" @ ")
        m = re.search(r"\((?:in|on) (.+)\)$", where)
        if lowered(name) == lowered(thing) and m:
            return f"take {thing} from {m.group(1)}"
    return f"take {thing}"


def _appliance_here(sit: Situation, appliance: str) -> bool:
    word = lowered(appliance)
    if sit.location and lowered(sit.seen.get(word, "")).startswith(lowered(sit.location)):
        return True
    return any(re.search(rf"\b{re.escape(word)}\b", lowered(a)) for a in sit.admissible)


def _here_sequence(
    sit: Situation, carried: dict[str, list[str]], missing: list[str], needs_knife: bool, cuts_left: bool
) -> list[StepReply]:
    steps: list[StepReply] = []
    have = set(carried)
    for ing in missing:
        takes = sit.admissible_like(rf"take {re.escape(lowered(ing))}( from .+)?")
        if takes:
            steps.append(step_reply(takes[0], ing))
            have.add(lowered(ing))
    knives = sit.admissible_like(r"take knife( from .+)?")
    if needs_knife and cuts_left and knives:
        steps.append(step_reply(knives[0], "knife"))
        have.add("knife")
    ready = all(lowered(ing) in have for ing in sit.recipe)
    for ing in sit.recipe:
        key = lowered(ing)
        if key not in have:
            continue
        states = sit.states(key)
        for need in sit.needs.get(key, []):
            if need in states:
                continue
            if need in CUT_VERBS:
                if any(st in CUT_VERBS for st in states):
                    continue
                if "knife" not in have:
                    ready = False
                    break
                exact = sit.admissible_like(rf"{CUT_VERBS[need]} {re.escape(key)} with .+")
                steps.append(
                    step_reply(
                        exact[0] if exact else f"{CUT_VERBS[need]} {key} with knife", f"You {CUT_VERBS[need]} the"
                    )
                )
            elif need in APPLIANCES:
                if is_cooked(states) or f"{key} {need}" in sit.done:
                    continue
                if not _appliance_here(sit, APPLIANCES[need]):
                    ready = False
                    break
                exact = sit.admissible_like(rf"cook {re.escape(key)} with {APPLIANCES[need]}")
                steps.append(
                    step_reply(exact[0] if exact else f"cook {key} with {APPLIANCES[need]}", f"You {need} the {ing}")
                )
    kitchen = sit.room_named("kitchen")
    if ready and sit.recipe and ("prepare meal" in sit.adm_lower or (kitchen and kitchen == sit.location)):
        steps += [step_reply("prepare meal", "meal"), step_reply("eat meal", "You eat the meal")]
    return steps


def _hunt(sit: Situation) -> tuple[str, str, list[StepReply]]:
    goal_words = [
        w
        for w in re.findall(r"[a-z]+", sit.goal.lower())
        if w not in ("find", "the", "a", "an", "and", "take", "get", "it")
    ]
    for word in goal_words:
        takes = sit.admissible_like(rf"take (?:\w+ )*{re.escape(word)}( from .+)?")
        if takes:
            return f"take the {word}", "it is what the goal asks for", [step_reply(takes[0], word)]
    unlocks = sit.admissible_like(r"unlock .+ with .+")
    if unlocks:
        target = cast(re.Match[str], re.match(r"unlock (.+?) with .+", lowered(unlocks[0]))).group(1)
        return (
            "unlock",
            "a key I carry fits here",
            [step_reply(unlocks[0], "You unlock"), step_reply(f"open {target}", "You open")],
        )
    opens = [a for a in sit.admissible_like(r"open .+") if not re.search(r"door|gate", a, re.IGNORECASE)]
    if opens:
        return "open", "see what is inside", [step_reply(opens[0], "You open")]
    takes = sit.admissible_like(r"take (?:\w+ )*key(?: \w+)*( from .+)?") + sit.admissible_like(
        r"take (?:\w+ )*(?:coin|treasure)( from .+)?"
    )
    if takes:
        reads = [
            c
            for c in sit.admissible_like(r"(?:examine|read) (?:\w+ )*note(?: \w+)*")
            if lowered(c.split(" ", 1)[1]) not in sit.notes_read
        ]
        then = [step_reply(c, "") for c in reads[:1]]
        held = set(sit.carried()) | {lowered(re.sub(r"^take (.+?)( from .+)?$", r"\1", lowered(takes[0])))}
        if not then and not any(
            sit.locate(lock) for key, lock in sit.key_notes.items() if key in held
        ):  # no lead: explore on
            then = [st for st in _explore(sit, "explore")[2] if lowered(st.action).startswith("go ")][:2]
        return "take the key", "keys open lockers", [step_reply(takes[0], "You take"), *then]
    for cmd in sit.admissible_like(r"(?:examine|read) (?:\w+ )*note(?: \w+)*"):
        target = lowered(cmd.split(" ", 1)[1])
        if target not in sit.notes_read:
            return "read the note", "notes tell where to go", [step_reply(cmd, "")]
    carried = sit.carried()
    for key, lock in sit.key_notes.items():
        if key in carried and lock not in sit.unlocked:
            room = sit.locate(lock)
            if room and room != sit.location:
                return (
                    f"unlock the {lock}",
                    f"the note says {key} unlocks it; it is in {room}",
                    [
                        step_reply(f"go to {room}", room),
                        step_reply(f"unlock {lock} with {key}", "You unlock"),
                        step_reply(f"open {lock}", "You open"),
                    ],
                )
    return [], "", []  # type: ignore[return-value]


def _try_lockers(sit: Situation) -> tuple[str, str, list[StepReply]]:
    """Map explored, keys in hand with no known lock: visit the locked lockers, best name match first."""
    carried = sit.carried()
    keys = [
        k
        for k in carried
        if re.search(r"\bkey\b", k) and (k not in sit.key_notes or sit.locate(sit.key_notes[k]) is None)
    ]
    lockers = [t for t in sit.seen if LOCKABLE.search(t) and t not in sit.unlocked and not re.search(r"\bkey\b", t)]
    if keys and lockers:

        def affinity(lock: str) -> int:
            return -max(len((set(k.split()) - {"key"}) & set(lock.split())) for k in keys)

        for lock in sorted(lockers, key=affinity):
            room = sit.locate(lock)
            if room and room != sit.location:
                return (
                    f"try the keys on the {lock}",
                    f"it is still locked, in {room}",
                    [step_reply(f"go to {room}", room)],
                )
    return "", "", []


def _explore(sit: Situation, why: str, avoid: set[str] | None = None) -> tuple[str, str, list[StepReply]]:
    """Open a closed door here, take an unexplored exit here, else go to the latest room with one."""
    avoid = avoid or set()
    doors = [a for a in sit.admissible_like(r"open .*(?:door|gate|hatch)") if lowered(a) not in avoid]
    if doors:
        return why, "a closed door may hide new rooms", [step_reply(doors[0], "You open")]
    here = sit.unexplored.get(sit.location or "", []) if sit.location else []
    for direction in sorted(here, key=lambda d: DIR_ORDER.index(d) if d in DIR_ORDER else 99):
        cmd = sit.adm_lower.get(f"go {direction}")
        if cmd and lowered(cmd) not in avoid:
            return why, f"the {direction} exit of {sit.location} is unexplored", [step_reply(cmd, "-=")]
    order = list(reversed(sit.visited)) + [r for r in sit.unexplored if r not in sit.visited]
    for room in order:
        if room != sit.location and sit.unexplored.get(room):
            first = sorted(sit.unexplored[room], key=lambda d: DIR_ORDER.index(d) if d in DIR_ORDER else 99)[0]
            return (
                why,
                f"{room} has unexplored exits",
                [step_reply(f"go to {room}", room), step_reply(f"go {first}", "-=")],
            )
    # No map knowledge: a move not tried recently, else anything admissible.
    recent = [lowered(a) for a, _ in sit.history]
    moves = [a for a in sit.admissible if lowered(a).startswith("go ") and lowered(a) not in avoid]
    moves.sort(
        key=lambda a: (recent.count(lowered(a)), -max([i for i, r in enumerate(recent) if r == lowered(a)], default=-1))
    )
    if moves:
        return why, NO_EXITS, [step_reply(moves[0], "-=")]
    fallback = next(
        (a for a in sit.admissible if lowered(a) == "look"), sit.admissible[0] if sit.admissible else "look"
    )
    return why, NOTHING_BETTER, [step_reply(fallback, "")]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def best_overlap(proposed: str, admissible: list[str]) -> str | None:
    want = _words(proposed)
    best, score = None, 0.0
    for cand in admissible:
        got = _words(cand)
        if not got:
            continue
        overlap = len(want & got) / len(want | got)
        if overlap > score:
            best, score = cand, overlap
    return best


def choose(s: Sections) -> ActionChoice:
    """The admissible command that carries out the proposed action; with no proposal (ReAct without a
    planner) it reasons like the planner over the same sections, then grounds the first step."""
    admissible = items(s.get(p.ADMISSIBLE))
    proposed = s.get(p.PROPOSED_ACTION, "")
    reasoning = f"closest admissible command to '{proposed}'"
    if is_empty(proposed):
        decided = plan(s)
        proposed, reasoning = decided.steps[0].action, f"{decided.subgoal}: {decided.reasoning}"
    exact = next((a for a in admissible if lowered(a) == lowered(proposed)), None)
    best = (
        exact
        or best_overlap(proposed, admissible)
        or next((a for a in admissible if a.lower() == "look"), admissible[0] if admissible else "look")
    )
    return ActionChoice(reasoning=reasoning, action=best)
