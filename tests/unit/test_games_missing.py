"""README command 2 in a clone with no games folder: tests that read the AriGraph games are skipped with
the reason (how to fetch them), and everything else in the same modules still runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_without_the_games_their_tests_are_skipped_with_the_reason_and_the_rest_runs(tmp_path):
    empty = tmp_path / "games"
    empty.mkdir()
    env = {**os.environ, "ARIADNE_GAMES_DIR": str(empty), "PYTHONPATH": str(ROOT)}
    modules = ["tests/unit/test_families.py", "tests/unit/test_eval_suites.py"]
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *modules],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:]
    summary = result.stdout.strip().splitlines()[-1]
    passed, skipped = (int(m.group(1)) if (m := re.search(rf"(\d+) {word}", summary)) else 0 for word in ("passed", "skipped"))
    assert "failed" not in summary, summary
    assert "error" not in summary, summary
    assert passed > 10, summary
    assert skipped >= 2, summary
    reasons = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert reasons, reasons
    assert all("needs the AriGraph games" in line and "ariadne games fetch arigraph" in line for line in reasons), reasons
