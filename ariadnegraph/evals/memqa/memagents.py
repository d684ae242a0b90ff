"""EMemBench's memory agents (§4.1, app. A.2), each the real library: Mem0 (``mem0ai``) and LangMem (``langmem``),
installed with the extra ``memagents`` and imported only when asked for. Each is given a run's turns as memories,
one turn at a time as the agent lived them, and retrieves the top_k memories for each question (A.6: 8); memqa's
answering model writes the answer from them (:class:`~.answerers.MemoryAgentAnswerer`).

Both run offline on what the project has. Their language model is memqa's answering model (a LangChain chat model
from our loader: a ``--base-url`` server, a provider or the scripted double); their embeddings are the project's
(:func:`~ariadnegraph.memory.embeddings.make_embeddings`, the setting new memories are built with); their stores live
in this process for the answerer's life: LangMem's store manager over a LangGraph ``InMemoryStore`` with an index,
Mem0 over an in-memory Qdrant with its history in an in-memory SQLite.

Mem0 is kept from the network: its telemetry is off (``MEM0_TELEMETRY=False``, read when mem0 is first imported);
its user-id file goes under our cache (``MEM0_DIR``); BM25 keyword search stays off (it needs ``fastembed``, which
downloads its model); and when spaCy is installed (TextWorld's Jericho brings it) without its ``en_core_web_sm``
model, Mem0 would download that model on first use: it is marked unavailable instead, so Mem0 scores without lemmas
and entity boosts, as it does where spaCy is absent.

A-MEM (``a-mem`` 0.2.6) is not run: :data:`A_MEM_WHY`.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Sequence
from typing import Any, Protocol

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from ...config import MEMQA_EXTRA, cache_dir

TOP_K = 8  # memories retrieved per question: EMemBench A.6 ("per-question retrieval uses top_k=8")
INSTALL = f'pip install -e ".[{MEMQA_EXTRA}]"'
A_MEM_WHY = (
    "a-mem 0.2.6 imports sentence_transformers and transformers (torch) when agentic_memory is imported, and its "
    "ChromaRetriever builds chromadb's SentenceTransformerEmbeddingFunction('all-MiniLM-L6-v2'), which downloads "
    "that model from the Hugging Face hub, whatever LLM backend is chosen"
)


class MemoryAgent(Protocol):
    """A memory library as memqa drives it: turns in, memories out."""

    def add(self, text: str, step: int) -> None: ...

    def retrieve(self, query: str, k: int) -> list[str]: ...


def missing(kind: str) -> str | None:
    """The one line that says what ``kind`` needs when its library cannot be imported, else None."""
    try:
        _import(kind)
    except ImportError:
        return f"answerer '{kind}' needs: {INSTALL}"
    return None


def _import(kind: str) -> Any:
    if kind == "mem0":
        return _mem0()
    import langmem

    return langmem


def _mem0() -> Any:
    """``mem0``, imported with its telemetry off and its files under our cache."""
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", str(cache_dir() / "mem0"))
    import mem0
    from mem0.memory import main, telemetry
    from mem0.utils import spacy_models

    if telemetry.MEM0_TELEMETRY or main.MEM0_TELEMETRY:  # imported earlier in this process with it on
        raise ValueError("mem0 was imported with its telemetry on: run memqa in a process of its own")
    try:
        import spacy

        absent = not spacy.util.is_package("en_core_web_sm")
    except ImportError:
        absent = False  # Mem0 finds no spaCy and goes without it by itself
    if absent:  # Mem0 would download the model (spacy_models._ensure_model_available)
        spacy_models._load_failed_full = spacy_models._load_failed_lemma = True
    logging.getLogger("mem0.vector_stores.qdrant").setLevel(logging.ERROR)  # "fastembed not installed": on purpose
    return mem0


def dimension(embeddings: Embeddings) -> int:
    return int(getattr(embeddings, "dim", 0) or len(embeddings.embed_query("dimension")))


class LangMemAgent:
    """LangMem's store manager: each turn goes in as a conversation the manager extracts memories from (one model
    call, with the memories most like it to update), over an ``InMemoryStore`` indexed with our embeddings;
    questions search that store."""

    def __init__(self, model: BaseChatModel, embeddings: Embeddings, name: str) -> None:
        from langgraph.store.memory import InMemoryStore
        from langmem import create_memory_store_manager

        self.namespace = ("memories", name)
        self.store = InMemoryStore(index={"dims": dimension(embeddings), "embed": embeddings})
        self.manager = create_memory_store_manager(model, namespace=self.namespace, store=self.store)

    def add(self, text: str, step: int) -> None:
        self.manager.invoke({"messages": [HumanMessage(content=text)]})

    def retrieve(self, query: str, k: int) -> list[str]:
        return [_langmem_text(item.value) for item in self.manager.search(query=query, limit=k)]


def _langmem_text(value: Any) -> str:
    """A memory's text: the manager's search gives its own ``Memory`` schema back (``content``)."""
    content = getattr(value, "content", None)
    return content if isinstance(content, str) else str(value)


class Mem0Agent:
    """Mem0's ``Memory``: each turn is added with inference on (the model extracts facts, Mem0 embeds, deduplicates
    and stores them), scoped to the run as the agent's own memories; questions are Mem0 searches."""

    def __init__(self, model: BaseChatModel, embeddings: Embeddings, name: str) -> None:
        mem0 = _mem0()
        dims = dimension(embeddings)
        self.agent_id = name
        with warnings.catch_warnings():  # a local Qdrant ignores the payload indexes Mem0 makes: it says so each time
            warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            self.memory = mem0.Memory.from_config(self._config(model, embeddings, dims))

    @staticmethod
    def _config(model: BaseChatModel, embeddings: Embeddings, dims: int) -> dict[str, Any]:
        from qdrant_client import QdrantClient

        return {
            "llm": {"provider": "langchain", "config": {"model": model}},
            "embedder": {"provider": "langchain", "config": {"model": embeddings, "embedding_dims": dims}},
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "memqa",
                    "embedding_model_dims": dims,
                    "client": QdrantClient(location=":memory:"),
                    "path": ":memory:",  # its config asks for a place; the client given is the one used
                },
            },
            "history_db_path": ":memory:",
        }

    def add(self, text: str, step: int) -> None:
        self.memory.add([{"role": "user", "content": text}], agent_id=self.agent_id, metadata={"step": step})

    def retrieve(self, query: str, k: int) -> list[str]:
        found = self.memory.search(query, top_k=k, filters={"agent_id": self.agent_id})
        return [str(r.get("memory") or "") for r in found.get("results", [])]


AGENTS: dict[str, type[LangMemAgent] | type[Mem0Agent]] = {"langmem": LangMemAgent, "mem0": Mem0Agent}  # by the
# names config.MEMQA_MEMORY_AGENTS lists


def make_agent(kind: str, model: BaseChatModel, embeddings: Embeddings, name: str) -> MemoryAgent:
    if (why := missing(kind)) is not None:
        raise ValueError(why)
    return AGENTS[kind](model, embeddings, name)


def ingest(agent: MemoryAgent, turns: Sequence[tuple[int, str]]) -> None:
    """Each (step, text) turn in order, as the agent lived them."""
    for step, text in turns:
        agent.add(text, step)
