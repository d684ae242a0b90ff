"""Entity and relation normalisation: one canonical node per thing the agent has seen.

An LLM names the same object "the Red Apple", "red apple" and "red apples"; all three must land on one
graph node or retrieval and fact closing break. Names are never split on commas: "salt, pepper mix" is
one entity (AriGraph's parser dropped such triplets).
"""

from __future__ import annotations

import re
from functools import lru_cache

_ARTICLES = ("a ", "an ", "the ", "some ")
# Plural forms that the suffix rules below would get wrong.
_IRREGULAR_PLURALS = {
    "knives": "knife",
    "leaves": "leaf",
    "shelves": "shelf",
    "loaves": "loaf",
    "wolves": "wolf",  # ScienceWorld's animals ("wolves" was "wolve")
    "calves": "calf",
    "halves": "half",
    "geese": "goose",
    "potatoes": "potato",
    "tomatoes": "tomato",
    "mangoes": "mango",
    "men": "man",
    "women": "woman",
    "children": "child",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
}
# Words ending in "s" that are singular already.
_SINGULAR_S = {"glass", "gas", "bus", "lens", "chess", "grass", "dress", "bass", "news", "pancreas", "series"}
_WORD = re.compile(r"[^\s]+")


def singularize(word: str) -> str:
    """Simple English singular of one lower-case word; unknown shapes are returned unchanged."""
    if word in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[word]
    if len(word) <= 3 or not word.endswith("s") or not word.isalpha() or word in _SINGULAR_S:
        return word
    if word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    return word[:-1]


@lru_cache(maxsize=4096)
def _normalize_relation(relation: str) -> str:
    text = " ".join(str(relation).lower().replace("_", " ").split())
    for copula in ("is ", "are ", "was ", "were "):
        if text.startswith(copula) and len(text) > len(copula):
            text = text[len(copula) :]
            break
    return text


def normalize_relation(relation: str) -> str:
    """Canonical relation label: lower case, single spaces, no leading copula ("is in" → "in")."""
    return _normalize_relation(relation if isinstance(relation, str) else str(relation))


def _clean(name: str) -> str:
    return " ".join(str(name).split()).strip(" \t\"'`.:;!?")


@lru_cache(maxsize=1 << 16)
def _base_key(name: str) -> str:
    """Key before aliases of a raw name (pure, so cached: the same names come back every step)."""
    return _key_of_clean(_clean(name))


def _key_of_clean(cleaned: str) -> str:
    """Lower case, no leading articles, last word singular."""
    text = cleaned.lower()
    changed = True
    while changed:  # "the some x" is rare but cheap to handle
        changed = False
        for article in _ARTICLES:
            if text.startswith(article) and len(text) > len(article):
                text = text[len(article) :].lstrip()
                changed = True
    words = _WORD.findall(text)
    if words:
        words[-1] = singularize(words[-1])
    return " ".join(words)


class EntityNormalizer:
    """Maps surface names to canonical keys.

    The key is the lower-cased name without leading articles, with its last word singularised, after
    applying aliases (alias → canonical name). Keys are only for identity; the first surface form seen
    is kept for display so prompts and commands use the game's own wording.
    """

    def __init__(self, aliases: dict[str, str] | None = None) -> None:
        self._aliases: dict[str, str] = {}
        for alias, canonical in (aliases or {}).items():
            self.add_alias(alias, canonical)

    @property
    def aliases(self) -> dict[str, str]:
        return dict(self._aliases)

    def restore_aliases(self, aliases: dict[str, str]) -> None:
        """Put back the alias table exactly as saved (keys already normalised)."""
        self._aliases.update(aliases)

    def add_alias(self, alias: str, canonical: str) -> None:
        """Make ``alias`` resolve to the same key as ``canonical``."""
        self._aliases[self._base_key(alias)] = self._base_key(canonical)

    @staticmethod
    def clean(name: str) -> str:
        """Display form: whitespace folded and stray quotes/punctuation at the ends removed."""
        return _clean(name)

    def _base_key(self, name: str) -> str:
        if type(self).clean is not EntityNormalizer.clean:  # a subclass cleans names its own way
            return _key_of_clean(self.clean(name))
        return _base_key(name if isinstance(name, str) else str(name))

    def key(self, name: str) -> str:
        """Canonical key for ``name`` (aliases applied transitively, cycles ignored)."""
        key = self._base_key(name)
        seen = {key}
        while key in self._aliases and self._aliases[key] not in seen:
            key = self._aliases[key]
            seen.add(key)
        return key
