"""Each paper's table as its paper lays it out, our cells beside the paper's own numbers (labelled quoted), and the
Markdown an eval's report prints: that table, then the tables every suite shares (``tables``)."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from ..models.doubles import measures
from . import quoted
from .crafter_score import crafter_score
from .pricing import PRICES_AS_OF
from .suites import ARIGRAPH_TOP, NETHACK_MAX_STEPS, SCIENCEWORLD_SUBJECTS, Suite
from .tables import (
    ALL,
    MISSING,
    cell_index,
    diagnostics_table,
    fidelity_table,
    markdown_table,
    number,
    ours_label,
    percent,
    resources_table,
    trials_table,
    uncertainty_table,
)

ARIGRAPH_TITLES = {
    "hunt": "Treasure Hunt",
    "hunt_hard": "Treasure Hunt Hard",
    "hunt_hardest": "Treasure Hunt Hardest",
    "cook": "Cooking",
    "cook_hard": "Cooking Hard",
    "cook_hardest": "Cooking Hardest",
    "clean": "Cleaning",
}


def _stma(suite: Suite, records: Sequence[Mapping[str, Any]]) -> str:
    """STMA tables 1-2: per level, success rate (%) and average score (% mean ± std)."""
    levels = [g for g in suite.groups() if any(r["group"] == g for r in records)]
    header = ["system"] + [f"L{level} {m}" for level in levels for m in ("SR", "AS")]
    rows = _our_rows(
        records, levels, lambda c: [percent(c.success), f"{100 * c.norm_score:.1f}±{100 * c.norm_std:.1f}"], width=2
    )
    for q in quoted.STMA_COOKING:
        rows.append([q.label] + [v for level in levels for v in _stma_quoted(q.cells.get(level))])
    note = (
        "SR: success rate (%); AS: average normalised score (%) ± standard deviation over the level's games "
        "(population std). Quoted rows: STMA ran 8 generated games per level, 50 steps; its games are not ours "
        "(same generator settings, different seeds)."
    )
    return markdown_table(header, rows) + "\n\n" + note


def _stma_quoted(value: object) -> list[str]:
    if value is None:
        return [MISSING, MISSING]
    sr, avg, std = cast(tuple[float, float, float], value)
    return [f"{sr:.1f}", f"{avg:.1f}±{std:.1f}"]


def _our_rows(
    records: Sequence[Mapping[str, Any]], groups: Sequence[str], figures: Callable[[Any], list[str]], width: int = 1
) -> list[list[str]]:
    """One row per (preset, model) of ours: its label, then ``figures`` of each group (``width`` cells)."""
    systems, table = cell_index(records)
    rows = []
    for preset, model in systems:
        row = [ours_label(table[(preset, model, ALL)])]
        for group in groups:
            c = table.get((preset, model, group))
            row += [MISSING] * width if c is None else figures(c)
        rows.append(row)
    return rows


def _arigraph(suite: Suite, records: Sequence[Mapping[str, Any]]) -> str:
    """AriGraph table 4: normalised score per game, the mean of the three best of five attempts."""
    games = list(ARIGRAPH_TITLES)
    header = ["system"] + [ARIGRAPH_TITLES[g] for g in games]
    rows = _our_rows(
        records, games, lambda c: [f"{c.top_mean:.2f} (best {c.best:.2f}, mean {c.norm_score:.2f}, n={c.episodes})"]
    )
    for q in quoted.ARIGRAPH:
        rows.append([q.label] + [number(q.cells.get(g)) for g in games])  # type: ignore[arg-type]
    note = (
        f"Ours: mean of the {ARIGRAPH_TOP} best attempts per game (AriGraph's estimate), with the best and the mean "
        "attempt and the number of attempts. Our Treasure Hunt Hardest is generated (TextWorld's treasure hunter, "
        "hardest "
        "mode, level 30 seed 2: 20 rooms, 3 keys, one point for the win), not the paper's game (36 rooms, 7 keys in "
        "lockers with notes): its column is not comparable with the quoted rows."
    )
    return markdown_table(header, rows) + "\n\n" + note


def _gata(suite: Suite, records: Sequence[Mapping[str, Any]]) -> str:
    """AriGraph appendix F: normalised score per GATA cooking level."""
    levels = [g for g in suite.groups() if any(r["group"] == g for r in records)]
    header = ["system"] + [f"Level {level}" for level in levels]
    rows = _our_rows(
        records, levels, lambda c: [f"{c.norm_score:.2f}±{c.norm_std:.2f} (success {percent(c.success)}%)"]
    )
    return markdown_table(header, rows) + "\n\n" + quoted.GATA_COOKING_NOTE


def _scienceworld(suite: Suite, records: Sequence[Mapping[str, Any]]) -> str:
    """DAVIS table 7: score (0-100, mean and std over the test variations) per task, grouped by subject
    with the subject's average on its own row; our presets first, then the quoted systems."""
    systems, table = cell_index(records)
    by_preset: dict[tuple[str, str], dict[str, list[float]]] = {}
    for r in records:
        by_preset.setdefault((r["preset"], r["model"]), {}).setdefault(r["group"], []).append(100 * r["norm_score"])
    header = ["task"] + [f"{p} ({m}) {s}" for p, m in systems for s in ("mean", "std")]
    header += [f"{q.system} quoted {s}" for q in quoted.SCIENCEWORLD for s in ("mean", "std")]
    rows = []
    for subject, tasks in SCIENCEWORLD_SUBJECTS.items():
        row = [f"**{subject}**"]
        for system in systems:
            means = [statistics.fmean(by_preset[system][t]) for t in tasks if t in by_preset[system]]
            row += [f"**{statistics.fmean(means):.2f}**" if means else MISSING, ""]
        row += [
            v
            for q in quoted.SCIENCEWORLD
            for v in (f"**{number(q.cells.get(subject))}**" if q.cells.get(subject) is not None else MISSING, "")  # type: ignore[arg-type]
        ]
        rows.append(row)
        for task in tasks:
            row = [task]
            for system in systems:
                scores = by_preset[system].get(task)
                row += (
                    [f"{statistics.fmean(scores):.2f}", f"{statistics.pstdev(scores):.1f}"]
                    if scores
                    else [MISSING, MISSING]
                )
            for q in quoted.SCIENCEWORLD:
                mean, std = cast(tuple[float | None, float | None], q.cells.get(task) or (None, None))
                row += [number(mean), number(std, 1)]
            rows.append(row)
    legend = "; ".join(
        f"{q.system}: {q.model}" + (f", ours: {quoted.PLAYED_HERE[q.system]}" if q.system in quoted.PLAYED_HERE else "")
        for q in quoted.SCIENCEWORLD
    )
    note = (
        f"Scores are ScienceWorld's 0-100, averaged over {suite.name}'s test variations. Quoted: "
        f"{quoted.SCIENCEWORLD[0].source} "
        f"({legend}); DAVIS's overall average is {quoted.DAVIS_OVERALL}. Our copy of table 7 has no row for 3-4 and "
        "cuts off some subject averages (—). Protocol differences: DAVIS drew three test variations at random, ours "
        "are the first three; its retrieval agents (RAP, DAVIS) began with gold rollouts of five training variations "
        "per task, ours begin with an empty memory unless the run reads one (--memory-from, filled by "
        "'ariadne memory seed-gold')."
    )
    return markdown_table(header, rows) + "\n\n" + note


