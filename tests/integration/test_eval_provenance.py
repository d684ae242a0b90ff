"""Eval provenance (evals/provenance.py): every record says which code played it and digests every setting that
changes an episode; an --out holding records of other settings is refused before anything is played; the tables
give each cell's n and 95% intervals and name a protocol override in their caption."""

from __future__ import annotations

import re

import pytest

from ariadnegraph.cli import main
from ariadnegraph.evals.intervals import bootstrap_mean, wilson
from ariadnegraph.evals.plan import EvalError, EvalRequest
from ariadnegraph.evals.planning import plan_eval
from ariadnegraph.evals.records import read_records
from ariadnegraph.evals.runner import run_eval

SMALL = {"groups": ["1"], "per_group": 2, "max_steps": 3}


def test_wilson_and_the_bootstrap_give_the_known_intervals():
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(0, 10)[1] == pytest.approx(0.2775, abs=1e-4)
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)
    assert bootstrap_mean([0.5, 0.5, 0.5]) == (0.5, 0.5)
    low, high = bootstrap_mean([0.0, 1.0, 0.0, 1.0])
    assert 0.0 <= low < 0.5 < high <= 1.0
    assert bootstrap_mean([0.0, 1.0, 0.0, 1.0]) == (low, high)


def test_records_carry_their_provenance_and_an_out_of_other_settings_is_refused(tmp_path, monkeypatch):
    out = tmp_path / "out"
    records = run_eval(plan_eval(EvalRequest(suite="stma-cooking", presets=["react"], model="scripted", out=out, **SMALL)), progress=False)
    assert len(records) == 2
    for record in records:
        made = record["provenance"]
        assert isinstance(made["version"], str)
        assert re.fullmatch(r"[0-9a-f]{16}", made["settings"])
        assert made["commit"] is None or re.fullmatch(r"[0-9a-f]{40}", made["commit"])
    table = (out / "table.md").read_text()
    assert "**Not the paper's protocol:** 3 steps an episode (the protocol's: 50); a subset: 2 of the protocol's 32" in table
    assert "## n and 95% intervals per cell" in table
    assert re.search(r"\| react \(scripted\) \| 1 \| 2 \| \S+ \[\S+, \S+\] \|", table)
    assert "- played by: ariadnegraph " in (out / "report.md").read_text()
    assert "success_low" in (out / "results.csv").read_text().splitlines()[0]
    # the eval's page: each cell links to its episodes; `ariadne eval` writes each episode's report and links it
    assert 'href="runs/' not in (out / "index.html").read_text()  # run_eval alone writes no report
    assert main(["eval", "stma-cooking", "--preset", "react", "--model", "scripted", "--levels", "1", "--games", "2",
                 "--max-steps", "3", "--out", str(out)]) == 0  # fmt: skip
    page = (out / "index.html").read_text()
    assert "Not the paper&#x27;s protocol" in page or "Not the paper's protocol" in page
    for record in records:
        link = f'href="runs/{record["run_id"]}/report.html"'
        assert link in page
        assert (out / "runs" / record["run_id"] / "report.html").is_file()
    assert re.search(r'<td>react \(scripted \(rule-based test double, not a language model\)\)</td><td>all</td><td><a href="#cell-\d+">2</a></td>', page)
    assert "http" not in page
    # the same plan resumes; another step limit or another ARIADNE_* setting into the same --out is refused
    plan_eval(EvalRequest(suite="stma-cooking", presets=["react"], model="scripted", out=out, **SMALL))
    with pytest.raises(EvalError, match=r"holds episodes played with other settings \(steps=3 \(here: steps=4\)\)"):
        plan_eval(EvalRequest(suite="stma-cooking", presets=["react"], model="scripted", out=out, **{**SMALL, "max_steps": 4}))
    monkeypatch.setenv("ARIADNE_QA_TURNS", "1")
    with pytest.raises(EvalError, match="played with other settings \\(an ARIADNE_\\* variable"):
        plan_eval(EvalRequest(suite="stma-cooking", presets=["react"], model="scripted", out=out, **SMALL))
    assert len(read_records(out / "episodes.jsonl")) == 2  # nothing written by the refusals
