"""Pronouns written as the things they refer to, before facts are extracted from a text: DAVIS (§3.2) resolves
coreference with CoreNLP; these rules stand in for it (``nodes/relation_retriever``, the ``davis`` preset)."""

from __future__ import annotations

import re

from .text import ARTICLES, is_movement

_SENTENCE_BREAK = re.compile(r"((?<=[.!?])\s+|\s*\n+\s*)")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*|[,;:()\"]")
_PRONOUN = re.compile(r"\b(it|its|they|them)\b", re.IGNORECASE)
_NUMBERS = frozenset({"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"})
_DETERMINERS = ARTICLES | _NUMBERS
_PREPOSITIONS = frozenset(
    {
        "about", "above", "across", "against", "along", "among", "around", "at", "behind", "below", "beneath",
        "beside", "between", "by", "for", "from", "in", "inside", "into", "near", "of", "off", "on", "onto", "out",
        "over", "through", "to", "toward", "towards", "under", "underneath", "upon", "with", "within", "without",
    }
)  # fmt: skip
# words that end a named thing's phrase ("a chest that is locked": the chest): conjunctions, verbs, adverbs
_PHRASE_ENDS = _PREPOSITIONS | frozenset(
    {
        "and", "or", "but", "nor", "so", "then", "that", "which", "who", "where", "when", "while", "as", "than",
        "is", "are", "was", "were", "be", "been", "has", "have", "had", "can", "could", "will", "would", "seems",
        "looks", "lies", "sits", "stands", "rests", "here", "there", "now", "nearby", "too", "very", "you", "it",
    }
)  # fmt: skip
_STATE_WORDS = frozenset({"open", "opened", "closed", "locked", "unlocked"})  # a state, not part of the thing's name
_NOT_THINGS = frozenset({"lot", "bit", "few", "couple", "moment", "while", "time", "way", "thing", "same", "other"})
_PHRASE_WORDS = 4  # the longest name a rule takes ("a closed wooden chest of drawers": "wooden chest")
# "it" that names nothing ("It seems...", "It is dark here")
_EXPLETIVE = re.compile(
    r"\s+(?:seems|appears|looks like|is (?:too |very |quite |getting )?(?:dark|light|raining|time|late|early|possible|"
    r"impossible|hard|difficult|easy|useless|no use|not possible))\b"
    r"|\s+is\s*[!?.]",  # "Is that what I think it is? It is!" (TextWorld's rooms): it refers to nothing
    re.IGNORECASE,
)


def _named_things(sentence: str) -> list[tuple[int, str, bool, bool]]:
    """The things a sentence names with a determiner ("a chest", "the red apple", "two coins"), in order: (where the
    name starts, the name, plural, inside a prepositional phrase: "on the table")."""
    tokens = list(_TOKEN.finditer(sentence))
    found = []
    for i, token in enumerate(tokens):
        determiner = token.group().lower()
        if determiner not in _DETERMINERS:
            continue
        words: list[str] = []
        for follower in tokens[i + 1 : i + 1 + _PHRASE_WORDS]:
            word = follower.group()
            if not word[0].isalnum() or word.lower() in _PHRASE_ENDS or word.lower() in _DETERMINERS:
                break
            words.append(word)
        while len(words) > 1 and words[0].lower() in _STATE_WORDS:
            words = words[1:]
        if not words or words[-1].lower() in _NOT_THINGS:
            continue
        last = words[-1].lower()
        plural = determiner in _NUMBERS or (
            determiner not in ("a", "an") and last.endswith("s") and not last.endswith(("ss", "us", "is"))
        )
        in_phrase = i > 0 and tokens[i - 1].group().lower() in _PREPOSITIONS
        found.append((token.start(), " ".join(words), plural, in_phrase))
    return found


def _antecedent(named: list[tuple[int, str, bool, bool]], plural: bool) -> str | None:
    """The thing a pronoun after ``named`` refers to: the last one (of its number) not inside a prepositional phrase
    ("There is an apple on the table": the apple), else the last one."""
    fitting = [n for n in named if n[2] == plural]
    best = [n for n in fitting if not n[3]] or fitting
    return best[-1][1] if best else None


def last_named(text: str) -> str | None:
    """The thing a text names last, by the rules of :func:`resolve_pronouns` (None: it names none)."""
    return _antecedent(_named_things(text), plural=False)


def command_thing(command: str | None) -> str | None:
    """The thing a command acts on ("take red apple from fridge": red apple); None for a move or a bare verb."""
    if not command or is_movement(command):
        return None
    words = [w for w in command.lower().split()[1:] if w not in ARTICLES]
    while words and (words[0] in _PREPOSITIONS or words[0] in ("up", "down")):  # "look at chest", "pick up coin"
        words = words[1:]
    cut = next((i for i, w in enumerate(words) if w in _PREPOSITIONS), len(words))
    return " ".join(words[:cut]) or None


def _resolved_sentence(sentence: str, singular: str | None, plural: str | None) -> str:
    """One sentence's pronouns written as ``singular`` ('it', 'its') or ``plural`` ('they', 'them') when it names
    nothing before them."""
    named = _named_things(sentence)

    def written(match: re.Match[str]) -> str:
        word = match.group()
        if any(start < match.start() for start, *_ in named):  # named in its own sentence first: left as it is
            return word
        lower = word.lower()
        thing = plural if lower in ("they", "them") else singular
        if thing is None or sentence[match.end() : match.end() + 1] in ("'", "\u2019"):  # no thing; "it's": left
            return word
        if lower == "it" and _EXPLETIVE.match(sentence, match.end()):
            return word
        name = f"the {thing}" + ("'s" if lower == "its" else "")
        return name[0].upper() + name[1:] if word[0].isupper() else name

    return _PRONOUN.sub(written, sentence)


def resolve_pronouns(text: str, named_before: str | None = None) -> str:
    """``text`` with 'it', 'its', 'they' and 'them' written as the thing they refer to, by rules: a pronoun in a
    sentence that names nothing before it is the last thing named (not inside a prepositional phrase) in the
    sentences before it, or ``named_before`` (what the text follows: the command's thing, or the previous
    observation's) for the first; 'they'/'them' only a thing named in the plural. A pronoun with no such thing, 'it'
    that names nothing ("It seems...") and a contraction ("it's") stay. A stand-in for DAVIS's CoreNLP (§3.2): no
    parse, no model."""
    parts = _SENTENCE_BREAK.split(text)
    singular, plural = named_before, None
    for index in range(0, len(parts), 2):  # sentences at even places, the breaks between them at odd ones
        parts[index] = _resolved_sentence(parts[index], singular, plural)
        named = _named_things(parts[index])
        singular = _antecedent(named, plural=False) or singular
        plural = _antecedent(named, plural=True) or plural
    return "".join(parts)
