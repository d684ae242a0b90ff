"""The agent's cost profile per preset: model calls, prompt and completion tokens, framework time.

Plays each preset with the scripted model through the real graph (``ariadnegraph.play.play``, the
same prompts a real model gets) and measures, per step:

- model calls and completion tokens (per step = total over the episode / steps played);
- prompt tokens per step at steps 10, 50 and 150: the mean, over the 10 steps ending at N, of the
  prompt tokens of every model call made while handling that step (memory path for its observation,
  then deciding the next action). The scripted model reports ~4 characters per token of the whole
  prompt it receives (system + user messages, tool results): an offline estimate, no tokenizer;
- framework time per step excluding model latency: wall time between two environment updates minus
  the time spent inside chat-model calls (a LangChain callback handler, on_chat_model_start ->
  on_llm_end) minus the game's own step time (the env's ``step``, timed around the child process
  call). p50 / p95 over all steps, and p95 over steps 101-150 (when the episode is that long).

A short episode says "ended at N"; the long-horizon rows (``arigraph:clean``, which the scripted model
does not finish, 150 steps) show how prompts grow. Timings depend on the machine.

    python benchmarks/agent.py [--presets ariadne stma] [--envs arigraph:cook_hard arigraph:hunt]
                               [--long arigraph:clean] [--max-steps 150]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from contextvars import ContextVar
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers.context import register_configure_hook

from ariadnegraph.agent import session as session_module
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.presets import PRESETS
from ariadnegraph.agentkit.spec import AgentKitError, thoughts_for
from ariadnegraph.models import model_label
from ariadnegraph.play import Episode, play

MARKS = (10, 50, 150)


class ModelClock(BaseCallbackHandler):
    """Time inside chat-model calls and their reported token usage, as events in wall-clock order."""

    def __init__(self) -> None:
        self.started: dict[UUID, float] = {}
        self.calls: list[tuple[float, float, int, int]] = []  # (start, end, prompt tokens, completion tokens)

    def on_chat_model_start(self, serialized: dict, messages: list, *, run_id: UUID, **kwargs: Any) -> None:
        self.started[run_id] = time.perf_counter()

    def on_llm_end(self, response, *, run_id: UUID, **kwargs: Any) -> None:
        start = self.started.pop(run_id, None)
        if start is None:
            return
        usage = {}
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None) or usage
        self.calls.append(
            (start, time.perf_counter(), int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)))
        )


_CLOCK: ContextVar[ModelClock | None] = ContextVar("ariadne_benchmark_model_clock", default=None)
register_configure_hook(_CLOCK, inheritable=True)


class EnvClock:
    """Wraps the environment factory the sessions use so every game step is timed."""

    def __init__(self) -> None:
        self.spans: list[tuple[float, float]] = []
        self._make = session_module.make

    def __enter__(self) -> "EnvClock":
        def make(spec: str, **options: Any):
            env = self._make(spec, **options)
            step = env.step

            def timed_step(command: str):
                start = time.perf_counter()
                try:
                    return step(command)
                finally:
                    self.spans.append((start, time.perf_counter()))

            env.step = timed_step
            return env

        session_module.make = make
        return self

    def __exit__(self, *exc: object) -> None:
        session_module.make = self._make


def overlap(spans: list[tuple[float, float]], start: float, end: float) -> float:
    return sum(max(0.0, min(b, end) - max(a, start)) for a, b in spans)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def run(preset: str, env: str, max_steps: int, run_dir: str) -> dict[str, Any]:
    clock = ModelClock()
    marks: list[tuple[int, float]] = []  # (step, time of its environment update)
    token = _CLOCK.set(clock)
    try:
        with EnvClock() as env_clock:
            marks.append((-1, time.perf_counter()))
            result = play(
                Episode(env, seed=2 if env.startswith("cooking") else None, max_steps=max_steps),
                context=AgentContext(preset=preset, run_dir=run_dir),
                on_step=lambda update: marks.append((update.get("step", 0), time.perf_counter())),
            )
            marks.append((marks[-1][0] + 1, time.perf_counter()))  # the final observation's memory path
    finally:
        _CLOCK.reset(token)
    # Step N's work: from its environment update to the next one (memory path, then the next decision).
    prompt_at: dict[int, int] = {}
    framework: list[tuple[int, float]] = []
    for (step, start), (_, end) in zip(marks[1:], marks[2:]):
        calls = [c for c in clock.calls if start <= c[0] < end]
        prompt_at[step] = sum(c[2] for c in calls)
        model = overlap([(c[0], c[1]) for c in clock.calls], start, end)
        game = overlap(env_clock.spans, start, end)
        framework.append((step, (end - start - model - game) * 1000))
    steps = max(result["steps"], 1)

    def prompt_mark(n: int) -> str:
        if result["steps"] < n:
            return f"ended at {result['steps']}"
        window = [prompt_at.get(s, 0) for s in range(n - 9, n + 1)]
        return f"{statistics.mean(window):,.0f}"

    late = [ms for s, ms in framework if 101 <= s <= 150]
    return {
        "preset": preset,
        "env": env,
        "won": result["won"],
        "score": f"{result['score']:g}/{result['max_score']:g}",
        "steps": result["steps"],
        "calls": result["llm_calls"] / steps,
        "prompt": {n: prompt_mark(n) for n in MARKS},
        "completion": result["completion_tokens"] / steps,
        "p50": percentile([ms for _, ms in framework], 0.5),
        "p95": percentile([ms for _, ms in framework], 0.95),
        "p95_late": percentile(late, 0.95) if late else None,
        "model_s": sum(c[1] - c[0] for c in clock.calls),
        "game_s": sum(b - a for a, b in env_clock.spans),
        "by_node": {node: u["calls"] for node, u in result["usage_by_node"].items()},
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    head = (
        f"{'preset':<13} {'env':<19} {'result':<14} {'calls/step':>10} {'prompt@10':>10} {'prompt@50':>12} "
        f"{'prompt@150':>12}"
        f" {'compl/step':>10} {'fw p50 ms':>9} {'fw p95 ms':>9} {'p95 101-150':>11} {'model s':>7} {'game s':>6}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        result = f"{'won' if r['won'] else 'lost'} {r['score']} {r['steps']}st"
        late = f"{r['p95_late']:.1f}" if r["p95_late"] is not None else "-"
        print(
            f"{r['preset']:<13} {r['env']:<19} {result:<14} {r['calls']:>10.2f} {r['prompt'][10]:>10} "
            f"{r['prompt'][50]:>12}"
            f" {r['prompt'][150]:>12} {r['completion']:>10.0f} {r['p50']:>9.1f} {r['p95']:>9.1f} {late:>11} "
            f"{r['model_s']:>7.1f}"
            f" {r['game_s']:>6.1f}"
        )
    print()
    print(f"model calls per node (whole episode; model {model_label('scripted')}):")
    for r in rows:
        print(f"  {r['preset']:<13} {r['env']:<19} {r['by_node']}")


def plays(preset: str, env: str) -> bool:
    """Whether the preset can play the game: an AgentKit preset needs a thought graph for the game's family."""
    thoughts = PRESETS[preset].thoughts
    if not thoughts:
        return True
    try:
        thoughts_for(thoughts, env, preset)
    except AgentKitError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--presets", nargs="+", default=list(PRESETS))
    parser.add_argument("--envs", nargs="+", default=["arigraph:cook_hard", "arigraph:hunt"])
    parser.add_argument(
        "--long", nargs="*", default=["arigraph:clean"], help="long-horizon games (played to --max-steps)"
    )
    parser.add_argument("--max-steps", type=int, default=150)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as run_dir:
        for env in [*args.envs, *args.long]:
            for preset in args.presets:
                if not plays(preset, env):
                    print(f"# {preset} on {env}: skipped (no thought graph for this game family)", flush=True)
                    continue
                rows.append(run(preset, env, args.max_steps, run_dir))
                r = rows[-1]
                print(f"# {preset} on {env}: {r['steps']} steps, {r['calls']:.2f} calls/step", flush=True)
    print()
    print_table(rows)


if __name__ == "__main__":
    main()
