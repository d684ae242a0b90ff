"""EMemBench's scorer (appendix A.5), rule by rule.

Both sides are normalised (lower case, trimmed, parenthesised spans removed, surrounding quotes
stripped). Strings: exact match for URL/file/page/phone/a.m.-p.m./date/e-mail-like references, else
ANLS with threshold 0.5 (a similarity must be *above* 0.5 to count). Integers: both sides cast from
forms like "1", "1.0", " 1 ", "1%". Floats: equal after rounding to an adaptive precision (at least
two decimals), or within 1% relative, against g/100, g and 100g. Lists: the best score over the
candidates. Overall: accuracy is the mean score; F1 treats "not answerable" as the negative class.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

NOT_ANSWERABLE = "not answerable"
ANLS_THRESHOLD = 0.5
FLOAT_TOLERANCE = 0.01

_PARENS = re.compile(r"\([^()]*\)")
_QUOTES = "\"'`“”‘’"
_EXACT = [
    re.compile(r"^(?:https?://|www\.)\S+$"),  # URL
    re.compile(r"^[\w\-. /]+\.[a-z0-9]{1,5}$"),  # file name
    re.compile(r"^(?:p|pp|page)\.?\s*\d+(?:\s*-\s*\d+)?$"),  # page-like identifier
    re.compile(r"^\+?\(?\d{2,4}\)?[\s.\-]\d{3,4}[\s.\-]\d{3,4}$"),  # phone number
    re.compile(r"\d\s*(?:a\.m\.|p\.m\.)"),  # time with a.m./p.m.
    re.compile(r"^\d{4}-\d{2}(?:-\d{2})?$"),  # date YYYY-MM(-DD)
    re.compile(r"^[\w.+\-]+@[\w\-]+\.[\w.\-]+$"),  # e-mail
]


def normalize(text: object) -> str:
    s = str(text).lower().strip()
    while _PARENS.search(s):
        s = _PARENS.sub("", s)
    s = s.strip()
    while len(s) >= 2 and s[0] in _QUOTES and s[-1] in _QUOTES:
        s = s[1:-1].strip()
    return s


def levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def anls(gold: str, pred: str, threshold: float = ANLS_THRESHOLD) -> float:
    """1 - d_lev / max length, kept only when above the threshold (normalised inputs)."""
    if not gold and not pred:
        return 1.0
    s = 1.0 - levenshtein(gold, pred) / max(len(gold), len(pred))
    return s if s > threshold else 0.0


def needs_exact(gold: str) -> bool:
    return any(p.search(gold) for p in _EXACT)


def score_string(gold: object, pred: object) -> float:
    g, p = normalize(gold), normalize(pred)
    return float(g == p) if needs_exact(g) else anls(g, p)


def parse_integer(text: object) -> int | None:
    s = normalize(text).replace(" ", "").rstrip("%")
    try:
        value = float(s)
    except ValueError:
        return None
    return int(value) if value.is_integer() else None


def score_integer(gold: object, pred: object) -> float:
    g, p = parse_integer(gold), parse_integer(pred)
    return float(g is not None and g == p)


def _parse_float(text: object) -> float | None:
    try:
        return float(normalize(text).replace(" ", "").rstrip("%"))
    except ValueError:
        return None


def _decimals(text: object) -> int:
    s = normalize(text).rstrip("%")
    return len(s.split(".", 1)[1]) if "." in s else 0


def score_float(gold: object, pred: object) -> float:
    g, p = _parse_float(gold), _parse_float(pred)
    if g is None or p is None:
        return 0.0
    digits = max(2, _decimals(gold))
    for target in (g / 100, g, g * 100):
        if round(target, digits) == round(p, digits):
            return 1.0
        if target == 0 and p == 0 or target != 0 and abs(p - target) <= FLOAT_TOLERANCE * abs(target):
            return 1.0
    return 0.0


def _atomic(gold: object, pred: object) -> float:
    """A list candidate scored by its own look: integer-like candidates as integers, else strings."""
    if isinstance(gold, bool) or not isinstance(gold, (int, float)) and parse_integer(gold) is None:
        return score_string(gold, pred)
    return score_integer(gold, pred)


def score(gold: object, pred: object, answer_type: str) -> float:
    """One prediction against its reference, by the reference's answer type."""
    if answer_type == "list" or isinstance(gold, (list, tuple)):
        candidates = gold if isinstance(gold, (list, tuple)) else [gold]
        return max((_atomic(c, pred) for c in candidates), default=0.0)
    if answer_type == "integer":
        return score_integer(gold, pred)
    if answer_type == "float":
        return score_float(gold, pred)
    return score_string(gold, pred)


def is_not_answerable(text: object) -> bool:
    return normalize(text).rstrip(".!") == NOT_ANSWERABLE


@dataclass(frozen=True)
class Totals:
    n: int
    accuracy: float
    precision: float
    recall: float
    f1: float


def totals(scored: Iterable[tuple[object, object, float]]) -> Totals:
    """Accuracy and the not-answerable F1 over ``(gold, prediction, score)`` triples: precision over
    predictions that are not "not answerable", recall over references that are not."""
    rows: Sequence[tuple[object, object, float]] = list(scored)
    if not rows:
        return Totals(0, 0.0, 0.0, 0.0, 0.0)
    accuracy = sum(s for _, _, s in rows) / len(rows)
    answered = [s for _, p, s in rows if not is_not_answerable(p)]
    answerable = [s for g, _, s in rows if not (isinstance(g, str) and is_not_answerable(g))]
    precision = sum(answered) / len(answered) if answered else 0.0
    recall = sum(answerable) / len(answerable) if answerable else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Totals(len(rows), accuracy, precision, recall, f1)
