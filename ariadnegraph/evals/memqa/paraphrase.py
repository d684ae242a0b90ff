"""Paraphrase of generated questions by a model (EMemBench §3.3, "language variation").

On by default when the answerer is a real model (it rewrites with the answering model; ``--paraphrase
off`` turns it off, ``--paraphrase MODEL`` picks another), so a model cannot score by matching the
templates' fixed wording. Paraphrasing happens after the answer is computed, so it cannot change a label; a
rewrite that drops a number or a quoted name is refused and the original question kept (the
consistency check). The offline ``scripted`` model answers in its plain-text role and does not
rewrite, so with it every question stays unchanged (and its answerer can still parse them).
"""

from __future__ import annotations

import re
from dataclasses import replace

from langchain_core.messages import HumanMessage, SystemMessage

from ...models import invoke_model, load_chat_model
from ...models.chat import test_doubles
from .generate import QAItem
from .prompts import PARAPHRASE

_KEPT = re.compile(r"\d+|'[^']+'")


def consistent(original: str, rewritten: str) -> bool:
    """Every number and quoted name of the original survives, and the rewrite is one line."""
    return (
        bool(rewritten)
        and "\n" not in rewritten
        and all(k.lower() in rewritten.lower() for k in _KEPT.findall(original))
    )


PARAPHRASE_TOKENS = 96  # one question, reworded
PARAPHRASE_SLOT = 7  # a local server's cache slot: every rewrite shares the instructions as its prefix


def paraphrase(items: list[QAItem], model: str, base_url: str | None = None) -> list[QAItem]:
    if model in test_doubles():  # a rule-based double cannot reword a question
        return items
    chat = load_chat_model(model, base_url=base_url, max_tokens=PARAPHRASE_TOKENS, slot=PARAPHRASE_SLOT)
    out = []
    for item in items:
        reply = invoke_model(chat, [SystemMessage(content=PARAPHRASE), HumanMessage(content=item.question)])
        text = (reply.content if isinstance(reply.content, str) else str(reply.content)).strip()
        out.append(replace(item, question=text) if consistent(item.question, text) else item)
    return out
