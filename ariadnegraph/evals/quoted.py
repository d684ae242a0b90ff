"""Numbers the papers report for their own systems, transcribed exactly, to sit beside ours in the
suite tables (always labelled "quoted", with the model each system used and the table it comes from).

Sources are the copies in ``shared/papers``. A value the paper does not give, or that is not legible
in our copy, is ``None`` and shows as "—"; nothing here is recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class QuotedRow:
    """One system's row of a paper table: ``cells`` maps our group names to the paper's values."""

    system: str
    model: str
    source: str
    cells: dict[str, object] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """'Reflexion (GPT-4o) — quoted, STMA table 1; ours: reflexion' (the preset that plays it here)."""
        ours = PLAYED_HERE.get(self.system)
        return f"{self.system} ({self.model}) — quoted, {self.source}" + (f"; ours: {ours}" if ours else "")


# The preset (or ablation cell) that plays each quoted system here, so a table's quoted row names the row of ours to
# read it against. Quoted systems with no entry are not built: NOT_PLAYED_HERE says why.
PLAYED_HERE: dict[str, str] = {
    "ReAct": "react",
    "Reflexion": "reflexion",
    "AdaPlanner": "adaplanner",
    "STMA": "stma",
    "Full History": "full_history",
    "Summary": "summary",
    "RAG": "rag",
    "AriGraph": "arigraph",
    "AriGraph w/o exploration": "--ablate arigraph",
    "AriGraph w/o episodic": "--ablate arigraph",
    **{
        cell: "--ablate stma-table2"
        for cell in (
            "STMA w/o Spatio-Temporal Memory",
            "STMA w/o Summarizer",
            "STMA w/o Summarizer for Spatial Memory",
            "STMA w/o Spatial Memory",
            "STMA w/o Relation Aggregator",
            "STMA w/o Critic",
        )
    },
    "AgentKit": "agentkit",
    "SayCan": "saycan",
    "RAP": "rap",
    "Simulacra": "simulacra",
    "DAVIS": "davis",
}
NOT_PLAYED_HERE: dict[str, str] = {
    "Human Top-3": "people",
    "Human All": "people",
    "Human Experts": "people",
    "Ariadne (Room obs)": "AriGraph's NetHack agent: arigraph on nethack is ours, not its room-observation setup",
    "NetPlay (Room obs)": "not built (Jeurissen et al.)",
    "NetPlay (Level obs)": "not built (Jeurissen et al.)",
    "SPRING": "not built: reads the Crafter paper's LaTeX (Wu et al. 2023)",
    "CoT": "not built",
    "TALES zero-shot agent": "not built: TALES's agent writes a free-text command from the history (react is nearest)",
    "Random": "not built",
}


# --- STMA (Lei et al. 2025), table 1 (baselines + STMA) and table 2 (ablations, Qwen2.5-72b).
# Per level: (success rate %, average score %, std of the average score %), 8 games per level.
_STMA_T1 = "STMA table 1"
_STMA_T2 = "STMA table 2"
STMA_COOKING: tuple[QuotedRow, ...] = (
    QuotedRow(
        "ReAct",
        "GPT-4o",
        _STMA_T1,
        {"1": (100.0, 100.0, 0.0), "2": (62.5, 76.5, 31.9), "3": (50.0, 65.0, 39.4), "4": (25.0, 43.3, 37.9)},
    ),
    QuotedRow(
        "Reflexion",
        "GPT-4o",
        _STMA_T1,
        {"1": (100.0, 100.0, 0.0), "2": (62.5, 78.6, 30.3), "3": (50.0, 60.0, 40.9), "4": (25.0, 51.0, 31.9)},
    ),
    QuotedRow(
        "AdaPlanner",
        "GPT-4o",
        _STMA_T1,
        {"1": (87.5, 90.6, 24.8), "2": (37.5, 51.8, 43.4), "3": (0.0, 3.8, 4.8), "4": (0.0, 1.9, 3.3)},
    ),
    QuotedRow(
        "STMA",
        "GPT-4o",
        _STMA_T1,
        {"1": (100.0, 100.0, 0.0), "2": (75.0, 91.1, 15.9), "3": (75.0, 87.5, 26.3), "4": (37.5, 60.6, 38.5)},
    ),
    QuotedRow(
        "ReAct",
        "Qwen2.5-72b",
        _STMA_T1,
        {"1": (75.0, 75.0, 43.3), "2": (37.5, 60.7, 34.1), "3": (12.5, 37.5, 31.9), "4": (0.0, 16.3, 9.0)},
    ),
    QuotedRow(
        "Reflexion",
        "Qwen2.5-72b",
        _STMA_T1,
        {"1": (100.0, 100.0, 0.0), "2": (37.5, 60.7, 32.5), "3": (25.0, 61.2, 28.0), "4": (0.0, 19.2, 7.7)},
    ),
    QuotedRow(
        "AdaPlanner",
        "Qwen2.5-72b",
        _STMA_T1,
        {"1": (100.0, 100.0, 0.0), "2": (37.5, 53.6, 41.5), "3": (0.0, 3.8, 4.8), "4": (0.0, 3.8, 5.4)},
    ),
    QuotedRow(
        "STMA",
        "Qwen2.5-72b",
        _STMA_T1,
        {"1": (100.0, 100.0, 0.0), "2": (100.0, 100.0, 0.0), "3": (62.5, 81.2, 27.6), "4": (25.0, 58.7, 30.3)},
    ),
    QuotedRow(
        "STMA w/o Spatio-Temporal Memory",
        "Qwen2.5-72b",
        _STMA_T2,
        {"1": (0.0, 0.0, 0.0), "2": (0.0, 0.0, 0.0), "3": (0.0, 0.0, 0.0), "4": (0.0, 0.0, 0.0)},
    ),
    QuotedRow(
        "STMA w/o Summarizer",
        "Qwen2.5-72b",
        _STMA_T2,
        {"1": (87.5, 87.5, 33.1), "2": (100.0, 100.0, 0.0), "3": (25.0, 55.0, 32.8), "4": (12.5, 49.0, 28.5)},
    ),
    QuotedRow(
        "STMA w/o Summarizer for Spatial Memory",
        "Qwen2.5-72b",
        _STMA_T2,
        {"1": (100.0, 100.0, 0.0), "2": (50.0, 65.0, 40.6), "3": (12.5, 37.5, 31.9), "4": (12.5, 37.5, 35.1)},
    ),
    QuotedRow(
        "STMA w/o Spatial Memory",
        "Qwen2.5-72b",
        _STMA_T2,
        {"1": (87.5, 93.8, 16.5), "2": (75.0, 91.1, 15.9), "3": (50.0, 65.0, 40.6), "4": (12.5, 30.8, 28.0)},
    ),
    QuotedRow(
        "STMA w/o Relation Aggregator",
        "Qwen2.5-72b",
        _STMA_T2,
        {"1": (100.0, 100.0, 0.0), "2": (87.5, 96.4, 9.4), "3": (62.5, 71.2, 37.2), "4": (25.0, 51.0, 34.8)},
    ),
    QuotedRow(
        "STMA w/o Critic",
        "Qwen2.5-72b",
        _STMA_T2,
        {"1": (100.0, 100.0, 0.0), "2": (75.0, 85.7, 25.8), "3": (50.0, 70.0, 33.5), "4": (0.0, 26.0, 31.0)},
    ),
)

# --- AriGraph (Anokhin et al. 2024), table 4 (appendix G): normalised score per game, "average of
# three best runs" of five attempts (section 5.1). LLM backbone gpt-4-0125-preview (section 4.1)
# except the row that names LLaMA-3-70B. Keys are our game names; our hunt_hardest is generated (evals.suites), not theirs.
_ARI_T4 = "AriGraph table 4"
_GPT4 = "gpt-4-0125-preview"
_ARI_GAMES = ("hunt", "hunt_hard", "hunt_hardest", "cook", "cook_hard", "cook_hardest", "clean")


def _ari(system: str, model: str, *values: float | None) -> QuotedRow:
    return QuotedRow(system, model, _ARI_T4, dict(zip(_ARI_GAMES, values, strict=True)))


ARIGRAPH: tuple[QuotedRow, ...] = (
    _ari("Full History", _GPT4, 0.47, None, None, 0.18, None, None, 0.05),
    _ari("Summary", _GPT4, 0.33, 0.17, None, 0.52, 0.21, None, 0.35),
    _ari("RAG", _GPT4, 0.33, 0.17, None, 0.36, 0.17, None, 0.39),
    _ari("Reflexion", _GPT4, 0.93, None, None, 1.0, None, None, 0.27),
    _ari("Simulacra", _GPT4, 0.4, None, None, 0.3, None, None, 0.7),
    _ari("AriGraph", _GPT4, 1.0, 1.0, 1.0, 1.0, 1.0, 0.65, 0.79),
    _ari("AriGraph w/o exploration", _GPT4, 0.87, None, None, 0.87, None, None, 0.76),
    _ari("AriGraph w/o episodic", _GPT4, 1.0, 0.67, None, 0.64, 0.45, None, 0.92),
    _ari("AriGraph", "LLaMA-3-70B", 0.47, None, None, 0.67, None, None, 0.5),
    _ari("Human Top-3", "human players", 1.0, None, None, 1.0, None, None, 1.0),
    _ari("Human All", "human players", 0.96, None, None, 0.32, None, None, 0.59),
)

# --- AriGraph appendix F / figure 4 (RL comparison on the GATA cooking levels): the paper shows these
# results only as a bar chart, with no numbers in the text, so nothing is quoted.
GATA_COOKING: tuple[QuotedRow, ...] = ()
GATA_COOKING_NOTE = (
    "AriGraph reports this comparison (Ariadne and GPT-4 full history vs GATA, LTL-GATA, EXPLORER) only "
    "as a chart (figure 4, appendix F); it gives no numbers to quote."
)

# --- DAVIS (Pham-Dinh et al. 2025), table 7: ScienceWorld score (0-100) per task, mean and std over three
# test variations. DAVIS used GPT-4-turbo for reasoning, GPT-4o for QA and LLaMA3-70B for the KG
# (appendix B); the paper does not name the baselines' model. Our copy of table 7 has no row for
# 3-4 and some subject averages are cut off; those are None. Values: (mean, std).
_DAVIS_T7 = "DAVIS table 7"
_DAVIS_MODEL = "GPT-4-turbo + GPT-4o + LLaMA3-70B"
_BASELINE_MODEL = "model not stated"
DAVIS_SYSTEMS = ("SayCan", "ReAct", "Reflexion", "RAP", "DAVIS")
_DAVIS_TASKS: dict[str, tuple[tuple[float | None, float | None], ...]] = {
    # task: SayCan, ReAct, Reflexion, RAP, DAVIS
    "1-1": ((1.67, 1.5), (2.67, 2.5), (27.67, 41.0), (13.33, 20.55), (25.67, 19.6)),
    "1-2": ((23.33, 40.4), (25.67, 40.2), (1.00, 1.7), (1.67, 2.89), (70.00, 0.0)),
    "1-3": ((3.33, 5.8), (19.33, 25.3), (19.33, 25.3), (6.67, 5.78), (32.00, 27.7)),
    "1-4": ((33.33, 57.7), (24.00, 39.0), (35.33, 56.0), (0.00, 0.00), (70.67, 0.6)),
    "2-1": ((6.00, 3.0), (4.00, 3.5), (9.00, 0.0), (30.33, 47.43), (83.00, 29.4)),
    "2-2": ((7.67, 0.6), (6.33, 0.6), (17.33, 18.8), (8.67, 15.02), (79.67, 35.2)),
    "2-3": ((61.00, 48.3), (27.67, 39.3), (5.67, 0.6), (22.33, 20.40), (92.33, 13.3)),
    "3-1": ((30.33, 40.4), (30.33, 40.4), (23.33, 34.5), (39.00, 33.05), (82.33, 15.7)),
    "3-2": ((22.67, 26.4), (19.33, 29.3), (14.33, 20.6), (35.33, 27.31), (68.67, 27.1)),
    "3-3": ((23.33, 27.5), (5.00, 5.0), (39.00, 34.5), (38.00, 35.03), (58.33, 2.9)),
    "4-1": ((11.33, 9.8), (17.00, 0.0), (72.33, 47.9), (61.00, 38.1), (100.00, 0.0)),
    "4-2": ((36.00, 34.8), (58.33, 28.9), (100.00, 0.0), (19.33, 9.8), (83.33, 14.4)),
    "4-3": ((22.33, 4.6), (75.00, 0.0), (91.67, 14.4), (58.33, 36.0), (100.00, 0.0)),
    "4-4": ((50.00, 43.3), (17.00, 0.0), (100.00, 0.0), (39.00, 38.1), (100.00, 0.0)),
    "5-1": ((16.67, 14.4), (9.00, 3.6), (3.67, 4.6), (50.00, 73.99), (35.67, 2.9)),
    "5-2": ((13.00, 4.6), (72.67, 47.3), (72.67, 47.3), (16.00, 13.89), (18.00, 6.2)),
    "6-1": ((16.67, 11.5), (23.33, 11.5), (56.67, 37.9), (53.33, 5.78), (36.67, 5.8)),
    "6-2": ((26.33, 2.3), (20.67, 18.0), (83.33, 28.9), (22.67, 21.60), (53.67, 40.5)),
    "6-3": ((4.33, None), (14.33, 5.1), (14.33, 7.5), (77.00, 0.00), (70.00, 0.0)),
    "7-1": ((75.00, 43.3), (66.67, 28.9), (50.00, 0.0), (16.67, 28.86), (100.00, 0.0)),
    "7-2": ((83.33, 28.9), (66.67, 28.9), (33.33, 14.4), (16.67, 28.86), (83.33, 28.9)),
    "7-3": ((33.00, 0.0), (22.00, 19.1), (22.33, 9.2), (5.67, 9.81), (83.00, 0.0)),
    "8-1": ((13.33, 6.1), (15.00, 22.6), (4.00, 4.0), (38.00, 25.98), (2.67, 2.3)),
    "8-2": ((17.33, 4.6), (8.00, 0.0), (2.67, 4.6), (11.33, 9.81), (20.00, 0.0)),
    "9-1": ((5.00, 5.0), (0.00, 0.0), (36.67, 54.8), (30.00, 30.00), (76.67, 40.4)),
    "9-2": ((6.67, 7.6), (11.67, 12.6), (8.33, 2.9), (30.00, 0.00), (60.00, 34.6)),
    "9-3": ((11.67, 16.1), (0.00, 0.0), (38.33, 53.5), (43.44, 23.28), (56.67, 37.9)),
    "10-1": ((6.00, 9.5), (39.00, 53.5), (6.33, 9.2), (3.33, 5.78), (100.00, 0.0)),
    "10-2": ((5.67, 9.8), (11.33, 9.8), (6.33, 9.2), (10.33, 10.50), (44.67, 47.9)),
}
# Subject averages as printed in table 7 (None where our copy cuts the number off).
_DAVIS_SUBJECTS: dict[str, tuple[float | None, ...]] = {
    "Matter": (15.42, 17.92, 20.83, 5.42, 49.58),
    "Thermodynamics": (None, None, 10.67, 20.44, 85.00),
    "Electricity": (None, None, 36.0, None, 68.5),
    "Biology": (None, 41.83, 91.00, 44.42, 95.83),
    "Botany": (None, None, 38.17, 33.00, 26.83),
    "Chemistry": (None, None, 51.4, None, 53.4),
    "Lifespan and Life Stages": (None, None, 22.47, 17.67, 57.80),
    "Physics": (7.7, 3.89, 27.78, 34.48, 64.44),
    "Genetics": (5.8, None, 6.33, 6.83, 72.33),
}
DAVIS_OVERALL = 65.06  # DAVIS's overall average score (section 4)


def _davis_row(index: int) -> QuotedRow:
    system = DAVIS_SYSTEMS[index]
    cells: dict[str, object] = {task: values[index] for task, values in _DAVIS_TASKS.items()}
    cells.update({subject: values[index] for subject, values in _DAVIS_SUBJECTS.items()})
    return QuotedRow(system, _DAVIS_MODEL if system == "DAVIS" else _BASELINE_MODEL, _DAVIS_T7, cells)


SCIENCEWORLD: tuple[QuotedRow, ...] = tuple(_davis_row(i) for i in range(len(DAVIS_SYSTEMS)))

# --- TALES (Cui et al. 2025, arXiv:2504.14128), TextWorldExpress column of its leaderboard
# (microsoft/tale-suite, docs/website/_includes/table.md at commit fdbdf2b): the mean over the 16 TWX
# settings of the best normalised score reached in 100 steps, %, one zero-shot episode per setting.
# Per-setting scores are published only as a figure, so only the column's mean ("all") is quoted.
_TALES = "TALES leaderboard, TWX column"
TALES_TWX: tuple[QuotedRow, ...] = tuple(
    QuotedRow("TALES zero-shot agent", model, _TALES, {"all": score})
    for model, score in (
        ("claude-3.7-sonnet", 95.8),
        ("gpt-4.1", 92.5),
        ("o3 (medium)", 91.9),
        ("Qwen2.5-72B-Instruct", 83.8),
        ("gpt-4o", 80.6),
        ("gpt-4o-mini", 73.6),
        ("Llama-3.1-8B-Instruct", 50.3),
        ("Qwen2.5-7B-Instruct", 45.6),
        ("Llama-3.2-3B-Instruct", 42.0),
        ("Llama-3.2-1B-Instruct", 19.0),
        ("Phi-4-mini-instruct", 5.5),
    )
)
TALES_TWX_NOTE = (
    "TALES's own agent, zero-shot, by default without the list of valid commands (ours are given it), "
    "seed index 0 of the test split, 100 steps; per-setting scores are only in a figure (—)."
)

# --- NetHack: AriGraph table 1 (section 5.2), GPT-4o, 3 runs: in-game score and dungeon levels, mean ± std.
_ARI_NH = "AriGraph table 1"
NETHACK: tuple[QuotedRow, ...] = (
    QuotedRow("Ariadne (Room obs)", "GPT-4o", _ARI_NH, {"score": (593.00, 202.62), "levels": (6.33, 2.31)}),
    QuotedRow("NetPlay (Room obs)", "GPT-4o", _ARI_NH, {"score": (341.67, 109.14), "levels": (3.67, 1.15)}),
    QuotedRow("NetPlay (Level obs)", "GPT-4o", _ARI_NH, {"score": (675.33, 130.27), "levels": (7.33, 1.15)}),
)
NETHACK_NOTE = (
    "not the same protocol. AriGraph played NetPlay's agent and NetPlay's own text observations, cut to the "
    "current room or corridor (Room obs) or covering the whole explored level (Level obs), with GPT-4o, 3 runs, "
    "and states no step cap; its Levels are dungeon levels completed. BALROG's published progression numbers "
    "are online only and not quoted."
)

# --- Crafter: AgentKit table 1. "Score" is Crafter's score (a geometric mean of achievement success rates),
# "Reward" the episode reward (about one per achievement unlocked, plus health changes).
_AK_T1 = "AgentKit table 1"
CRAFTER: tuple[QuotedRow, ...] = (
    QuotedRow("Human Experts", "—", _AK_T1, {"score": "50.5±6.8%", "reward": "14.3±2.3"}),
    QuotedRow(
        "AgentKit", "GPT-4-0613 + GPT-4-turbo + GPT-3.5-turbo", _AK_T1, {"score": "20.64%", "reward": "12.8±2.1"}
    ),
    QuotedRow("SPRING", "GPT-4", _AK_T1, {"score": "27.3±1.2%", "reward": "12.3±0.7"}),
    QuotedRow("SPRING", "GPT-4-turbo", _AK_T1, {"score": "7.74%", "reward": "7.1±3.4"}),
    QuotedRow("CoT", "GPT-4-turbo", _AK_T1, {"score": None, "reward": "3.9±1.6"}),
    QuotedRow("Random", "—", _AK_T1, {"score": "1.6±0.0%", "reward": "2.1±1.3"}),
)
