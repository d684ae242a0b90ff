"""Results in the layout of EMemBench's table 3: accuracy per ability type, overall accuracy and the
not-answerable F1, one row per answerer; each answerer also split by evidence age (all evidence in
the in-context window of the last 10 turns, or older)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from .questions import ABILITIES
from .scorer import totals

AGES = ("all", "recent", "old")
_SHORT = {
    "Single-Hop": "Single",
    "Multi-Hop": "Multi",
    "Inducing": "Induct",
    "Spatial": "Spatial",
    "Temporal": "Temporal",
    "Logical": "Logical",
    "Adversarial": "Advers",
}


def summarize(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """answerer -> age -> {ability: accuracy or None, "acc", "f1", "n"} from scored rows (each with
    answerer, ability, age, answer, prediction, score)."""
    rows = list(rows)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for answerer in dict.fromkeys(r["answerer"] for r in rows):
        out[answerer] = {}
        for age in AGES:
            chosen = [r for r in rows if r["answerer"] == answerer and (age == "all" or r["age"] == age)]
            cell: dict[str, Any] = {}
            for ability in ABILITIES:
                scores = [r["score"] for r in chosen if r["ability"] == ability]
                cell[ability] = 100 * sum(scores) / len(scores) if scores else None
                cell[f"n_{ability}"] = len(scores)
            t = totals((r["answer"], r["prediction"], r["score"]) for r in chosen)
            cell.update(acc=100 * t.accuracy, f1=100 * t.f1, n=t.n)
            out[answerer][age] = cell
    return out


def table(summary: dict[str, dict[str, dict[str, Any]]], ages: Sequence[str] = AGES) -> str:
    """Fixed-width text table: ACC per ability, Overall ACC and F1 (percent), n = questions."""
    head = (
        f"{'answerer':<13} {'evidence':<8}"
        + "".join(f"{_SHORT[a]:>9}" for a in ABILITIES)
        + f"{'ACC':>8}{'F1':>7}{'n':>6}"
    )
    lines = [head, "-" * len(head)]
    for answerer, by_age in summary.items():
        for age in ages:
            cell = by_age[age]
            values = "".join(f"{cell[a]:>9.1f}" if cell[a] is not None else f"{'-':>9}" for a in ABILITIES)
            lines.append(f"{answerer:<13} {age:<8}{values}{cell['acc']:>8.1f}{cell['f1']:>7.1f}{cell['n']:>6}")
    return "\n".join(lines)


def by_rounds(rows: Iterable[dict[str, Any]]) -> dict[str, dict[int, dict[str, float]]]:
    """answerer -> rounds played (the last step questions may use) -> {"acc", "n"}: EMemBench's accuracy
    against rounds of play (figure 3), over runs of different lengths or horizons of one run."""
    groups: dict[str, dict[int, list[float]]] = {}
    for r in rows:
        groups.setdefault(r["answerer"], {}).setdefault(int(r["horizon"]), []).append(float(r["score"]))
    return {
        a: {k: {"acc": 100 * sum(v) / len(v), "n": len(v)} for k, v in sorted(g.items())} for a, g in groups.items()
    }


def pearson(points: Sequence[tuple[float, float]]) -> float | None:
    """Pearson's r of (x, y) points; None with fewer than three or no spread."""
    if len(points) < 3:
        return None
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    sxy = sum((x - mx) * (y - my) for x, y in points)
    sxx, syy = sum((x - mx) ** 2 for x, _ in points), sum((y - my) ** 2 for _, y in points)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else None


def rounds_table(rows: Iterable[dict[str, Any]]) -> str:
    """Accuracy per answerer at each number of rounds played, with Pearson's r (rounds, accuracy)."""
    found = by_rounds(rows)
    every = sorted({k for g in found.values() for k in g})
    if len(every) < 2:
        return ""
    head = f"{'answerer':<13}" + "".join(f"{'<=' + str(k):>9}" for k in every) + f"{'r':>8}"
    lines = ["accuracy against rounds played (EMemBench fig. 3; n per cell in the --out rows)", head, "-" * len(head)]
    for answerer, cells in found.items():
        values = "".join(f"{cells[k]['acc']:>9.1f}" if k in cells else f"{'-':>9}" for k in every)
        r = pearson([(k, c["acc"]) for k, c in cells.items()])
        shown = f"{r:.2f}" if r is not None else "-"
        lines.append(f"{answerer:<13}{values}{shown:>8}")
    return "\n".join(lines)


