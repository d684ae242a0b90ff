"""The scripted model's judgements, one pure function per role, on parsed section dicts: the critic, the
exploration check, the world model's predictions and safety check, the graph QA's focus, the actor's expansion.

Each function reads only the sections a node rendered (see :mod:`ariadnegraph.prompting`) and returns the role's
schema; state that must survive between steps travels in the belief the summarizer writes (:mod:`.beliefs`),
exactly like a real model's belief. The planner is :mod:`.policy`."""

from __future__ import annotations

import re
from typing import cast

from ... import prompting as p
from ...nodes.schemas import (
    CommandReply,
    Critique,
    EntityFocus,
    Expansion,
    ExplorationCheck,
    ReasonedCritique,
    SafetyVerdict,
    TransitionPrediction,
)
from .policy import best_overlap, choose, is_cooked
from .reading import APPLIANCES, Sections, failed, lowered
from .sections import (
    is_empty,
    items,
)
from .situation import Situation


def reasoned_critique(s: Sections) -> ReasonedCritique:
    """STMA's critic: the double's verdict, with the reasoning it rests on (the command's validity)."""
    verdict = critique(s)
    valid = (s.get(p.PROPOSED_ACTION) or "").strip().lower() in {c.lower() for c in items(s.get(p.ADMISSIBLE))}
    reasoning = f"The proposed action is {'among' if valid else 'not among'} the valid commands."
    return ReasonedCritique(reasoning=reasoning, **verdict.model_dump())


def critique(s: Sections) -> Critique:
    """Outcome check (refusals, missing expected phrase) and a check of the proposed action."""
    sit = Situation(s)
    expected = s.get(p.EXPECTED, "")
    actual = s.get(p.ACTUAL, "")
    outcome = True
    feedback = []
    if not is_empty(expected) and not is_empty(actual):
        if failed(actual) or lowered(expected) not in lowered(actual) and not _loose_match(expected, actual):
            outcome = False
        if not outcome:
            feedback.append(
                f"'{s.get(p.LAST_ACTION)}' did not give '{expected}': "
                f"{actual.strip().splitlines()[0][:100] if actual.strip() else 'nothing'}."
            )
    proposed = lowered(s.get(p.PROPOSED_ACTION, ""))
    approved = True
    if not proposed:  # this preset's critic only judges outcomes
        return Critique(outcome_matches=outcome, action_approved=True, feedback=" ".join(feedback))
    go_to = re.match(r"^(?:go|walk|head|return) (?:back )?to (?:the )?(.+)$", proposed)
    if go_to:
        if sit.visited and not sit.room_named(go_to.group(1)):
            approved = False
            feedback.append(f"{go_to.group(1)} is not a known location; explore instead.")
    elif sit.admissible and proposed not in sit.adm_lower:
        approved = False
        best = best_overlap(proposed, sit.admissible) or next(
            (a for a in sit.admissible if lowered(a).startswith("go ")), None
        )
        feedback.append(f"'{proposed}' is not admissible" + (f"; try '{best}'." if best else "."))
    else:
        m = re.match(r"cook (.+?) with", proposed)
        cooked = m and (
            any(d.startswith(lowered(m.group(1)) + " ") and d.split()[-1] in APPLIANCES for d in sit.done)
            or is_cooked(sit.states(m.group(1)))
        )
        if cooked:
            approved = False
            feedback.append(f"the {cast(re.Match[str], m).group(1)} is already cooked; cooking it again burns it.")
        if sit.last_failure() == proposed and lowered(s.get(p.LAST_ACTION, "")) == proposed:
            approved = False
            feedback.append(f"'{proposed}' just failed; do something else.")
    return Critique(outcome_matches=outcome, action_approved=approved, feedback=" ".join(feedback))


def _loose_match(expected: str, actual: str) -> bool:
    """The expected phrase's content words all appear (``"You fried the X"`` vs ``"You fried the X."``)."""
    words = [w for w in re.findall(r"[a-z0-9]+", expected.lower()) if w not in ("you", "the", "a", "an")]
    low = actual.lower()
    return bool(words) and all(w in low for w in words)


def exploration_check(s: Sections) -> ExplorationCheck:
    """Exploring is needed when there is no subgoal yet, or it is about finding or reaching something unseen."""
    subgoal = s.get(p.SUBGOAL, "")
    text = f"{subgoal} {s.get(p.PLAN, '')}".lower()
    return ExplorationCheck(
        explore=is_empty(subgoal) or bool(re.search(r"explor|find|search|locat|look for|recover|something else", text))
    )


def predict(s: Sections) -> TransitionPrediction:
    """First ask memory what the command did before; then predict the planner's expectation, or failing
    that the answer memory gave."""
    action = s.get(p.PROPOSED_ACTION, "").strip()
    monologue = items(s.get(p.MONOLOGUE))
    if not monologue:
        return TransitionPrediction(question=f"what happened after '{action}'?")
    expected = s.get(p.EXPECTED, "")
    guess = expected if not is_empty(expected) else monologue[-1].rpartition(" -> ")[2]
    return TransitionPrediction(observation=guess[:120], reward="0")


_LOST = re.compile(r"\byou (?:have )?(?:lost|died|die)\b|\bgame over\b", re.IGNORECASE)


def safety(s: Sections) -> SafetyVerdict:
    """DAVIS's safety check: a trajectory is not safe when a step is predicted to lose the game."""
    for line in items(s.get(p.PREDICTED)):
        command, _, outcome = line.partition(p.ARROW)
        if _LOST.search(outcome):
            return SafetyVerdict(safe=False, reason=f"'{command.strip()}' is predicted to lose the game")
    return SafetyVerdict(safe=True)


def focus(s: Sections) -> EntityFocus:
    """The kinds a question asks about (places for 'where'), and the listed entities it names, longest first."""
    question = lowered(s.get(p.QUESTION, ""))
    listed = [
        name.strip() for line in items(s.get(p.ENTITIES)) for name in line.partition(":")[2].split(",") if name.strip()
    ]
    named = sorted(
        {n for n in listed if re.search(rf"\b{re.escape(n.lower())}\b", question)}, key=lambda n: (-len(n), n)
    )
    kinds: list[str] = ["place", "thing"] if "where" in question else ["thing", "state"]
    return EntityFocus.model_validate({"types": kinds, "entities": named[:2]})


def expand(s: Sections) -> Expansion:
    """A step of several parts ('a and b', 'a, then b') as one command each; taking from a closed container
    opens it first; otherwise the closest valid command."""
    admissible = items(s.get(p.ADMISSIBLE))
    proposed = s.get(p.PROPOSED_ACTION, "")
    parts = [part.strip() for part in re.split(r",? then |,? and |; ", proposed) if part.strip()] or [proposed]
    commands = [CommandReply(action=choose({**s, p.PROPOSED_ACTION: parts[0]}).action)]
    commands += [CommandReply(action=part) for part in parts[1:]]
    taken = re.match(r"take (.+) from (.+)", commands[0].action, re.IGNORECASE)
    if taken and f"open {taken.group(2).lower()}" in {lowered(a) for a in admissible}:
        commands.insert(0, CommandReply(action=f"open {taken.group(2)}", expected="You open"))
    return Expansion(commands=commands)