def _tales(suite: Suite, records: Sequence[Mapping[str, Any]]) -> str:
    """TALES's TWX column: per setting, the best normalised score reached in the episode (%, mean over
    its seeds), with wins and invalid actions; the overall mean; quoted TALES rows beside ours."""
    settings = [g for g in suite.groups() if any(r["group"] == g for r in records)]
    systems = list(dict.fromkeys((r["preset"], r["model"]) for r in records))
    from ..envs.twx_env import TWX_SETTINGS  # TALES's names for the settings (a static table)

    header = ["system", "TWX (all)", *(TWX_SETTINGS[g].tales_name if g in TWX_SETTINGS else g for g in settings)]
    rows = []
    for preset, model in systems:
        mine = [r for r in records if (r["preset"], r["model"]) == (preset, model)]
        row = [f"{preset} ({model})", _tales_cell(mine)]
        row += [_tales_cell([r for r in mine if r["group"] == g]) for g in settings]
        rows.append(row)
    for q in quoted.TALES_TWX:
        rows.append(
            [q.label, number(q.cells.get(ALL), 1)] + [number(q.cells.get(g), 1) for g in settings]  # type: ignore[arg-type]
        )
    note = (
        "Ours: best normalised score reached during the episode (%, TALES's score), mean over the setting's seeds; "
        "w: episodes won of those played; inv: commands outside the game's valid actions (total). "
        f"Quoted rows: {quoted.TALES_TWX_NOTE}"
    )
    return markdown_table(header, rows) + "\n\n" + note


