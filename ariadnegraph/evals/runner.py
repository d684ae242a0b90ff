"""Run a suite: episodes in parallel worker processes (a local process pool, or Ray tasks on a local Ray
or a cluster), each finished one appended to ``episodes.jsonl``.

Resumable by construction: an episode's key (suite, preset, model, game, step limit, attempt) fixes
its run id, so a re-run skips keys already in ``episodes.jsonl`` (unless ``rerun``), continues an
episode that was killed half-way from its LangGraph checkpoint (:func:`ariadnegraph.play.resume`), and
starts one that never got a checkpoint afresh. Only the parent process writes ``episodes.jsonl``.
"""

from __future__ import annotations

import contextlib
import fcntl
import multiprocessing
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agent.presets import oracle_roles
from ..runs import RunDir, score_text
from .plan import EvalError, EvalPlan, Job, TooManyFailures
from .pricing import Price, episode_cost
from .provenance import job_context, provenance
from .records import EpisodeRecord, append_record, check_record, failed_record, read_records
from .suites import Game, normalised

if TYPE_CHECKING:  # the agent's context is imported where an episode plays, not by every reader of the runner
    from ..agent.context import AgentContext


LOCK_FILE = ".lock"


# settings a Ray worker needs
RAY_ENV_PREFIXES = (
    "ARIADNE_",
    "LANGSMITH_",
    "LANGCHAIN_",
    "OPENAI_",
    "ANONYMIZED_TELEMETRY",
)


FIDELITY_FIELDS = ("precision", "recall", "coverage", "by_relation")


PEAK_KEYS = ("depth", "xlvl", "score")  # oracle counters a suite table reads at their highest


CURVE_DIGITS = 4  # per-step fidelity figures are rounded: the curve is for plots, the counts stay in the run


