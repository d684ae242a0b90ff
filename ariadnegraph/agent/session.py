"""Live resources of a running episode: the game, the memory and its KG tools, found by run id.

``live_session(state, context)`` is the one way nodes reach them; ``memory_view`` reads the memory of
a finished run (the ``ask`` graph).

Games run in child processes and memories hold open files, so neither can live in checkpointed
state. This process keeps them in a table keyed by run id; a process that finds no entry (a resumed
run, a LangGraph server worker) rebuilds it: the memory reopens from the run directory and the game
is replayed from the checkpointed actions, each answer checked against the recorded trajectory (a
checkpointed step whose line was torn by a crash is written again from the replay).

A session is the run's writer: it holds the run's lock (``RunDir.writer``) until it ends, and a run
belongs to the thread that created it (``thread_id`` in run.json; a CLI run's thread is its id).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.tools import BaseTool
from langgraph.config import get_config

from ..envs import Observation, TextEnv, make
from ..memory import WorldMemory
from ..runs import MEMORY_DIR, RunBusy, RunDir
from ..tools.kg_tools import make_kg_tools

if TYPE_CHECKING:
    from .context import AgentContext


class ReplayMismatch(RuntimeError):
    """Replaying the recorded actions did not reproduce the recorded observations."""


VALID_LOGGED = 200  # the valid commands the agent was shown are logged when there are at most this many


def trajectory_record(step: int, action: str | None, observation: Observation, reason: str | None = None) -> dict[str, Any]:
    """A step's line in trajectory.jsonl: what the agent did and saw, and why it chose the command
    (``reason``: the reasoning it logged; memory QA asks about it, EMemBench's A_reason)."""
    record: dict[str, Any] = {
        "step": step,
        "action": action,
        "observation": observation.text,
        "score": observation.score,
        "max_score": observation.max_score,
        "done": observation.done,
        "won": observation.won,
    }
    if reason:
        record["reason"] = reason
    if 0 < len(observation.admissible_actions) <= VALID_LOGGED:
        record["valid"] = list(observation.admissible_actions)
    return record


def oracle_record(observation: Observation, *, first: bool = False) -> dict[str, Any]:
    """The game's ground truth at this step, written beside the trajectory for evaluation code
    (memory fidelity, memory QA); no node reads it back. The walkthrough is kept once, at step 0."""
    oracle = observation.oracle
    extra = {k: v for k, v in oracle.extra.items() if isinstance(v, (str, int, float, bool, type(None)))}
    record: dict[str, Any] = {"facts": [list(f) for f in oracle.facts], "score": observation.score,
                              "max_score": observation.max_score, "inventory": list(observation.inventory or []), **extra}
    if first:
        record["walkthrough"] = list(oracle.walkthrough)
    return record


def record_step(run: RunDir, step: int, action: str | None, observation: Observation, reason: str | None = None) -> None:
    run.append_step(trajectory_record(step, action, observation, reason), oracle_record(observation, first=step == 0))


@dataclass(kw_only=True)
class MemoryView:
    """A run's memory and the KG tools over it, built once per ``as_of`` (building them costs ~20 ms)."""

    memory: WorldMemory
    _tools: dict[int | None, list[BaseTool]] = field(default_factory=dict, repr=False)
    _copy: tempfile.TemporaryDirectory | None = field(default=None, repr=False)  # a reader's private copy of the files

    def tools(self, as_of: int | None = None) -> list[BaseTool]:
        """The KG tools over the memory as it was at step ``as_of`` (None: now)."""
        if as_of not in self._tools:
            self._tools[as_of] = make_kg_tools(self.memory, as_of)
        return self._tools[as_of]

    def close_reader(self) -> None:
        """Close a reader's memory and delete its private copy (what it loaded stays readable)."""
        try:
            self.memory.close()
        finally:
            if self._copy is not None:
                self._copy.cleanup()


@dataclass(kw_only=True)
class Session(MemoryView):
    run: RunDir
    env: TextEnv
    observation: Observation  # the latest observation, oracle included (evaluation code may read it)
    thread: str  # the thread that owns the run (its id for a CLI run)

    def close(self) -> None:
        try:
            self.memory.close()
        finally:
            self.env.close()
            self.run.release_writer()


_SESSIONS: dict[str, Session] = {}
_LOCK = threading.Lock()


def env_options(state: Mapping[str, Any]) -> dict[str, Any]:
    options = {}
    if state.get("seed") is not None:
        options["seed"] = state["seed"]
    if state.get("variation") is not None:
        options["variation"] = state["variation"]
    if state.get("split") is not None:
        options["split"] = state["split"]
    if state.get("max_steps"):
        options["max_steps"] = state["max_steps"]
    return options


def live_session(state: Mapping[str, Any], context: AgentContext, *, start: bool = False) -> Session:
    """The session of ``state['run_id']``: the live one, or one rebuilt from disk and state. ``start``:
    the episode's first step may create its run directory."""
    return open_session(context.run_dir, state, create=start, context=context)


def _current_thread() -> str | None:
    try:
        thread = (get_config().get("configurable") or {}).get("thread_id")
    except RuntimeError:  # outside a graph run
        return None
    return str(thread) if thread is not None else None


def _open_run(run_dir: str | Path, state: Mapping[str, Any], create: bool, context: AgentContext | None) -> RunDir:
    """The run directory, created on the episode's first step if new; its writer lock taken; refused
    when it belongs to another thread."""
    run_id, thread = state["run_id"], _current_thread()
    if create and not (Path(run_dir) / run_id).exists():
        meta = {key: state.get(key) for key in ("run_id", "env", "seed", "variation", "max_steps")}
        if state.get("split") is not None:
            meta["split"] = state["split"]
        settings = {k: v for k, v in asdict(context).items() if k != "api_key"} if context is not None else {}
        return RunDir.create(run_dir, run_id, {**meta, "thread_id": thread or run_id, "context": settings}).acquire_writer()
    run = RunDir.open(run_dir, run_id)
    _check_owner(run_id, run.meta().get("thread_id") or run_id, thread)
    return run.acquire_writer()


def _check_owner(run_id: str, owner: str, thread: str | None) -> None:
    if thread is not None and thread != owner:
        raise RunBusy(f"run {run_id} belongs to another thread; start a new thread or give a new run_id")


def open_session(run_dir: str | Path, state: Mapping[str, Any], *, create: bool, context: AgentContext | None = None) -> Session:
    """The session of ``state['run_id']`` in ``run_dir`` (``live_session`` for nodes)."""
    run_id = state["run_id"]
    with _LOCK:
        session = _SESSIONS.get(run_id)
        if session is not None:
            _check_owner(run_id, session.thread, _current_thread())
            return session
        env = make(state["env"], **env_options(state))  # a bad spec fails before the run folder exists
        try:
            run = _open_run(run_dir, state, create, context)
            try:
                memory = WorldMemory(run.memory_path)  # a damaged memory is refused before the trajectory is touched
                try:
                    actions = state.get("actions") or []
                    # The game is replayed and checked before the run is touched: a refused run keeps every line.
                    observation, torn = _replay(env, run, actions, state.get("reasons") or [], restore="observation" in state)
                    # Steps recorded after the last checkpoint will be played again: forget them.
                    run.truncate_steps(len(actions) if "observation" in state else -1)
                    for step, action, played, reason in torn:
                        record_step(run, step, action, played, reason)
                except BaseException:
                    memory.close()
                    raise
            except BaseException:
                run.release_writer()
                raise
        except BaseException:
            env.close()
            raise
        owner = run.meta().get("thread_id") or run_id
        session = _SESSIONS[run_id] = Session(run=run, env=env, memory=memory, observation=observation, thread=owner)
        return session


Replayed = tuple[int, str | None, Observation, str | None]  # a step to record again: step, action, observation, reason


def _replay(env: TextEnv, run: RunDir, actions: list[str], reasons: list[str | None], *,
            restore: bool) -> tuple[Observation, list[Replayed]]:
    """Reset the game and run ``actions`` again, checking each answer against the trajectory; writes
    nothing. Returns the last observation and, when ``restore`` (the actions are checkpointed), the steps
    missing at the trajectory's end (a line torn by a crash), to be recorded again."""
    # without a checkpoint the whole trajectory is about to be dropped and played again: nothing to compare
    recorded = {record["step"]: record for record in run.steps()} if restore else {}
    observation = env.reset()
    missing: list[Replayed] = []
    for step, action in enumerate([None, *actions]):
        if action is not None:
            observation = env.step(action)
        expected = recorded.get(step)
        if expected is None:
            if restore:
                missing.append((step, action, observation, reasons[step - 1] if 0 < step <= len(reasons) else None))
        elif expected.get("observation") != observation.text:
            raise ReplayMismatch(
                f"run {run.run_id}: replaying step {step} ({action or 'reset'}) gave a different observation than recorded;"
                " the game or its version changed"
            )
    return observation, missing


def end_session(run_id: str) -> None:
    """Release the game and the memory of a run (its files stay)."""
    with _LOCK:
        session = _SESSIONS.pop(run_id, None)
    if session is not None:
        session.close()


def get_session(run_id: str) -> Session | None:
    return _SESSIONS.get(run_id)


READERS_KEPT = 8  # saved memories kept open for readers (a server answering questions about many runs)
_READERS: OrderedDict[tuple[str, str], MemoryView] = OrderedDict()


def memory_view(run_id: str, run_dir: str | Path) -> MemoryView:
    """The memory of a run and its tools: the live session's, else the saved memory, read from a
    private copy of its memory folder (opening the files would write to them). The last
    ``READERS_KEPT`` readers stay open; the least recently used is closed when another is opened."""
    session = _SESSIONS.get(run_id)
    if session is not None:
        return session
    key = (str(Path(run_dir).resolve()), run_id)
    with _LOCK:
        view = _READERS.get(key)
        if view is not None:
            _READERS.move_to_end(key)
            return view
        copy = tempfile.TemporaryDirectory(prefix="ariadne-memory-")
        try:
            source = RunDir.open(run_dir, run_id).memory_path
            if not source.is_dir():
                raise FileNotFoundError(f"run {run_id} has no memory yet")
            target = Path(copy.name) / MEMORY_DIR
            shutil.copytree(source, target)
            # no check_run before this reader (the server's ask): the log's whole chain is checked here
            view = MemoryView(memory=WorldMemory.open(target, check_log=True), _copy=copy)
        except BaseException:
            copy.cleanup()
            raise
        _READERS[key] = view
        while len(_READERS) > READERS_KEPT:
            _, evicted = _READERS.popitem(last=False)
            evicted.close_reader()
        return view