def _tales_cell(records: Sequence[Mapping[str, Any]]) -> str:
    if not records:
        return MISSING
    best = statistics.fmean(100 * r.get("best_norm_score", r["norm_score"]) for r in records)
    wins = sum(1 for r in records if r["won"])
    invalid = [int(r["invalid_actions"]) for r in records if r.get("invalid_actions") is not None]
    return f"{best:.1f} (w {wins}/{len(records)}, inv {sum(invalid) if invalid else MISSING})"


def _progression(suite: Suite, records: Sequence[Mapping[str, Any]]) -> str:
    """BALROG-style: progression (% of the way, mean ± std over seeds) per system, with the game's own
    figures (NetHack: in-game score and deepest level; Crafter: achievements unlocked), quoted rows after."""
    nethack = suite.name == "nethack"
    own = (
        ("in-game score", "deepest level", "experience level")
        if nethack
        else ("achievements unlocked", "Crafter score", "reward")
    )
    header = ["system", "episodes", "progression %", *own]
    rows = []
    for preset, model in dict.fromkeys((r["preset"], r["model"]) for r in records):
        mine = [r for r in records if (r["preset"], r["model"]) == (preset, model)]
        rows.append([f"{preset} ({model})", str(len(mine)), *_progression_figures(mine, nethack)])
    quoted_rows, note = _nethack_quoted() if nethack else _crafter_quoted()
    return markdown_table(header, rows + quoted_rows) + "\n\n" + note


def _mean_std(values: Sequence[float], digits: int = 2) -> str:
    return f"{statistics.fmean(values):.{digits}f} ± {statistics.pstdev(values):.{digits}f}"


def _progression_figures(mine: Sequence[Mapping[str, Any]], nethack: bool) -> list[str]:
    """One system's cells: its progression, then the game's own figures."""
    figures = [_mean_std([100 * r.get("best_norm_score", r["norm_score"]) for r in mine], 1)]
    if nethack:
        for key in ("score", "depth", "xlvl"):
            values = [r["peaks"][key] for r in mine if key in (r.get("peaks") or {})]
            figures.append(_mean_std(values) if values else MISSING)
        return figures
    return [*figures, _mean_std([r["score"] for r in mine]), *_crafter_figures(mine)]


def _nethack_quoted() -> tuple[list[list[str]], str]:
    rows = []
    for q in quoted.NETHACK:
        score, levels = cast(tuple[float, float], q.cells["score"]), cast(tuple[float, float], q.cells["levels"])
        rows.append(
            [
                q.label,
                "3 runs",
                MISSING,
                f"{score[0]:.2f} ± {score[1]:.2f}",
                f"{levels[0]:.2f} ± {levels[1]:.2f}",
                MISSING,
            ]
        )
    note = (
        "Progression: BALROG's measure, the larger of the milestones for the deepest dungeon level and the highest "
        f"experience level reached (envs/nethack_progress.py). Quoted rows: {quoted.NETHACK_NOTE} Ours differ in the "
        "observation layer and the step cap: our own text over NLE (the message, the eight neighbouring squares, what "
        "is visible farther off, the status lines, the inventory), not NetPlay's Room or Level obs, and at most "
        f"{NETHACK_MAX_STEPS} steps per episode (the NetHack Challenge, a random role); the quoted Levels sit in our "
        "deepest-level column though they count levels completed. Read them as context, not as a comparison."
    )
    return rows, note


def _crafter_quoted() -> tuple[list[list[str]], str]:
    rows = [
        [
            q.label,
            MISSING,
            MISSING,
            MISSING,
            str(q.cells.get("score") or MISSING),
            str(q.cells.get("reward") or MISSING),
        ]
        for q in quoted.CRAFTER
    ]
    note = (
        "Progression: achievements unlocked of Crafter's 22 (BALROG's measure). Crafter score: the Crafter paper's "
        "geometric mean over the 22 achievements of their success rates across the system's episodes, "
        "exp(mean ln(1 + s_i)) - 1 in %; reward: Crafter's episode reward (+1 per achievement unlocked, ±0.1 per "
        "health point gained or lost), mean ± std over episodes (evals/crafter_score.py). AgentKit's rows are "
        "10,000-step episodes: ours are shorter when the step budget is, so compare loosely."
    )
    return rows, note


