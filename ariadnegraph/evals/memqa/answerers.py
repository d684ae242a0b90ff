"""The answerers of EMemBench's comparison, over one run:

* ``in-context``: the last 10 turns up to the horizon, as a transcript in the prompt (ours: A.6's history_turns=10
  is the window of the gameplay prompt; the paper's in-context answerer reads the episode's log, §4);
* ``full-history``: every turn 0..horizon as a transcript (the paper's in-context answerer);
* ``memory``: the agent's own temporal KG through the ``ask`` graph, ``as_of`` the horizon;
* ``mem0``, ``langmem``: the paper's memory agents (§4.1), the real libraries (:mod:`.memagents`), given the turns
  0..horizon as memories; the same model answers from the top_k memories each retrieves for the question.

Transcript turns hold only what the agent saw and noted while playing: its command and the reason it
logged for it, the game's text, the inventory it was shown and its score. Replies are cut down to the answer line (or a
JSON "answer").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import openai
from langchain_core.messages import HumanMessage, SystemMessage

from ...config import MEMQA_ANSWERERS, MEMQA_MEMORY_AGENTS, embeddings_setting
from ...memory.embeddings import make_embeddings
from ...models import Usage, invoke_model, load_chat_model, metered
from ...models.chat import local_name
from ...prompting import QUESTION, RETRIEVED, TRANSCRIPT, render_sections
from ...runs import RunDir
from .generate import IN_CONTEXT_TURNS, QAItem
from .memagents import TOP_K, MemoryAgent, ingest, make_agent, missing
from .prompts import MEMORY_RULES, RETRIEVED_SYSTEM, TRANSCRIPT_SYSTEM, render_memories, render_transcript

ANSWERERS = MEMQA_ANSWERERS  # asked by default
ALL_ANSWERERS = (*MEMQA_ANSWERERS, *MEMQA_MEMORY_AGENTS)


def extract_answer(reply: str) -> str:
    """The answer in a reply: a JSON ``answer`` field, else the first non-empty line without an
    ``Answer:`` label; a step number written "step 26" as its digits (the scorer normalises the rest, as A.5 says)."""
    text = (reply or "").strip()
    try:
        data = json.loads(text)
        line = str(data["answer"]).strip() if isinstance(data, dict) and "answer" in data else None
    except ValueError:
        line = None
    if line is None:
        line = next((l.strip() for l in text.splitlines() if l.strip()), "")
        line = re.sub(r"^(?:final\s+)?answer\s*:\s*", "", line, flags=re.IGNORECASE).strip()
    # a step number as the recall and the transcript head it ("step 26"): the number the rules ask for, whoever answers
    return step.group(1) if (step := re.fullmatch(r"(?:at\s+)?steps?\s+(\d+)\.?", line, re.IGNORECASE)) else line


def agent_turns(run_dir: str | Path, run_id: str) -> list[dict[str, Any]]:
    """Each logged step as the agent saw it (the inventory list is the one its observation carried; the
    valid commands are those listed after the previous step, among which this step's command was typed)."""
    run = RunDir.open(run_dir, run_id)
    seen = {r["step"]: r.get("inventory") for r in run.oracle_steps()}
    records = list(run.steps())
    offered = {r["step"] + 1: r["valid"] for r in records if isinstance(r.get("valid"), list)}
    return [
        {
            "step": r["step"],
            "action": r.get("action"),
            "observation": r.get("observation") or "",
            "score": r.get("score"),
            "inventory": seen.get(r["step"]),
            "reason": r.get("reason"),
            "valid": offered.get(r["step"]),
        }
        for r in records
    ]


ANSWER_TOKENS = 1024  # an answer with its short explanation (EMemBench A.6's cap); bounds a model that runs on
# A local server's prompt-cache slot per transcript answerer: its questions about one run share the whole
# transcript as their prefix, so only the first reads it (at ~35 tokens/s on 2 cores a full history of 6k
# tokens takes minutes, and an unpinned call lands on whichever slot is least recently used).
# (The numbers are those of agent nodes (nodes.common.MODEL_NODES), which never run while a run is questioned.)
ANSWERER_SLOTS = {"in-context": 0, "full-history": 1}
ANSWER_TIMEOUT = 900.0  # seconds: the first question reads the whole transcript
REFUSED = "(no answer: the model refused the request)"  # what a refused request is recorded as (scores 0)
CHAT_TEMPLATE_TOKENS = 32  # the role markers a chat template wraps two messages in


class ModelAnswerer:
    """The answering model given a prompt about one question (what the prompt holds: the subclass's ``prompt``)."""

    def __init__(self, name: str, model: str, base_url: str | None = None) -> None:
        self.name = name
        self.model = load_chat_model(
            model, base_url=base_url, max_tokens=ANSWER_TOKENS, slot=ANSWERER_SLOTS.get(name), timeout=ANSWER_TIMEOUT
        )
        # A local model's context window, which a prompt must fit with its answer: its server shares one KV
        # pool between slots and would read a longer prompt than the model is given (for many minutes); a
        # provider refuses one itself (BadRequestError below).
        self.local_name = local_name(model)

    def prompt(self, item: QAItem) -> list:
        raise NotImplementedError

    def over_context(self, prompt: list) -> str | None:
        """Why a local model cannot read ``prompt`` (longer than its context with the answer), else None."""
        if self.local_name is None:
            return None
        from ...models.local import get_model, local_token_count

        context = get_model(self.local_name).context
        tokens = local_token_count(self.local_name, "\n".join(str(m.content) for m in prompt)) + CHAT_TEMPLATE_TOKENS
        if tokens + ANSWER_TOKENS <= context:
            return None
        return f"the prompt is {tokens} tokens, over the model's context of {context} with its answer"

    def __call__(self, item: QAItem) -> str:
        prompt = self.prompt(item)
        if (too_long := self.over_context(prompt)) is not None:
            return f"{REFUSED}: {too_long}"
        try:
            reply = invoke_model(self.model, prompt)
        except openai.BadRequestError as exc:
            # A prompt longer than the model's context is refused: a failure of this answerer, scored
            # as a wrong answer, not the end of the evaluation (every valid command is listed per turn).
            return f"{REFUSED}: {' '.join(str(exc).split())[:200]}"
        return reply.content if isinstance(reply.content, str) else str(reply.content)


class TranscriptAnswerer(ModelAnswerer):
    """A model answering from a transcript of the last ``turns`` turns (None: all of them)."""

    def __init__(
        self, name: str, turns: list[dict[str, Any]], window: int | None, model: str, base_url: str | None = None
    ) -> None:
        super().__init__(name, model, base_url)
        self.turns = turns
        self.window = window

    def prompt(self, item: QAItem) -> list:
        shown = [t for t in self.turns if t["step"] <= item.horizon]
        if self.window is not None:
            shown = shown[-self.window :]
        body = render_sections({TRANSCRIPT: render_transcript(shown), QUESTION: item.question})
        return [SystemMessage(content=TRANSCRIPT_SYSTEM), HumanMessage(content=body)]


class MemoryAgentAnswerer(ModelAnswerer):
    """A memory agent (:mod:`.memagents`: Mem0, LangMem) given the turns 0..horizon as memories, one turn at a time
    in the transcript's words, by the same model that answers; for each question it retrieves ``top_k`` memories
    and the model answers from them. A memory is built once per horizon, on its first question; what building
    it cost in model calls and tokens is ``ingest_usage`` (answering is counted per question, by the caller)."""

    def __init__(
        self, name: str, turns: list[dict[str, Any]], run_id: str, model: str, base_url: str | None = None
    ) -> None:
        super().__init__(name, model, base_url)
        self.turns = turns
        self.run_id = run_id
        self.top_k = TOP_K
        self.memories: dict[int, MemoryAgent] = {}
        self.ingest_usage: dict[int, Usage] = {}

    def memory(self, horizon: int) -> MemoryAgent:
        if horizon not in self.memories:
            agent = make_agent(self.name, self.model, make_embeddings(embeddings_setting()), self.run_id)
            lived = [(t["step"], render_transcript([t])) for t in self.turns if t["step"] <= horizon]
            with metered() as meter:
                ingest(agent, lived)
            self.memories[horizon], self.ingest_usage[horizon] = agent, meter.usage
        return self.memories[horizon]

    def retrieved(self, item: QAItem) -> list[str]:
        return self.memory(item.horizon).retrieve(item.question, self.top_k)

    def prompt(self, item: QAItem) -> list:
        body = render_sections({RETRIEVED: render_memories(self.retrieved(item)), QUESTION: item.question})
        return [SystemMessage(content=RETRIEVED_SYSTEM), HumanMessage(content=body)]


class MemoryAnswerer:
    """The ``ask`` graph over the run's KG as it was at the horizon."""

    name = "memory"

    def __init__(self, run_dir: str | Path, run_id: str, model: str, base_url: str | None = None) -> None:
        from ...agent.context import AgentContext

        self.run_id = run_id
        self.context = AgentContext(
            model=model, run_dir=str(run_dir), base_url=base_url, request_timeout=ANSWER_TIMEOUT
        )

    def __call__(self, item: QAItem) -> str:
        from ...graphs.qa import local_ask_graph

        asked = {"run_id": self.run_id, "question": item.question, "as_of": item.horizon, "answer_format": MEMORY_RULES}
        result = local_ask_graph.invoke(asked, context=self.context)
        return result.get("answer") or ""


def check_answerers(kinds: Sequence[str]) -> None:
    """One line for an unknown answerer or a memory agent whose library is not installed, before anything runs."""
    for kind in kinds:
        if kind not in ALL_ANSWERERS:
            raise ValueError(f"unknown answerer '{kind}': use one of {', '.join(ALL_ANSWERERS)}")
        if kind in MEMQA_MEMORY_AGENTS and (why := missing(kind)) is not None:
            raise ValueError(why)


def make_answerer(
    kind: str, run_dir: str | Path, run_id: str, model: str, base_url: str | None = None
) -> Callable[[QAItem], str]:
    if kind == "in-context":
        return TranscriptAnswerer(kind, agent_turns(run_dir, run_id), IN_CONTEXT_TURNS, model, base_url)
    if kind == "full-history":
        return TranscriptAnswerer(kind, agent_turns(run_dir, run_id), None, model, base_url)
    if kind == "memory":
        return MemoryAnswerer(run_dir, run_id, model, base_url)
    if kind in MEMQA_MEMORY_AGENTS:
        return MemoryAgentAnswerer(kind, agent_turns(run_dir, run_id), run_id, model, base_url)
    raise ValueError(f"unknown answerer '{kind}': use one of {', '.join(ALL_ANSWERERS)}")
