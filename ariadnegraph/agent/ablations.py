"""The papers' ablation grids (``ariadne eval --ablate NAME``): each a list of variants of a preset, its cells named
as the paper's table names them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .presets import HISTORY_BUFFER, PRESETS


@dataclass(frozen=True)
class Variant:
    """One cell of an ablation grid: a label, the preset it starts from and the switches it changes."""

    label: str
    preset: str
    switches: dict[str, Any]


_NO_KG = {"knowledge_graph": False, "retrieval": "none", "aggregator": "off"}


_APPEND_ONLY = {"invalidate": False}  # DAVIS's TKG: G_{t+1} = G_t ∪ {(v_i, e_i, v_k, τ)}, nothing removed (§3.2)


ABLATIONS: dict[str, tuple[Variant, ...]] = {
    # STMA table 2 (section 5.3), each cell as the paper describes it.
    "stma-table2": (
        Variant("STMA", "stma", {}),
        # no memory at all: no belief, no KG, no history beyond the current observation
        Variant("STMA w/o Spatio-Temporal Memory", "stma", {**_NO_KG, "summarizer": False, "summarizer_history": 0}),
        # the history buffer goes to the planner as it is instead of the belief; the KG is still extracted
        # from the summarized information, so the summarizer keeps running for the relation retriever
        Variant(
            "STMA w/o Summarizer",
            "stma",
            {"belief_shown": False, "history_length": HISTORY_BUFFER, "history_full_text": True},
        ),
        # the relation retriever reads the raw history buffer instead of the belief; the planner keeps the belief
        Variant("STMA w/o Summarizer for Spatial Memory", "stma", {"extraction_reads": "history"}),
        Variant("STMA w/o Spatial Memory", "stma", dict(_NO_KG)),
        # the retrieved triples go to the planner as a raw list instead of the aggregator's spatial belief
        Variant("STMA w/o Relation Aggregator", "stma", {"aggregator": "off", "memory_facts_shown": True}),
        Variant("STMA w/o Critic", "stma", {"precheck": False, "outcome_check": False}),
    ),
    # DAVIS tables 1-2, on the paper's KG (timestamped facts only appended, never closed): the full model
    # (D+W), without the world model (D), without the actor (D-A: the world model's commands are sent as
    # written, no grounding, no expansion into several commands, no 'go to' walk; plan length and predicted rewards
    # unchanged), without
    # the critic (D-C: no reflections and no critique in the replanning feedback; a mismatch still triggers
    # the replan). The last cell is ours, not the paper's: the davis preset closing contradicted facts. (The preset
    # itself only appends, as the paper's KG; each paper cell still says so, for a grid run with --set.)
    "davis": (
        Variant("D+W", "davis", {**_APPEND_ONLY}),
        Variant("D (no world model)", "davis", {**_APPEND_ONLY, **_NO_KG, "qa_turns": 0}),
        Variant("D-A", "davis", {**_APPEND_ONLY, "grounding": False, "go_to": False, "actor_commands": 1}),
        Variant("D-C", "davis", {**_APPEND_ONLY, "reflections": False}),
        Variant("D+W with fact invalidation (ours)", "davis", {"invalidate": True}),
    ),
    # AriGraph appendix C (figure 6): the graph built by the preset's pipeline while the commands are drawn at random
    # (no planner, no exploration check, no choice), beside AriGraph playing; the tables show each one's growth.
    "arigraph-random-walk": (
        Variant("AriGraph", "arigraph", {}),
        Variant(
            "AriGraph random walk",
            "arigraph",
            {
                "random_walk": True,
                "planner": "never",
                "react_choice": False,
                "exploration_check": False,
                "plan_form": "actions",
            },
        ),
    ),
    # AriGraph table 4: without exploration (no exploration check, no unexplored exits), without episodic memory.
    "arigraph": (
        Variant("AriGraph", "arigraph", {}),
        Variant("AriGraph w/o exploration", "arigraph", {"exploration_check": False, "unexplored_exits": False}),
        Variant("AriGraph w/o episodic", "arigraph", {"episodic_k": 0}),
    ),
}


def cell_changes(variant: Variant, overrides: dict[str, Any]) -> dict[str, Any]:
    """The switches ``overrides`` (``--set``) change in what ``variant`` plays, with the values played."""
    cell = replace(PRESETS[variant.preset], **variant.switches)
    played = replace(cell, **overrides)
    return {name: getattr(played, name) for name in overrides if getattr(played, name) != getattr(cell, name)}


def cell_label(variant: Variant, overrides: dict[str, Any]) -> str:
    """A cell's label, naming the switches ``--set`` changed in what the cell plays (it is then not the paper's)."""
    changed = cell_changes(variant, overrides)
    if not changed:
        return variant.label
    return f"{variant.label} [{', '.join(f'{name}={switch_text(value)}' for name, value in changed.items())}]"


def switch_text(value: Any) -> str:
    """A switch's value as ``--set`` writes it (true, none, 25)."""
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def ablation(name: str) -> tuple[Variant, ...]:
    try:
        return ABLATIONS[name]
    except KeyError:
        raise ValueError(f"unknown ablation grid '{name}' (choose {', '.join(ABLATIONS)})") from None
