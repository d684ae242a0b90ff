"""Retrieval on small hand-made graphs; expected results are worked out by hand from the algorithms.

Embeddings here are bags of entity words (relation words are stop words), so every similarity is
known exactly: two-word facts sharing one word with a one-word query score 1/sqrt(2).
"""

import math

import numpy as np
import pytest

from ariadnegraph.memory import (
    Episode,
    Fact,
    KGView,
    VectorIndex,
    episodic_relevance,
    episodic_search,
    k_hop_nodes,
    order_by_time,
    semantic_search,
    stma_retrieve,
)

STOP = {"in", "on", "near", "of", "has", "exit", "is"}
VOCAB = ["apple", "fridge", "knife", "kitchen", "table", "north", "hall"]


def bow(texts):
    rows = []
    for text in texts:
        v = np.array([float(w in text.split() and w not in STOP) for w in VOCAB], dtype=np.float32)
        rows.append(v / (np.linalg.norm(v) or 1.0))
    return np.stack(rows)


def fact(i, s, r, o, t=None):
    return Fact(id=i, subject=s, relation=r, object=o, subject_key=s, object_key=o, valid_from=t or i, recorded_at=t or i)


FACTS = [
    fact(1, "apple", "in", "fridge"),
    fact(2, "apple", "near", "knife"),
    fact(3, "fridge", "in", "kitchen"),
    fact(4, "knife", "on", "table"),
    fact(5, "table", "in", "kitchen"),
    fact(6, "kitchen", "north of", "hall"),
]


@pytest.fixture()
def view():
    return KGView.build(FACTS)


@pytest.fixture()
def fact_index():
    index = VectorIndex(len(VOCAB))
    for f, v in zip(FACTS, bow([f.text() for f in FACTS])):
        index.add(f.id, v)
    return index


@pytest.fixture()
def entity_index(view):
    index = VectorIndex(len(VOCAB))
    for key in view.graph.nodes:
        index.add(key, bow([key])[0])
    return index


def ids(facts):
    return [f.id for f in facts]


def test_semantic_search_depth_one_is_top_width(view, fact_index):
    assert ids(semantic_search("apple", view, fact_index, bow, depth=1, width=2)) == [1, 2]


def test_semantic_search_expands_incident_vertices(view, fact_index):
    # level 0: apple -> f1, f2 (new vertices fridge, knife); level 1: fridge -> f1, f3; knife -> f2, f4
    assert ids(semantic_search("apple", view, fact_index, bow, depth=2, width=2)) == [1, 2, 3, 4]
    # level 2: kitchen -> f3, f5 (f6 scores 1/sqrt(3) < 1/sqrt(2)); table -> f4, f5
    assert ids(semantic_search("apple", view, fact_index, bow, depth=3, width=2)) == [1, 2, 3, 4, 5]
    # with width 3, kitchen's third-best fact f6 comes in
    assert ids(semantic_search("apple", view, fact_index, bow, depth=3, width=3))[-1] == 6


def test_semantic_search_only_sees_facts_of_the_view(fact_index):
    smaller = KGView.build(FACTS[:3])
    assert ids(semantic_search("knife", smaller, fact_index, bow, depth=1, width=2)) == [2, 1]


def test_stma_retrieve_top_n_then_k_hop(view, entity_index):
    assert ids(stma_retrieve("knife", view, entity_index, bow, n=1, k=1)) == [2, 4]
    assert ids(stma_retrieve("knife", view, entity_index, bow, n=1, k=2)) == [1, 2, 3, 4, 5]
    assert ids(stma_retrieve("knife", view, entity_index, bow, n=1, k=1, directed=True)) == [4]
    assert ids(stma_retrieve("knife", view, entity_index, bow, n=1, k=0)) == []


def test_k_hop_nodes_matches_hand_count(view):
    assert k_hop_nodes(view, ["hall"], 1) == {"hall", "kitchen"}
    assert k_hop_nodes(view, ["hall"], 2) == {"hall", "kitchen", "fridge", "table"}
    assert k_hop_nodes(view, ["hall", "nowhere"], 0) == {"hall"}


def test_order_by_time():
    facts = [fact(1, "a", "r", "b", t=5), fact(2, "c", "r", "d", t=2), fact(3, "e", "r", "f", t=2)]
    assert ids(order_by_time(facts)) == [2, 3, 1]
    assert ids(order_by_time(facts, newest_first=True)) == [1, 3, 2]


def test_episodic_relevance_equation_one():
    assert episodic_relevance(2, 4) == pytest.approx(2 / 4 * 2.0)
    assert episodic_relevance(3, 8) == pytest.approx(3 / 8 * 3.0)
    assert episodic_relevance(1, 1) == 0.0  # one-triplet observations weigh nothing
    assert episodic_relevance(0, 0) == 0.0


def test_episodic_search_ranks_by_relevance_then_recency():
    episodes = [
        Episode(1, "saw apple", fact_ids=frozenset({1, 2, 3, 4})),  # n=2 of N=4 -> 1.0
        Episode(2, "saw knife", fact_ids=frozenset({2})),  # n=1 of N=1 -> 0
        Episode(3, "saw kitchen", fact_ids=frozenset({1, 5})),  # n=1 of N=2 -> 0.5
        Episode(4, "saw table", fact_ids=frozenset({2, 5, 6, 7})),  # n=1 of N=4 -> 0.5
        Episode(5, "unrelated", fact_ids=frozenset({9, 10})),
    ]
    ranked = episodic_search([1, 2], episodes, k=3)
    assert [(e.step, round(s, 6)) for e, s in ranked] == [(1, 1.0), (4, 0.5), (3, 0.5)]
    boosted = episodic_search([1, 2], episodes, k=1, similarity={5: 1.0}, similarity_weight=2.0)
    assert [e.step for e, _ in boosted] == [5]
    assert math.isclose(boosted[0][1], 2.0)


def test_top_k_ties_at_the_cut_go_to_the_lower_row_and_allowed_takes_any_container():
    index = VectorIndex(2)
    for i, v in enumerate([[0, 1], [1, 0], [1, 0], [1, 0], [0.6, 0.8]]):
        index.add(f"r{i}", np.array(v, dtype=np.float32))
    q = np.array([1, 0], dtype=np.float32)
    assert [i for i, _ in index.top_k(q, 2)[0]] == ["r1", "r2"]
    assert [i for i, _ in index.top_k(q, 2, allowed={"r3": 1, "r4": 1, "r0": 1})[0]] == ["r3", "r4"]
    assert [i for i, _ in index.top_k(q, 9, allowed={"r0", "r4"})[0]] == ["r4", "r0"]


def test_scores_equal_but_for_the_last_bits_are_a_tie_the_lower_id_wins():
    """The same text at steps 3 and 4 scored a few ulps apart in the whole memory and exactly equal in the memory cut
    at step 4 (the product's blocking depends on the rows stored): as_of answered 'step 4' where the cut run said
    'step 3'. A tie up to TIE_DECIMALS goes to the lower id whichever way the last bits fall."""
    index = VectorIndex(2)
    for name in ("step 3", "step 4"):
        index.add(name, np.array([1, 0], dtype=np.float32))
    assert [i for i, _ in index._best(np.array([0.5, 0.5 + 1e-9]), 1, None)] == ["step 3"]
    assert [i for i, _ in index._best(np.array([0.5 + 1e-9, 0.5]), 1, None)] == ["step 3"]
