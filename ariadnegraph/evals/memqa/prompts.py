"""Prompts of the memory-QA answerers and the optional paraphraser (our own wording), and the one
format of a transcript turn (the scripted answerer parses it back)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...prompting import step_header

CARRYING = "Carrying:"  # a transcript turn's inventory line
SCORE = "Score:"  # a transcript turn's score line
REASON = "Reason:"  # a transcript turn's reasoning line (why the command was chosen)
VALID = "Valid commands:"  # the commands the game listed as valid when the turn's command was typed
VALID_SEPARATOR = "; "

ANSWER_RULES = """Reply with the answer alone on the first line, with nothing around it:
- a step number or a count as digits only;
- a place, an item or an action as the game wrote it;
- 'yes' or 'no' when the question asks for it;
- several items as one comma-separated list in alphabetical order ('nothing' if there are none);
- an observation as the game's text.
If what you were given does not settle the question, or the question assumes something that never
happened, reply exactly: not answerable"""

TRANSCRIPT_SYSTEM = f"""You are questioned about an episode of a text game that you played. The
transcript shows your turns: the step number, the command you typed, why you chose it (when you noted
a reason), the commands the game listed as valid when you typed it (when they were logged), what the
game answered, then what you were carrying and your score after that step. Step 0 is the start, before any command.
Use only the transcript; do not guess from what usually happens in such games.

{ANSWER_RULES}"""

# A memory agent's answer (EMemBench's answer prompt is one for every method): the transcript's framing and rules,
# the memories its library retrieved for the question in place of the turns.
RETRIEVED_SYSTEM = f"""You are questioned about an episode of a text game that you played. A memory
system was given each of your turns (the step number, the command you typed, why you chose it, the commands
listed as valid, the game's answer, what you were carrying and your score) and kept memories of them; below
are the memories it retrieved for this question, most relevant first, one paragraph each. Step 0 is the
start, before any command. Use only these memories; do not guess from what usually happens in such games.

{ANSWER_RULES}"""

MEMORY_RULES = f"""Answer from what your memory of the episode recalls, or look up more with the tools
(facts hold from one step until another; step 0 is the start, before any command).
{ANSWER_RULES}"""

PARAPHRASE = """Rewrite the question below so it reads differently while asking exactly the same
thing. Keep every number, step index and quoted name unchanged, keep game words (commands, places,
items) as written, write English, and return only the rewritten question on one line."""


def render_turn(
    step: int,
    action: str | None,
    observation: str,
    inventory: Iterable[str] | None,
    score: Any,
    reason: str | None = None,
    valid: Iterable[str] | None = None,
) -> str:
    """One transcript turn: ``[step N] > command``, the reason, the valid commands it was typed among, the
    game's text, then carried items and score."""
    text = "\n".join(line.strip() for line in (observation or "").splitlines() if line.strip())
    lines = [step_header(step, action)]
    if reason:
        lines.append(f"{REASON} {' '.join(reason.split())}")
    if valid is not None:
        lines.append(f"{VALID} {VALID_SEPARATOR.join(' '.join(v.split()) for v in valid)}")
    lines.append(text or "(no text)")
    if inventory is not None:
        lines.append(f"{CARRYING} {', '.join(inventory) or 'nothing'}")
    if score is not None:
        lines.append(f"{SCORE} {score:g}" if isinstance(score, (int, float)) else f"{SCORE} {score}")
    return "\n".join(lines)


def render_memories(memories: Iterable[str]) -> str:
    """Retrieved memories as the answer prompt shows them: one paragraph each, in the order retrieved."""
    return "\n\n".join("\n".join(line.strip() for line in m.splitlines() if line.strip()) for m in memories)


def render_transcript(turns: Iterable[Mapping[str, Any]]) -> str:
    return "\n\n".join(
        render_turn(
            t["step"],
            t.get("action"),
            t.get("observation") or "",
            t.get("inventory"),
            t.get("score"),
            t.get("reason"),
            t.get("valid"),
        )
        for t in turns
    )
