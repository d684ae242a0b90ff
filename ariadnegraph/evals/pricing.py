"""Model prices for the cost column: USD per 1M input (prompt) and output (completion) tokens.

The built-in table is the providers' public list prices as of :data:`PRICES_AS_OF`; prices change, so
``--prices FILE.json`` overrides or extends it: ``{"openai:gpt-4o": {"input": 2.5, "output": 10}}``
(or ``[2.5, 10]``). A model with no price has an *unknown* cost (``None``, shown as "?"), never 0:
only ``scripted`` is free. Local servers (vLLM, Ollama) have no list price; give one with ``--prices``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

PRICES_AS_OF = "2025-06"


@dataclass(frozen=True)
class Price:
    input: float  # USD per 1M prompt tokens
    output: float  # USD per 1M completion tokens

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1_000_000


DEFAULT_PRICES: dict[str, Price] = {
    "scripted": Price(0.0, 0.0),
    "none": Price(0.0, 0.0),  # no language model: nothing is asked
    "openai:gpt-4o": Price(2.50, 10.00),
    "openai:gpt-4o-mini": Price(0.15, 0.60),
    "openai:gpt-4.1": Price(2.00, 8.00),
    "openai:gpt-4.1-mini": Price(0.40, 1.60),
    "openai:gpt-4.1-nano": Price(0.10, 0.40),
    "openai:gpt-4-turbo": Price(10.00, 30.00),
    "openai:gpt-4-0125-preview": Price(10.00, 30.00),
    "openai:o3-mini": Price(1.10, 4.40),
    "openai:o4-mini": Price(1.10, 4.40),
    "anthropic:claude-3-5-haiku-latest": Price(0.80, 4.00),
    "anthropic:claude-3-5-sonnet-latest": Price(3.00, 15.00),
    "anthropic:claude-3-7-sonnet-latest": Price(3.00, 15.00),
    "anthropic:claude-sonnet-4-0": Price(3.00, 15.00),
    "anthropic:claude-opus-4-0": Price(15.00, 75.00),
    "google_genai:gemini-2.0-flash": Price(0.10, 0.40),
    "google_genai:gemini-2.5-flash": Price(0.30, 2.50),
    "google_genai:gemini-2.5-pro": Price(1.25, 10.00),
}


MOST_USD = 100_000  # per 1M tokens: far above any list price; a larger one (or an infinite one) is a typo


class PriceFileError(ValueError):
    """A ``--prices`` file that cannot be read as a price table."""


def load_prices(path: str | Path | None = None) -> dict[str, Price]:
    """The built-in table, updated from ``path`` when given."""
    prices = dict(DEFAULT_PRICES)
    if path is None:
        return prices
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise PriceFileError(f"cannot read prices file {path}: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise PriceFileError(
            f'prices file {path} must map \'provider:model\' to {{"input": USD, "output": USD}} per 1M tokens'
        )
    for model, value in data.items():
        try:
            pair = (value["input"], value["output"]) if isinstance(value, dict) else tuple(value)
            if len(pair) != 2 or any(isinstance(usd, bool) for usd in pair):  # true is no amount
                raise ValueError
            price = Price(float(pair[0]), float(pair[1]))
        except (KeyError, TypeError, ValueError, IndexError):
            raise PriceFileError(
                f'prices file {path}: bad price for {model!r}, want {{"input": USD, "output": USD}}'
            ) from None
        if not all(0 <= usd <= MOST_USD for usd in (price.input, price.output)):  # NaN compares false: refused
            raise PriceFileError(
                f"prices file {path}: the price for {model!r} must be two USD amounts from 0 to {MOST_USD:,}, got "
                f"{price.input:g} and {price.output:g}"
            )
        prices[model] = price
    return prices


def episode_cost(prices: dict[str, Price], model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for an episode's tokens, or None when the model has no price (unknown, not free)."""
    price = prices.get(model)
    return None if price is None else round(price.cost(prompt_tokens, completion_tokens), 6)
