"""The local engines side by side: llama.cpp's server from the ``xllamacpp`` wheel against ``llama-server`` built on
this machine (``ariadne models build-engine``), serving the same model with the same flags, on the same prompts.

Per engine: seconds from start to healthy; the server process's resident memory once the model is loaded and
after the prompts; then ``--repeats`` times the same prompt of about ``--prompt-tokens`` tokens (a planner-sized
one) with the prompt cache off, streamed: time to the first token, and the server's own prompt and generated
tokens per second (its ``timings``). Run it on an idle machine: anything else on the cores moves every figure.

    python benchmarks/engines.py [--model qwen2.5-coder-1.5b] [--repeats 3] [--prompt-tokens 768]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import urllib.request
from typing import Any

import psutil

from ariadnegraph.config import LOCAL_ENGINE_ENV
from ariadnegraph.models.local import get_model
from ariadnegraph.models.local.engine import ENGINES, engine_label
from ariadnegraph.models.local.server import LocalServer, start_server

ROOMS = ("kitchen", "pantry", "corridor", "backyard", "garden", "livingroom", "bedroom", "bathroom")
THINGS = ("red apple", "carrot", "knife", "block of cheese", "yellow potato", "cookbook", "frosted-glass door")


def planner_like_prompt(words: int) -> str:
    """Game text of about ``words`` words (deterministic): rooms, things, exits and commands, as a planner reads."""
    lines, i = [], 0
    while sum(len(line.split()) for line in lines) < words:
        room, thing = ROOMS[i % len(ROOMS)], THINGS[i % len(THINGS)]
        lines.append(
            f"step {i}: you are in the {room}. You see a {thing} on the table and a closed door leading "
            f"{('north', 'south', 'east', 'west')[i % 4]}. Valid: open door, take {thing}, go {ROOMS[(i + 1) % 8]}."
        )
        i += 1
    return "\n".join(lines) + "\nWhich command moves you towards the goal? Answer with one command."


def measure_request(server: LocalServer, prompt: str, max_tokens: int) -> dict[str, float]:
    """One streamed request with the prompt cache off: time to first token, and the server's timings."""
    body = {
        "model": server.model.name,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "stream": True,
        "cache_prompt": False,
        "temperature": 0.0,
    }
    request = urllib.request.Request(
        f"{server.url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    sent, first, timings = time.monotonic(), None, {}
    with urllib.request.urlopen(request, timeout=900) as response:
        for raw in response:
            line = raw.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[len("data: ") :])
            if first is None and any((c.get("delta") or {}).get("content") for c in chunk.get("choices") or []):
                first = time.monotonic()
            timings = chunk.get("timings") or timings
    return {
        "ttft": (first or time.monotonic()) - sent,
        "prompt_tokens": timings.get("prompt_n", 0),
        "prompt_per_second": timings.get("prompt_per_second", 0.0),
        "predicted_per_second": timings.get("predicted_per_second", 0.0),
    }


def rss_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 1e6


def bench_engine(engine: str, model_name: str, prompt: str, repeats: int, max_tokens: int) -> dict[str, Any]:
    os.environ[LOCAL_ENGINE_ENV] = engine
    started = time.monotonic()
    server = start_server(get_model(model_name), register=False)
    try:
        row: dict[str, Any] = {"engine": engine_label(), "start_s": time.monotonic() - started}
        row["rss_loaded_mb"] = rss_mb(server.pid)
        runs = [measure_request(server, prompt, max_tokens) for _ in range(repeats)]
        row["rss_after_mb"] = rss_mb(server.pid)
    finally:
        server.leave()
    for key in ("ttft", "prompt_per_second", "predicted_per_second"):
        values = [r[key] for r in runs]
        row[key] = (min(values), statistics.median(values), max(values))
    row["prompt_tokens"] = runs[0]["prompt_tokens"]
    return row


def span(values: tuple[float, float, float], digits: int = 1) -> str:
    low, mid, high = values
    return f"{mid:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def table(rows: list[dict[str, Any]], model: str, repeats: int) -> str:
    header = (
        f"{model}, {rows[0]['prompt_tokens']}-token prompt, cache off, {repeats} requests each: median (min-max)\n"
        f"{'engine':<50} {'start s':>8} {'RSS MB loaded/after':>20} {'prompt tok/s':>20} {'gen tok/s':>18} "
        f"{'first token s':>18}"
    )
    lines = [header, "-" * len(header.splitlines()[-1])]
    for r in rows:
        memory = f"{r['rss_loaded_mb']:,.0f}/{r['rss_after_mb']:,.0f}"
        lines.append(
            f"{r['engine'].split(' (built: ')[0][:50]:<50} {r['start_s']:>8.1f} {memory:>20} "
            f"{span(r['prompt_per_second']):>20} {span(r['predicted_per_second']):>18} {span(r['ttft'], 2):>18}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=ENGINES)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--prompt-tokens", type=int, default=768, help="about this many (words x 1.3)")
    parser.add_argument("--max-tokens", type=int, default=48)
    args = parser.parse_args(argv)
    prompt = planner_like_prompt(int(args.prompt_tokens / 1.3))
    rows = [bench_engine(e, args.model, prompt, args.repeats, args.max_tokens) for e in args.engines]
    print(table(rows, args.model, args.repeats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