def by_seed(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str, str, str], dict[str, float]]:
    """(game, preset, model, answerer) -> the episode's seed (a variation, else the game seed; "-" when none) ->
    accuracy (percent) over the questions of that seed's runs: EMemBench's stability across seeds (§5.1), each
    agent on each game apart, so the spread is the seeds' and not the agents' or the games'."""
    groups: dict[tuple[str, str, str, str], dict[str, list[float]]] = {}
    for r in rows:
        seed = "-" if r.get("seed") is None else str(r["seed"])
        key = (str(r.get("env")), str(r.get("preset")), str(r.get("model")), str(r["answerer"]))
        groups.setdefault(key, {}).setdefault(seed, []).append(float(r["score"]))
    return {key: {s: 100 * sum(v) / len(v) for s, v in sorted(g.items())} for key, g in groups.items()}


def seed_stability(rows: Iterable[dict[str, Any]]) -> str:
    """Per game, agent and answerer played on two seeds or more: the accuracy per seed and its standard deviation
    (as EMemBench §5.1 reports it, a fraction: 0.0364 for GPT-5.1 on text games); empty when none was."""
    found = {key: cells for key, cells in by_seed(rows).items() if len(cells) > 1}
    if not found:
        return ""
    lines = ["stability across seeds (EMemBench §5.1): accuracy per seed, and its SD"]
    for (env, preset, model, answerer), cells in found.items():
        shown = ", ".join(f"{seed} {acc:.1f}" for seed, acc in cells.items())
        sd = statistics.stdev(acc / 100 for acc in cells.values())
        lines.append(f"{env} {preset} ({model}) {answerer}: {shown}   SD {sd:.4f}")
    return "\n".join(lines)


COST_KEYS = ("calls", "prompt_tokens", "completion_tokens")


def costs(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """answerer -> {"ingest", "answer"} -> model calls and tokens: answering summed over the questions, a memory
    agent's building of its memories once per (run, horizon) it was built for (rows without usage count nothing)."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    built: set[tuple[str, str, Any]] = set()
    for r in rows:
        cell = out.setdefault(r["answerer"], {part: dict.fromkeys(COST_KEYS, 0) for part in ("ingest", "answer")})
        for key in COST_KEYS:
            cell["answer"][key] += int((r.get("usage") or {}).get(key, 0))
        built_for = (r["answerer"], str(r.get("run_id")), r.get("horizon"))
        if r.get("ingest_usage") and built_for not in built:
            built.add(built_for)
            for key in COST_KEYS:
                cell["ingest"][key] += int(r["ingest_usage"].get(key, 0))
    return out


def cost_table(found: dict[str, dict[str, dict[str, int]]]) -> str:
    """What each answerer cost: model calls and tokens (prompt + completion) to build its memory, and to answer."""
    if not found:
        return ""
    head = f"{'answerer':<13}{'memory calls':>14}{'tokens':>12}{'answer calls':>14}{'tokens':>12}"
    lines = [
        "model calls and tokens (prompt + completion) per answerer: building its memory, answering (the memory "
        "answerer's KG was built while the run was played: that cost is the run's)",
        head,
    ]
    lines.append("-" * len(head))
    for answerer, cell in found.items():
        ingest, answer = cell["ingest"], cell["answer"]
        lines.append(
            f"{answerer:<13}{ingest['calls']:>14}{ingest['prompt_tokens'] + ingest['completion_tokens']:>12}"
            f"{answer['calls']:>14}{answer['prompt_tokens'] + answer['completion_tokens']:>12}"
        )
    return "\n".join(lines)


def counts(summary: dict[str, dict[str, dict[str, Any]]]) -> str:
    """Questions per ability and evidence age (the same for every answerer)."""
    first = next(iter(summary.values()), None)
    if first is None:
        return ""
    return "questions per type (recent/old): " + ", ".join(
        f"{_SHORT[a]} {first['recent'][f'n_{a}']}/{first['old'][f'n_{a}']}" for a in ABILITIES
    )
