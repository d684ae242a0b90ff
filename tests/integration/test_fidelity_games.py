"""Memory fidelity on real games: the scripted extractor's KG on walkthroughs, and a played run via the CLI."""

from __future__ import annotations

import json

import pytest

from ariadnegraph.cli import main
from ariadnegraph.evals.fidelity import episode_fidelity, read_kg, walkthrough_fidelity


@pytest.mark.slow
@pytest.mark.parametrize("spec, options", [("arigraph:cook", {}), ("cooking:2", {"seed": 2})])
def test_scripted_extractor_keeps_a_faithful_kg_on_walkthroughs(spec, options):
    result = walkthrough_fidelity(spec, **options)
    assert result.precision >= 0.9, result.to_dict()["errors"]
    assert result.recall >= 0.8, result.to_dict()["errors"]
    assert 0 < result.coverage <= result.recall
    assert [p.step for p in result.points] == list(range(len(result.points)))


@pytest.mark.slow
def test_played_run_has_a_point_per_step_and_the_cli_prints_them(tmp_path, capsys):
    from ariadnegraph.agent.context import AgentContext
    from ariadnegraph.play import Episode, play

    run = play(Episode("cooking:1", seed=1, max_steps=15), context=AgentContext(run_dir=str(tmp_path)))
    result = episode_fidelity(tmp_path, run["run_id"])
    assert [p.step for p in result.points] == list(range(run["steps"] + 1))
    for point in result.points:
        assert all(v is None or 0 <= v <= 1 for v in (point.precision, point.recall, point.coverage))
    assert 0 <= result.precision <= 1
    assert 0 <= result.recall <= 1
    assert set(result.by_relation) >= {"location", "adjacency"}

    assert main(["fidelity", run["run_id"], "--run-dir", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert f"precision {result.precision:.2f}, recall {result.recall:.2f}" in text
    assert "\n    0 " in text
    assert main(["fidelity", run["run_id"], "--run-dir", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["points"]) == len(result.points)
    assert data["recall"] == result.recall

    (tmp_path / run["run_id"] / "oracle.jsonl").unlink()
    for run_id, message in ((run["run_id"], "oracle.jsonl is missing"), ("no-such-run", "no run 'no-such-run'")):
        assert main(["fidelity", run_id, "--run-dir", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("ariadne: error: ")
        assert message in err
        assert err.count("\n") == 1


def _hold_a_wrong_fact(run_dir, run_id: str, triplet: tuple[str, str, str]) -> None:
    """Write a false fact into a run's memory, held from step 0 on (as a bad extraction would have)."""
    from ariadnegraph.memory import EventLog
    from ariadnegraph.memory.world import MEMORY_FILE
    from ariadnegraph.runs import RunDir

    path = RunDir.open(run_dir, run_id).memory_path
    kg, _ = read_kg(path)
    log = EventLog(path / MEMORY_FILE)
    try:
        log.append([("fact", kg.make_fact(*triplet, step=0).to_dict())])
    finally:
        log.close()


@pytest.mark.slow
@pytest.mark.parametrize("spec, options", [
    ("twx:coincollector", {"seed": 0, "split": "dev"}),  # its truth is read from the game's objects, not its tree
    pytest.param("scienceworld:find-living-thing", {"variation": 0, "split": "dev"}, marks=pytest.mark.scienceworld),
])
def test_twx_and_scienceworld_runs_are_measured_and_a_wrong_fact_lowers_precision(spec, options, tmp_path, capsys):
    from ariadnegraph.agent.context import AgentContext
    from ariadnegraph.play import Episode, play

    run = play(Episode(spec, max_steps=4, **options), context=AgentContext(run_dir=str(tmp_path)))
    assert main(["fidelity", run["run_id"], "--run-dir", str(tmp_path), "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert before["precision"] is not None
    assert before["recall"] is not None
    assert before["coverage"] is not None
    assert before["by_relation"]["location"]["recall"] is not None
    assert before["counts"]["all"]["tp"] > 0

    _hold_a_wrong_fact(tmp_path, run["run_id"], ("fridge", "in", "bathroom"))  # the fridge is in the kitchen
    assert main(["fidelity", run["run_id"], "--run-dir", str(tmp_path), "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["precision"] < before["precision"]
    assert after["counts"]["all"]["fp"] == before["counts"]["all"]["fp"] + len(after["points"])  # once a step
    assert ["fridge", "in", "bathroom"] in after["errors"]["false_positives"]
