"""The memory stream of Generative Agents (Park et al. 2023), AriGraph's "Simulacra" baseline (§4.1): each
observation is scored, when retrieved, by recency, importance and relevance, each min-max normalised over the
candidates and added with equal weights; reflections are written once the importance of what was observed since
the last one adds up to a threshold. Pure functions over steps and scores: the retriever keeps the scores."""

from __future__ import annotations

from collections.abc import Mapping

RECENCY_DECAY = 0.995  # Park et al.: recency decays by 0.995 a game hour; here a step (ours)
REFLECT_AT = 150  # Park et al.: reflect once the importance of the events since the last reflection reaches 150
NEUTRAL_IMPORTANCE = 5  # an observation never rated (a resumed run's older steps) counts as middling


def _normalised(values: Mapping[int, float]) -> dict[int, float]:
    low, high = min(values.values()), max(values.values())
    return {key: (value - low) / (high - low) if high > low else 0.0 for key, value in values.items()}


def generative_ranking(
    relevance: Mapping[int, float], importance: Mapping[int, int], now: int, k: int, decay: float = RECENCY_DECAY
) -> list[int]:
    """The ``k`` steps with the highest recency + importance + relevance, best first (ties: the newer)."""
    if not relevance or k <= 0:
        return []
    recency = _normalised({step: decay ** max(now - step, 0) for step in relevance})
    weight = _normalised({step: float(importance.get(step, NEUTRAL_IMPORTANCE)) for step in relevance})
    similar = _normalised(dict(relevance))
    score = {step: recency[step] + weight[step] + similar[step] for step in relevance}
    return sorted(score, key=lambda step: (-score[step], -step))[:k]


def reflection_due(importance: Mapping[int, int], since: int, threshold: int = REFLECT_AT) -> bool:
    """Whether the importance of the observations after step ``since`` adds up to ``threshold``."""
    return sum(score for step, score in importance.items() if step > since) >= threshold
