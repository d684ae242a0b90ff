"""EMemBench's scoring rules (appendix A.5), case by case."""

from __future__ import annotations

import pytest

from ariadnegraph.evals.memqa.answerers import extract_answer
from ariadnegraph.evals.memqa.scorer import anls, is_not_answerable, normalize, score, totals


@pytest.mark.parametrize("raw, expected", [
    ("  Kitchen ", "kitchen"),
    ("'knife'", "knife"),
    ('"Red Potato"', "red potato"),
    ("kitchen (the room with the oven)", "kitchen"),
    ("apple (raw) and knife", "apple  and knife"),
    ("\u201cHall\u201d", "hall"),
])
def test_normalisation(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


def test_anls_threshold_both_sides() -> None:
    assert anls("abcd", "abcd") == 1.0
    assert anls("abcd", "abcx") == 0.75  # s = 0.75 > 0.5: kept
    assert anls("abcd", "abxy") == 0.0  # s = 0.5 exactly: not above the threshold
    assert anls("abcdefghij", "abcdefxxxx") == pytest.approx(0.6)  # just above
    assert anls("abcdefghij", "abcdexxxxx") == 0.0  # 0.5 again
    assert score("kitchen", "Kitchen.", "string") == pytest.approx(1 - 1 / 8)
    assert score("yes", "no", "string") == 0.0


@pytest.mark.parametrize("gold, pred, expected", [
    ("https://example.org/a", "https://example.org/b", 0.0),  # URL: exact only
    ("notes.txt", "notes.txs", 0.0),  # file name
    ("2024-05-01", "2024-05-02", 0.0),  # date
    ("7 p.m.", "7 p.m", 0.0),  # time with p.m.
    ("me@example.org", "me@example.org", 1.0),  # e-mail, exact
])
def test_exact_match_patterns(gold: str, pred: str, expected: float) -> None:
    assert score(gold, pred, "string") == expected


@pytest.mark.parametrize("gold, pred, expected", [
    (12, "12", 1.0), (12, "12.0", 1.0), (12, " 12 ", 1.0), (12, "12%", 1.0), ("3", 3, 1.0),
    (12, "13", 0.0), (12, "12.5", 0.0), (12, "twelve", 0.0), (12, "step 12", 0.0),
])
def test_integer(gold, pred, expected: float) -> None:
    assert score(gold, pred, "integer") == expected


@pytest.mark.parametrize("gold, pred, expected", [
    (0.25, "0.25", 1.0), (0.25, "0.251", 1.0),  # same at two decimals
    (100.0, "100.9", 1.0), (100.0, "101.5", 0.0),  # 1% relative tolerance
    (0.25, "25", 1.0), (25, "0.25", 1.0),  # fraction / percentage
    (3.14159, "3.2", 0.0), (3.14159, "3.14", 1.0),  # 3.14 is within 1%
    (0.001234, "0.0012", 0.0), (0.001234, "0.001234", 1.0),  # precision follows the reference's decimals
    (0.25, "a quarter", 0.0),
])
def test_float(gold, pred, expected: float) -> None:
    assert score(gold, pred, "float") == expected


def test_list_takes_the_best_candidate() -> None:
    assert score(["garden", "hall"], "Hall", "list") == 1.0
    assert score(["garden", "hall"], "kitchen", "list") == 0.0
    assert score(["3", "4"], "4", "list") == 1.0  # integer-like candidates scored as integers
    assert score(["garden", "hall"], "gardn", "list") == pytest.approx(1 - 1 / 6)


def test_not_answerable_f1() -> None:
    assert is_not_answerable("Not answerable.")
    assert not is_not_answerable("kitchen")
    rows = [
        ("kitchen", "kitchen", 1.0),  # answered right
        ("hall", "garden", 0.0),  # answered wrong
        ("garden", "not answerable", 0.0),  # missed an answerable question
        ("not answerable", "not answerable", 1.0),  # refused a false premise
        ("not answerable", "hall", 0.0),  # answered a false premise
    ]
    t = totals(rows)
    assert t.accuracy == pytest.approx(2 / 5)
    assert t.precision == pytest.approx(1 / 3)  # over the 3 answered
    assert t.recall == pytest.approx(1 / 3)  # over the 3 answerable
    assert t.f1 == pytest.approx(1 / 3)
    assert totals([("not answerable", "not answerable", 1.0)]).f1 == 0.0
    assert totals([]).n == 0


@pytest.mark.parametrize("reply, expected", [
    ('{"answer": "kitchen", "explanation": "seen at step 3"}', "kitchen"),
    ("Answer: 12\nbecause ...", "12"),
    ("\n  hall\n", "hall"),
    ("step 26", "26"),  # the 1.5B copies the recall's "step N" form: the number the rules ask for
    ('{"answer": "Step 106."}', "106"),
    ("steps 3 and 4", "steps 3 and 4"),
    ("go to step 2 room", "go to step 2 room"),
])
def test_extract_answer(reply: str, expected: str) -> None:
    assert extract_answer(reply) == expected
