"""The notes under quoted tables say what differs from the paper's protocol where the rows beside ours
were not played the same way (NetHack: AriGraph played NetPlay's observations with no step cap)."""

from __future__ import annotations

from ariadnegraph.evals.layouts import markdown_tables
from ariadnegraph.evals.suites import NETHACK_MAX_STEPS, get_suite


def _nethack_record(seed: int) -> dict:
    return {"key": f"ariadne|challenge|{seed}|1", "suite": "nethack", "preset": "ariadne", "model": "scripted",
            "env": "nethack:challenge", "group": "challenge", "label": f"challenge seed {seed}", "seed": seed, "variation": None,
            "attempt": 1, "run_id": f"r{seed}", "max_steps": NETHACK_MAX_STEPS, "norm_score": 0.02, "best_norm_score": 0.02,
            "score": 2.0, "max_score": 100.0, "won": False, "steps": NETHACK_MAX_STEPS, "llm_calls": 0, "prompt_tokens": 0,
            "completion_tokens": 0, "cost_usd": 0.0, "wall_seconds": 1.0, "resumed": False, "precision": None, "recall": None,
            "fidelity": None, "peaks": {"score": 12, "depth": 1, "xlvl": 1}}


def test_the_nethack_table_says_what_differs_from_arigraph_table_1():
    md = markdown_tables(get_suite("nethack"), [_nethack_record(0), _nethack_record(1)])
    assert "— quoted, AriGraph table 1 | 3 runs |" in md  # the quoted rows are there ...
    note = md.split("AriGraph table 1", 1)[1]
    # ... under a note that names the protocol gap: the observation layer and the step cap
    assert "not the same protocol" in note
    assert "observation layer" in note
    assert "step cap" in note
    assert "NetPlay" in note
    assert "Room obs" in note
    assert "Level obs" in note
    assert f"at most {NETHACK_MAX_STEPS} steps per episode" in note
    assert "no step cap" in note
    assert "levels completed" in note  # their Levels column is not our deepest level reached


def test_the_scienceworld_table_says_how_davis_chose_variations_and_seeded_memory():
    record = {"key": "davis|4-1|0|1", "suite": "scienceworld", "preset": "davis", "model": "scripted", "env": "scienceworld:x",
              "group": "4-1", "label": "4-1", "seed": None, "variation": 0, "attempt": 1, "run_id": "r0", "max_steps": 80,
              "norm_score": 0.5, "score": 50.0, "max_score": 100.0, "won": False, "steps": 80, "llm_calls": 0, "prompt_tokens": 0,
              "completion_tokens": 0, "cost_usd": 0.0, "wall_seconds": 1.0, "resumed": False, "precision": None, "recall": None,
              "fidelity": None}
    md = markdown_tables(get_suite("scienceworld"), [record])
    assert "at random, ours are the first three" in md
    assert "gold rollouts of five training variations" in md


def test_every_quoted_system_names_the_preset_that_plays_it_here_or_why_none_does() -> None:
    from ariadnegraph.agent.ablations import ABLATIONS
    from ariadnegraph.agent.presets import PRESETS
    from ariadnegraph.evals import quoted

    tables = [value for value in vars(quoted).values() if isinstance(value, tuple)]
    rows = [row for table in tables for row in table if isinstance(row, quoted.QuotedRow)]
    assert {row.system for row in rows} <= quoted.PLAYED_HERE.keys() | quoted.NOT_PLAYED_HERE.keys()
    for played in quoted.PLAYED_HERE.values():
        assert played in PRESETS or played.removeprefix("--ablate ") in ABLATIONS, played
    reflexion = next(row for row in quoted.STMA_COOKING if row.system == "Reflexion")
    assert reflexion.label == "Reflexion (GPT-4o) — quoted, STMA table 1; ours: reflexion"