def _crafter_figures(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Crafter's score over the episodes and their mean reward ("—" when no episode recorded them)."""
    unlocked = [r["achievements"] for r in records if r.get("achievements") is not None]
    rewards = [float(r["reward"]) for r in records if isinstance(r.get("reward"), (int, float))]
    score = f"{crafter_score(unlocked):.2f}%" if unlocked else MISSING
    reward = _mean_std(rewards) if rewards else MISSING
    return [score, reward]


def _emembench(suite: Suite, records: Sequence[Mapping[str, Any]]) -> str:
    """EMemBench's episodes: per game, the normalised score reached and the steps played (its results are the
    memory-QA accuracy of these runs, which `ariadne memqa` prints)."""
    games = [g for g in suite.groups() if any(r["group"] == g for r in records)]
    header = ["system"] + games
    rows = _our_rows(records, games, lambda c: [f"{100 * c.norm_score:.1f} ({c.steps:.0f} steps, n={c.episodes})"])
    note = (
        "Normalised score (%) and steps played, mean over the game's seeds. EMemBench reports no game score: its "
        "table is the accuracy of the questions asked of these runs (`ariadne memqa --play emembench` plays and asks)."
    )
    return markdown_table(header, rows) + "\n\n" + note


LAYOUTS: dict[str, Callable[[Suite, Sequence[Mapping[str, Any]]], str]] = {
    "stma": _stma,
    "arigraph": _arigraph,
    "gata": _gata,
    "scienceworld": _scienceworld,
    "tales": _tales,
    "progression": _progression,
    "emembench": _emembench,
}


def markdown_tables(suite: Suite, records: Sequence[Mapping[str, Any]]) -> str:
    """The paper-layout table, the resources table and (TextWorld) the memory-fidelity table, as Markdown."""
    notes = [note for m in dict.fromkeys(r["model"] for r in records) if (note := measures(m))]
    parts = [
        f"## {suite.name}: results in the layout of {suite.paper}",
        *notes,
        LAYOUTS[suite.layout](suite, records),
        "## n and 95% intervals per cell",
        uncertainty_table(records),
        "Each cell's episodes (n), its success rate with Wilson's 95% interval and its mean normalised score with a "
        "95% percentile bootstrap interval (2,000 resamples); the tables above give population standard deviations "
        "where their papers do.",
        "## Cost and resources per cell",
        resources_table(records),
        f'Means per episode; cost is the cell\'s total at list prices as of {PRICES_AS_OF} ("?" = no known price). '
        "KG precision/recall: memory fidelity against the game's true facts (— when not measured).",
    ]
    by_trial = trials_table(records)
    if by_trial is not None:
        parts += [
            "## Success by trial",
            by_trial,
            "An episode failed at trial k is played again with the lessons the model wrote after each failed trial "
            "(Reflexion); a won episode counts as won for every later trial.",
        ]
    diagnostics = diagnostics_table(records)
    if diagnostics is not None:
        parts += [
            "## Per-role diagnostics",
            diagnostics,
            "Each role's mistakes against the game's truth (`ariadnegraph/evals/diagnostics.py`, `ariadne diagnose "
            "RUN`), "
            "means per episode: shares of plan steps valid and on a winning path (TextWorld), counts of the actor's "
            "drifts, the critic's wrong verdicts, extracted facts that cannot hold, notes no tool returned, "
            "repeated (place, inventory, command) and the longest run of steps without a score.",
        ]
    fidelity = fidelity_table(records)
    if fidelity is not None:
        parts += [
            "## Memory fidelity",
            fidelity,
            "The agent's KG at every step against the game's true facts (`ariadnegraph/evals/fidelity.py`): "
            "precision over the facts memory holds as current, recall over the true facts about what the agent "
            "had observed, coverage over all true facts; micro-averaged over an episode's steps, then averaged "
            "over episodes. — : memory held no fact of that kind (a preset without a KG has no precision).",
        ]
    return "\n\n".join(parts) + "\n"
