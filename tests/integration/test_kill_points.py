"""A SIGKILL at each stage of creating a run, its memory and a carried-memory trial, then the same command
run again: it finishes with the result of an uninterrupted run (the seeding recorded only once committed).

Each stage point is a monkeypatch in a subprocess (no hook in the product): the process kills itself there."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ariadnegraph.agent.integrity import checked_copies
from ariadnegraph.memory import WorldMemory
from ariadnegraph.runs import RunDir

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]

# The driver: patches one stage point to SIGKILL the process when it is reached for the run whose id ends
# with KILL_RUN ("" = the first trial's, "-t2" = the second's), then runs the CLI.
DRIVER = r'''
import json, os, signal, sys
from pathlib import Path
from ariadnegraph.memory import store, world
from ariadnegraph import runs

stage, which = os.environ["KILL_AT"], os.environ["KILL_RUN"]

def mine(path):
    parts = [p for p in Path(path).parts if p.startswith("K")]
    return bool(parts) and parts[-1].endswith(which) and (which or not parts[-1].endswith("-t2"))

def die():
    os.kill(os.getpid(), signal.SIGKILL)

real_write_meta, real_create, real_seed = runs.RunDir.write_meta, store.EventLog._create, world.WorldMemory.seed

def write_meta(self, meta):
    if mine(self.path) and stage == "run:half-meta" and not self.meta_path.exists():
        self.meta_path.with_suffix(".json.tmp").write_text(json.dumps(meta)[:40])
        die()
    real_write_meta(self, meta)
    if mine(self.path) and stage == "run:meta-written":
        die()

def create(self):
    if mine(self.path) and stage == "memory:tables-uncommitted":
        self._db.execute("BEGIN IMMEDIATE")
        self._db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY)")
        die()
    real_create(self)
    if mine(self.path) and stage == "memory:created":
        die()

def seed(self, triplets):
    if mine(self.directory) and stage == "trial:seed-uncommitted":
        die()
    added = real_seed(self, triplets)
    if mine(self.directory) and stage == "trial:seeded-not-recorded":
        die()
    return added

runs.RunDir.write_meta, store.EventLog._create, world.WorldMemory.seed = write_meta, create, seed
from ariadnegraph.cli import main
sys.exit(main(sys.argv[1:]))
'''

# Creating a run and its memory is the same code for either trial, so those stages are placed in the first
# trial's; the seeding stages exist only in the second's (each stage is two CLI processes: CI time counts).
STAGES = [(stage, "") for stage in ("run:half-meta", "run:meta-written", "memory:tables-uncommitted", "memory:created")] + \
         [("trial:seed-uncommitted", "-t2"), ("trial:seeded-not-recorded", "-t2")]


def command(run_dir: Path, run_id: str) -> list[str]:
    return ["play", "--env", "cooking:2", "--seed", "3", "--max-steps", "4", "--trials", "2", "--carry-memory",
            "--run-dir", str(run_dir), "--run-id", run_id, "--json"]


def run(args: list[str], kill_at: str = "", which: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "KILL_AT": kill_at, "KILL_RUN": which, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", DRIVER, *args], capture_output=True, text=True, timeout=900, env=env)


def outcome(run_dir: Path, run_id: str, stdout: str) -> dict:
    """What an uninterrupted run ends with: each trial's result, what trial 2 says it was seeded with and
    the facts its memory held before its first step."""
    trials = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    second = f"{run_id}-t2"
    meta = json.loads((run_dir / second / "run.json").read_text())
    with checked_copies(run_dir, [second]) as copies, WorldMemory.open(RunDir.open(copies, second).memory_path) as memory:
        seeded = sorted(f.triplet for f in memory.all_facts if f.source is None)
    return {"trials": [(t["won"], t["score"], t["steps"]) for t in trials], "seeded": meta.get("seeded"), "seeded_facts": seeded}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict:
    runs = tmp_path_factory.mktemp("whole")
    result = run(command(runs, "K"))
    assert result.returncode == 0, result.stderr
    found = outcome(runs, "K", result.stdout)
    assert len(found["trials"]) == 2
    assert found["seeded"]["facts"] == len(found["seeded_facts"]) > 0
    return found


@pytest.mark.parametrize("stage, which", STAGES, ids=[f"{s}{w or '-t1'}" for s, w in STAGES])
def test_a_kill_at_each_creation_stage_is_finished_by_a_rerun(tmp_path, uninterrupted, stage, which):
    runs = tmp_path / "runs"
    killed = run(command(runs, "K"), stage, which)
    assert killed.returncode == -signal.SIGKILL, (stage, killed.returncode, killed.stderr[-2000:])
    again = run(command(runs, "K"))
    assert again.returncode == 0, (stage, again.stderr[-2000:])
    # the re-run prints the trials it finished or played; their results and trial 2's seeding are the same
    assert outcome(runs, "K", again.stdout) == uninterrupted, stage
    print(f"kill-point {stage} {which or '-t1'}: killed, re-run finished, same result")
