"""How long ``ariadne`` takes to answer the commands that play nothing, from a fresh process: median (min-max) of
five runs each, in an empty folder (no runs, no .env). A table to read, never asserted.

    python benchmarks/startup.py [--ariadne PATH]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = (["--help"], ["runs", "list"], ["models", "list"], ["eval", "--list"], ["play", "--help"])
REPEATS = 5


def timed(command: list[str], folder: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=folder, capture_output=True, check=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ariadne", default=shutil.which("ariadne") or str(Path(sys.executable).with_name("ariadne")))
    args = parser.parse_args()
    print("| command | median s | min-max s |\n|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for words in COMMANDS:
            times = [timed([args.ariadne, *words], Path(folder)) for _ in range(REPEATS)]
            spread = f"{min(times):.2f}-{max(times):.2f}"
            print(f"| `ariadne {' '.join(words)}` | {statistics.median(times):.2f} | {spread} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