def _fidelity(run: RunDir) -> dict[str, Any] | None:
    """Memory fidelity of a finished episode (a checked copy of its run): the summary figures and the
    per-step curve ``[step, precision, recall]`` (counts and error lists stay recomputable from the run).
    Its failure is recorded in the record rather than losing the episode."""
    from .fidelity import run_fidelity

    try:
        full = run_fidelity(run).to_dict()
    except Exception as exc:  # noqa: BLE001 - a metric's bug must not discard a played episode
        return {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"}
    curve = [
        [p["step"], *(None if p[k] is None else round(p[k], CURVE_DIGITS) for k in ("precision", "recall"))]
        for p in full["points"]
    ]
    return {**{k: full.get(k) for k in FIDELITY_FIELDS}, "curve": curve}


def run_episode(job: Job, runs_dir: Path, prices: dict[str, Price], fresh: bool = False) -> EpisodeRecord:
    """Play (or continue) one episode and return its record."""
    from ..agent.integrity import checked_copies
    from .diagnostics import diagnose
    from .graph_metrics import graph_growth, steps_per_replan

    started = time.perf_counter()
    resumed = (runs_dir / job.run_id / "run.json").is_file() and not fresh
    context = job_context(job, runs_dir)
    played = _play_job(job, runs_dir, context, resumed)
    summary = played[-1]
    wall = time.perf_counter() - started
    with checked_copies(runs_dir, [summary["run_id"]]) as copies:  # every measure below reads one checked copy
        run = RunDir.open(copies, summary["run_id"])
        curve = [float(step.get("score") or 0.0) for step in run.steps()]
        oracle = list(run.oracle_steps())
        fidelity = _fidelity(run)
        growth = graph_growth(run)
        diagnostics = diagnose(run).totals
    score, max_score = float(summary["score"]), float(summary["max_score"])
    prompt, completion = _tokens(played)
    figures = _game_figures(oracle)
    record = EpisodeRecord(
        **{
            "key": job.key,
            "suite": job.suite,
            "preset": job.system,
            "base_preset": job.preset,
            "switches": dict(job.switches),
            "oracle": oracle_roles(dict(job.switches)),  # roles taken from the truth
            "additions": job.additions,  # our additions to the paper's system, switched on: not the paper's result
            "model": job.model,
            "env": job.game.env,
            "group": job.game.group,
            "label": job.game.label,
            "seed": job.game.seed,
            "variation": job.game.variation,
            "attempt": job.attempt,
            "run_id": job.run_id,
            "max_steps": job.game.max_steps,
            "norm_score": round(normalised(score, max_score), 6),
            "score": score,
            "max_score": max_score,
            "best_norm_score": round(max((normalised(c, max_score) for c in curve), default=0.0), 6),
            "invalid_actions": figures["invalid_actions"],
            "peaks": figures["peaks"],
            "achievements": figures["achievements"],
            "reward": figures["reward"],
            "steps_per_replan": steps_per_replan(int(summary["steps"]), summary.get("replies_by_node") or {}),
            "kg_facts": growth["facts_by_step"][-1][1] if growth["facts_by_step"] else 0,
            "kg_recorded": growth["recorded"],
            "kg_update_rate": growth["update_rate"],
            "kg_growth": growth["facts_by_step"],
            "kg_updates": growth["updates_by_step"],
            "won": bool(summary["won"]),
            "steps": int(summary["steps"]),
            "llm_calls": sum(int(r["llm_calls"]) for r in played),
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cost_usd": episode_cost(prices, job.model, prompt, completion),
            "trials": [_trial_row(r) for r in played],
            "won_by_trial": [any(r["won"] for r in played[:k]) for k in range(1, job.trials + 1)],
            "fallbacks": int(summary.get("fallbacks", 0)),
            "wall_seconds": round(wall, 3),
            "resumed": resumed,
            "precision": (fidelity or {}).get("precision"),
            "recall": (fidelity or {}).get("recall"),
            "fidelity": fidelity,
            "curve": curve,
            "diagnostics": diagnostics,
            "provenance": provenance(job, context),
        }
    )
    # a figure out of range (a game's score gone NaN, a count below 0) fails the episode with why, never a row
    return check_record(record, f"episode {job.run_id}", written=False)


def _play_job(job: Job, runs_dir: Path, context: AgentContext, resumed: bool) -> list[dict[str, Any]]:
    """The job's trials played (continued where a run exists, unless not ``resumed``): one summary per trial."""
    from ..play import Episode, play_trials, trial_run_id

    if not resumed:
        for k in range(1, job.trials + 1):  # killed before run.json was written, or asked to re-run
            shutil.rmtree(runs_dir / trial_run_id(job.run_id, k), ignore_errors=True)
    game = job.game
    return play_trials(
        Episode(game.env, seed=game.seed, variation=game.variation, max_steps=game.max_steps),
        trials=job.trials,
        carry_memory=job.carry_memory,
        context=context,
        run_id=job.run_id,
        store=job.store,
    )


def _game_figures(oracle: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the game itself counted over an episode (its oracle records): commands outside its valid actions (games
    that say: TextWorldExpress, as TALES counts them), its counters at their highest (NetHack: depth, experience
    level, in-game score), and its end-of-episode figures where it reports them (Crafter: the achievements unlocked
    and its episode reward, which its score and AgentKit's table 1 are computed from)."""
    validity = [o["valid"] for o in oracle if isinstance(o.get("valid"), bool)]
    peaks = {
        key: max(o[key] for o in oracle if isinstance(o.get(key), (int, float)))
        for key in PEAK_KEYS
        if any(isinstance(o.get(key), (int, float)) for o in oracle)
    }
    last: Mapping[str, Any] = next((o for o in reversed(oracle) if "achievements" in o or "reward" in o), {})
    return {
        "invalid_actions": validity.count(False) if validity else None,
        "peaks": peaks,
        "achievements": sorted(a for a in str(last["achievements"]).split(",") if a)
        if "achievements" in last
        else None,
        "reward": float(last["reward"]) if isinstance(last.get("reward"), (int, float)) else None,
    }


def _tokens(played: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """(prompt, completion) tokens of every trial's model calls, the reflections between them included."""

    def spent(r: Mapping[str, Any], key: str) -> int:
        return int(r[key]) + int((r.get("reflection") or {}).get(key, 0))

    return sum(spent(r, "prompt_tokens") for r in played), sum(spent(r, "completion_tokens") for r in played)


def _trial_row(summary: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "trial": summary["trial"],
        "run_id": summary["run_id"],
        "won": bool(summary["won"]),
        "score": float(summary["score"]),
        "steps": int(summary["steps"]),
        "lesson": (summary.get("reflection") or {}).get("text"),
    }


def _job_args(job: Job) -> dict[str, Any]:
    return {**asdict(job), "game": asdict(job.game)}


def _worker(job: dict[str, Any], runs_dir: str, prices: dict[str, tuple[float, float]], fresh: bool) -> EpisodeRecord:
    """Pool entry point (plain data in and out, so it pickles under ``spawn``)."""
    parsed = Job(
        **{
            **job,
            "game": Game(**job["game"]),
            **{name: tuple((k, v) for k, v in job.get(name) or ()) for name in ("switches", "cell_set")},
        }
    )
    return run_episode(parsed, Path(runs_dir), {m: Price(*p) for m, p in prices.items()}, fresh)


def _die_with_parent() -> None:
    """A worker must not outlive a killed eval: it would keep writing a run the re-run resumes."""
    parent = os.getppid()
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG = SIGKILL (Linux)
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    with (out / LOCK_FILE).open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise EvalError(f"another `ariadne eval` is writing to {out}") from None
        yield


def _line(record: EpisodeRecord, done: int, total: int) -> str:
    where = record["label"] or record["env"]
    if record.get("failed"):
        return (
            f"[{done}/{total}] {record['preset']} {where} attempt {record['attempt']}: FAILED: {record['error'][:200]}"
        )
    outcome = "won" if record["won"] else "not won"
    again = " (resumed)" if record["resumed"] else ""
    return (
        f"[{done}/{total}] {record['preset']} {where} attempt {record['attempt']}: score "
        f"{score_text(record['score'], record['max_score'])} {outcome} in {record['steps']} steps, "
        f"{record['llm_calls']} calls, "
        f"{record['wall_seconds']:.1f} s{again}"
    )


def run_eval(plan: EvalPlan, *, progress: bool = True) -> list[EpisodeRecord]:
    """Run the plan's missing episodes and write every output; returns the plan's records in order."""
    from tqdm import tqdm

    started = time.perf_counter()
    plan.out.mkdir(parents=True, exist_ok=True)
    with _locked(plan.out):
        plan.runs_dir.mkdir(exist_ok=True)
        finished = read_records(plan.episodes_path)
        # a failed episode is played again by the next run of the command
        pending = [job for job in plan.jobs if plan.rerun or job.key not in finished or finished[job.key].get("failed")]
        skipped = len(plan.jobs) - len(pending)
        if progress and skipped:
            print(
                f"{skipped} of {len(plan.jobs)} episodes already finished in {plan.episodes_path}",
                file=sys.stderr,
                flush=True,
            )
        bar = tqdm(total=len(pending), file=sys.stderr, disable=not (progress and sys.stderr.isatty()), unit="episode")
        done = failures = 0

        def record(result: EpisodeRecord) -> None:
            nonlocal done, failures
            append_record(plan.episodes_path, result)
            finished[result["key"]] = result
            done += 1
            bar.update(1)
            if progress:
                tqdm.write(_line(result, done, len(pending)), file=sys.stderr)
                sys.stderr.flush()
            if result.get("failed"):
                failures += 1
                if plan.max_failures is not None and failures > plan.max_failures:
                    raise TooManyFailures(
                        f"{failures} episodes failed, more than --max-failures {plan.max_failures}; stopped "
                        f"(the last: {result['run_id']}: {result['error'][:200]}); re-run the same command to "
                        "play the failed and missing episodes"
                    )

        try:
            if plan.backend == "ray" and pending:
                _run_ray(plan, pending, record)
            elif plan.workers == 1 or len(pending) <= 1:
                for job in pending:
                    started_episode = time.perf_counter()
                    try:
                        result = run_episode(job, plan.runs_dir, plan.prices, fresh=plan.rerun)
                    except Exception as exc:  # noqa: BLE001 - one episode's failure is recorded; the sweep goes on
                        result = failed_record(job, exc, time.perf_counter() - started_episode)
                    record(result)
            else:
                _run_pool(plan, pending, record)
        finally:
            bar.close()
            records = [finished[job.key] for job in plan.jobs if job.key in finished]
            if records:
                from .eval_report import write_outputs

                write_outputs(plan, records, elapsed=time.perf_counter() - started)
        return records


def _run_pool(plan: EvalPlan, pending: list[Job], record: Any) -> None:
    prices = {m: (p.input, p.output) for m, p in plan.prices.items()}
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=min(plan.workers, len(pending)), mp_context=context, initializer=_die_with_parent
    ) as pool:
        jobs: dict[Future, tuple[Job, float]] = {
            pool.submit(_worker, _job_args(job), str(plan.runs_dir), prices, plan.rerun): (job, time.perf_counter())
            for job in pending
        }
        futures: set[Future] = set(jobs)
        try:
            while futures:
                finished, futures = wait(futures, return_when=FIRST_COMPLETED)
                for future in finished:
                    job, started = jobs[future]
                    try:
                        result = future.result()
                    except Exception as exc:  # noqa: BLE001 - recorded with its error; the sweep goes on (up to max_failures)
                        result = failed_record(job, exc, time.perf_counter() - started)
                    record(result)
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _run_ray(plan: EvalPlan, pending: list[Job], record: Any) -> None:
    """Each episode a Ray task (one CPU each), recorded as it finishes. A local Ray is started for this
    eval with ``workers`` CPUs and stopped after it; with ``address`` the tasks go to that cluster, whose
    workers need this package and see the same run directory (a shared file system)."""
    import ray

    prices = {m: (p.input, p.output) for m, p in plan.prices.items()}
    settings = {k: v for k, v in os.environ.items() if k.startswith(RAY_ENV_PREFIXES)}
    started_here = not ray.is_initialized()
    if started_here:
        options: dict[str, Any] = (
            {"address": plan.address} if plan.address else {"num_cpus": plan.workers, "include_dashboard": False}
        )
        try:
            ray.init(**options, log_to_driver=False, configure_logging=False, runtime_env={"env_vars": settings})
        except Exception as exc:  # a cluster gone since the plan's check, a local Ray that cannot start: one line
            ray.shutdown()  # whatever part of it started
            where = f"join the Ray cluster at {plan.address}" if plan.address else "start a local Ray"
            raise EvalError(f"could not {where}: {' '.join(f'{type(exc).__name__}: {exc}'.split())[:300]}") from None
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(_worker)
        jobs = {
            task.remote(_job_args(job), str(plan.runs_dir.resolve()), prices, plan.rerun): (job, time.perf_counter())
            for job in pending
        }
        futures = list(jobs)
        try:
            while futures:
                finished, futures = ray.wait(futures, num_returns=1)
                job, started = jobs[finished[0]]
                try:
                    result = ray.get(finished[0])
                except Exception as exc:  # noqa: BLE001 - a task's error: recorded, the sweep goes on (up to max_failures)
                    result = failed_record(job, exc, time.perf_counter() - started)
                record(result)
        except BaseException:
            for future in futures:
                ray.cancel(future, force=True)
            raise
    finally:
        if started_here:
            ray.shutdown()


def list_suites() -> list[str]:
    """One line per suite for ``ariadne eval --list``."""
    from .suites import SUITES

    width = max(len(name) for name in SUITES)
    return [f"{s.name:<{width}}  {s.description} [{s.paper}; needs {s.needs}]" for s in SUITES.values()]
