"""How prompts are laid out: named sections, so any model (and the scripted one) reads them alike.

Every role's user prompt is a list of sections rendered as ``## NAME`` followed by the content.
Real models read them as ordinary headings; the offline scripted model parses them back with
:func:`parse_sections`, so it decides only from what the node handed over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# Section names shared by nodes (which write them) and the scripted model (which reads them).
GOAL = "GOAL"
OBSERVATION = "OBSERVATION"
LAST_ACTION = "LAST ACTION"
LOCATION = "LOCATION"
INVENTORY = "INVENTORY"
ADMISSIBLE = "ADMISSIBLE ACTIONS"
BELIEF = "BELIEF"
PREVIOUS_BELIEF = "PREVIOUS BELIEF"
KNOWN_FACTS = "KNOWN FACTS"
MEMORY = "MEMORY"
EPISODES = "RELEVANT EPISODES"
SPATIAL = "SPATIAL BELIEF"
EXPLORATION = "UNEXPLORED EXITS"
NOTES = "WORLD MODEL NOTES"
PLAN = "CURRENT PLAN"
FEEDBACK = "CRITIC FEEDBACK"
REFLECTIONS = "REFLECTIONS"
HISTORY = "RECENT HISTORY"
PROPOSED_ACTION = "PROPOSED ACTION"
EXPECTED = "EXPECTED OUTCOME"
ACTUAL = "ACTUAL OUTCOME"
EXPECTED_REWARD = "EXPECTED REWARD"
ACTUAL_REWARD = "ACTUAL REWARD"
SUBGOAL = "SUBGOAL"
QUESTION = "QUESTION"
STEP = "STEP"
TRANSCRIPT = "EPISODE TRANSCRIPT"  # memory QA: the turns an answerer is shown (evals.memqa)

_HEADING = "## "


def render_sections(sections: Mapping[str, object] | Iterable[tuple[str, object]]) -> str:
    """``## NAME`` blocks in the given order; None values are left out, lists become bullet lines."""
    items = sections.items() if isinstance(sections, Mapping) else sections
    blocks = []
    for name, value in items:
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            body = "\n".join(f"- {v}" for v in value) if value else "(none)"
        else:
            body = str(value).strip() or "(none)"
        blocks.append(f"{_HEADING}{name}\n{body}")
    return "\n\n".join(blocks)


def parse_sections(text: str) -> dict[str, str]:
    """Inverse of :func:`render_sections`: section name -> body text (later duplicates win)."""
    sections: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith(_HEADING) and line[len(_HEADING):].strip().isupper():
            if name is not None:
                sections[name] = "\n".join(lines).strip()
            name, lines = line[len(_HEADING):].strip(), []
        elif name is not None:
            lines.append(line)
    if name is not None:
        sections[name] = "\n".join(lines).strip()
    return sections


def bullet_items(body: str | None) -> list[str]:
    """The ``- item`` lines of a section body (``(none)`` gives an empty list)."""
    if not body or body.strip() == "(none)":
        return []
    return [line[2:].strip() for line in body.splitlines() if line.startswith("- ")]
