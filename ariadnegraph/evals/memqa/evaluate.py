"""Runs -> questions -> answers -> scores: the memory-QA pipeline behind ``ariadne memqa``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ...agent.integrity import checked_copies
from ...models import metered
from ...models.doubles import check_answers_with_a_model
from ...runs import RunDir
from .answerers import ANSWERERS, check_answerers, extract_answer, make_answerer
from .episodes import load_episode
from .generate import PER_TYPE, QAItem, generate
from .paraphrase import paraphrase
from .scorer import score

OFF = "off"  # --paraphrase off: the generated wording


def run_model(run_dir: str | Path, run_id: str) -> str:
    """The model the run was played with (the default answerer model)."""
    return (RunDir.open(run_dir, run_id).meta().get("context") or {}).get("model") or "scripted"


def questions(
    run_dir: str | Path, run_id: str, *, horizon: int | None = None, per_type: int = PER_TYPE, seed: int = 42
) -> list[QAItem]:
    return generate(load_episode(run_dir, run_id), horizon=horizon, per_type=per_type, seed=seed)


def evaluate(
    run_dir: str | Path,
    run_ids: Sequence[str],
    *,
    answerers: Sequence[str] = ANSWERERS,
    horizon: int | None | Sequence[int | None] = None,
    per_type: int = PER_TYPE,
    seed: int = 42,
    model: str | None = None,
    base_url: str | None = None,
    paraphrase_with: str | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """One scored row per (question, answerer): the item, the reply, the extracted prediction, the score, and what
    answering cost (``usage``: model calls and tokens; a memory agent's rows also carry ``ingest_usage``, what
    building its memory of that run up to that horizon cost, the same on each of them).
    ``paraphrase_with``: None rewrites questions with the answering model (a real one; the scripted
    double rewrites nothing), "off" keeps the generated wording, else the model that rewrites them."""
    check_answerers(answerers)
    with checked_copies(run_dir, run_ids) as copies:  # read from checked copies: the runs' files are never written
        return _evaluate(
            copies,
            run_ids,
            answerers=answerers,
            horizon=horizon,
            per_type=per_type,
            seed=seed,
            model=model,
            base_url=base_url,
            paraphrase_with=paraphrase_with,
            on_row=on_row,
        )


def _evaluate(
    run_dir: Path,
    run_ids: Sequence[str],
    *,
    answerers: Sequence[str],
    horizon: int | None | Sequence[int | None],
    per_type: int,
    seed: int,
    model: str | None,
    base_url: str | None,
    paraphrase_with: str | None,
    on_row: Callable[[dict[str, Any]], None] | None,
) -> list[dict[str, Any]]:
    rows = []
    horizons: list[int | None] = [horizon] if horizon is None or isinstance(horizon, int) else list(horizon)
    for run_id, at in ((r, h) for r in run_ids for h in horizons):  # several horizons: accuracy against rounds played
        items = questions(run_dir, run_id, horizon=at, per_type=per_type, seed=seed)
        chosen = model or run_model(run_dir, run_id)
        check_answers_with_a_model(chosen, "memory QA")
        meta = RunDir.open(run_dir, run_id).meta()
        episode_seed = meta.get("variation") if meta.get("variation") is not None else meta.get("seed")
        original = {item.id: item.question for item in items}
        if paraphrase_with != OFF:
            items = paraphrase(items, paraphrase_with or chosen, base_url)
        for kind in answerers:
            answer = make_answerer(kind, run_dir, run_id, chosen, base_url)
            for item in items:
                with metered() as meter:  # a memory agent's building of its memory is metered apart, inside
                    reply = answer(item)
                prediction = extract_answer(reply)
                row = {
                    **item.to_dict(),
                    "answerer": kind,
                    "model": chosen,
                    "env": meta.get("env"),
                    "preset": (meta.get("context") or {}).get("preset"),
                    "seed": episode_seed,
                    "reply": reply,
                    "prediction": prediction,
                    "score": score(item.answer, prediction, item.answer_type),
                    "paraphrased": item.question != original[item.id],
                    "usage": meter.usage.to_dict(),
                }
                ingested = getattr(answer, "ingest_usage", {}).get(item.horizon)
                if ingested is not None:
                    row["ingest_usage"] = ingested.to_dict()
                rows.append(row)
                if on_row:
                    on_row(row)
    return rows
