"""Live resources of a running episode: the game, the memory and the run's files, found by run id.

``live_session(state, context)`` resolves them for a node; the graphs call it (graphs/agent.py) and hand
the session to each node that needs it, so no node looks it up, or triggers a replay, itself.
``memory_view`` reads the memory of a finished run (the ``ask`` graph).

Games run in child processes and memories hold open files, so neither can live in checkpointed
state. This process keeps them in a table keyed by run id; a process that finds no entry (a resumed
run, a LangGraph server worker) rebuilds it: the memory reopens from the run directory and the game
is replayed from the checkpointed actions, each answer checked against the recorded trajectory (a
checkpointed step whose line was torn by a crash is written again from the replay).

A session is the run's writer: it holds the run's lock (``RunDir.writer``) until it ends, and a run
belongs to the thread that created it (``thread_id`` in run.json; a CLI run's thread is its id).

On a LangGraph server a session lives only as long as the run that uses it: when the run ends (the episode
over, a pause at an approval or a breakpoint, a cancel, an error) the served graph releases the thread's
sessions (``release_thread``, graphs/agent.py), so a paused thread holds no game process, memory or lock,
and its next run rebuilds them. A node marks the session it uses (``in_use``): a cancelled run's node
runs on to its end in its worker thread, and the session is not closed under it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.config import get_config

from ..envs import Observation, TextEnv, make
from ..envs.families import GameFamily, family_of
from ..memory import WorldMemory
from ..memory.conflicts import STATE_GROUPS, ConflictRules
from ..memory.transitions import DatedFact
from ..runs import TRAJECTORY_FILE, RunBusy, RunCorrupted, RunDir, StepRecord, new_run_meta, next_trail
from .past import EpisodePast
from .readers import MemoryView, saved_memory

if TYPE_CHECKING:
    from .context import AgentContext


class ReplayMismatch(RuntimeError):
    """Replaying the recorded actions did not reproduce the recorded observations."""


class ForkRefused(ValueError):
    """A checkpoint whose history the run's files no longer hold (a later fork replaced it); a ValueError,
    so a LangGraph server shows the client its message."""


class RunExists(ValueError):
    """A new episode was started under the id of a run that has already played steps."""


@dataclass(kw_only=True)
class Session(MemoryView):
    run: RunDir
    env: TextEnv
    observation: Observation  # the latest observation, oracle included (evaluation code may read it)
    thread: str  # the thread that owns the run (its id for a CLI run)
    family: GameFamily  # the game's family (envs/families), resolved once from the env spec
    step: int  # the step the game is at
    trail: str | None  # the fingerprint of the history the game has played (runs.next_trail)
    past: EpisodePast  # what the nodes ask of the steps recorded so far, kept as they are recorded (agent/past.py)
    recalled: list[DatedFact] | None = None  # the long-term namespace's dated transitions, read once (agent/recall.py)
    users: int = 0  # the nodes using it now (in_use)
    released: bool = False  # to be closed once no node uses it
    closed: bool = False

    def holds(self, state: Mapping[str, Any]) -> bool:
        """Whether the game and the memory are where ``state`` is: the same step of the same history, with
        the memory recorded as far as the state saw it. Not so after a fork of the thread (an earlier
        checkpoint continued, Studio's "edit and re-run"): the session is then rebuilt from the files."""
        if "observation" not in state:
            return False  # a new episode under the id of a live run
        return (
            state.get("step") == self.step
            and state.get("trail") == self.trail
            and state.get("memory_step", self.memory.last_episode) == self.memory.last_episode
        )

    def play(
        self, step: int, action: str, reason: str | None, decided: dict[str, Any] | None = None
    ) -> tuple[Observation, str]:
        """Send ``action`` to the game and record its answer as ``step``; returns the observation and the
        history's new trail. A game that fails, or a step that cannot be recorded, leaves the game ahead of
        the files: the session is dropped, to be rebuilt from them."""
        try:
            observation = self.env.step(action)
            trail = next_trail(self.trail, action, observation.text)
            self.record(step, action, observation, reason, trail, decided)
        except BaseException:
            end_session(self.run.run_id)
            raise
        self.step, self.trail, self.observation = step, trail, observation
        return observation, trail

    def record(
        self,
        step: int,
        action: str | None,
        observation: Observation,
        reason: str | None = None,
        trail: str | None = None,
        decided: dict[str, Any] | None = None,
    ) -> None:
        """Record a step the game answered in the run's files and in the index of the past."""
        self.past.add(self.run.record_step(step, action, observation, reason, trail, decided))

    def close(self) -> None:
        with _LOCK:  # once: a second close would release a lock a newer session of the run holds
            if self.closed:
                return
            self.closed = True
        try:
            self.memory.close()
        finally:
            self.env.close()
            self.run.release_writer()


_SESSIONS: dict[str, Session] = {}
_LOCK = threading.RLock()
_IDLE = threading.Condition(_LOCK)  # notified when a node stops using a session
log = logging.getLogger(__name__)


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
        meta = new_run_meta(
            run_id,
            env=state["env"],
            seed=state.get("seed"),
            variation=state.get("variation"),
            max_steps=state.get("max_steps"),
            split=state.get("split"),
            thread_id=thread or run_id,
            context=asdict(context) if context is not None else {},
        )
        return RunDir.create(run_dir, run_id, meta).acquire_writer()
    run = RunDir.open(run_dir, run_id)
    _check_owner(run_id, run.meta().get("thread_id") or run_id, thread)
    return run.acquire_writer()


def _check_owner(run_id: str, owner: str, thread: str | None) -> None:
    if thread is not None and thread != owner:
        raise RunBusy(f"run {run_id} belongs to another thread; start a new thread or give a new run_id")


def open_session(
    run_dir: str | Path, state: Mapping[str, Any], *, create: bool, context: AgentContext | None = None
) -> Session:
    """The session of ``state['run_id']`` in ``run_dir`` (``live_session`` for nodes).

    A session is rebuilt (the game replayed from the trajectory's commands, each answer checked against
    the recorded one; the memory opened as of the state's ``memory_step``) when this process has none,
    or when the live one is at another point of the run's history than ``state`` (a fork). The run's
    files then follow the state's history: steps recorded after it are cut, and so is what memory
    recorded after it. A state whose history the files no longer hold (a fork of a branch that a
    later fork replaced) is refused before anything changes, and so is a new episode under the id of
    a run that has already played."""
    run_id = state["run_id"]
    with _LOCK:
        session = _SESSIONS.get(run_id)
        if session is not None:
            _check_owner(run_id, session.thread, _current_thread())
            if session.holds(state):
                return session
            end_session(run_id)
        env = make(state["env"], **env_options(state))  # a bad spec fails before the run folder exists
        try:
            run = _open_run(run_dir, state, create, context)
            try:
                session = _rebuild(run, env, state, context.switches.embeddings if context else None)
            except BaseException:
                run.release_writer()
                raise
        except BaseException:
            env.close()
            raise
        _SESSIONS[run_id] = session
        return session


def _rebuild(run: RunDir, env: TextEnv, state: Mapping[str, Any], new_embeddings: str | None = None) -> Session:
    """The session of ``state`` from the run's files (see ``open_session``): checks and replays first,
    cuts the files only once everything agrees. ``new_embeddings``: the preset's, for a memory created here."""
    records = list(run.steps())
    restoring = "observation" in state  # a checkpointed state; else the episode's first step
    if not restoring:
        _check_new_episode(run, state, records)
    step = state.get("step", 0) if restoring else 0
    recorded = records[step] if step < len(records) else None
    if (
        restoring
        and recorded is not None
        and state.get("trail")
        and recorded.get("trail") not in (None, state["trail"])
    ):
        raise ForkRefused(
            f"run {run.run_id}: this checkpoint's history (step {step}) is no longer the run's: a later fork "
            "replaced it; continue from a checkpoint of the current history"
        )
    # every step up to the state's is recorded, but for a last line a crash tore (written again below)
    if restoring and (step > len(records) or (step == len(records) and not run.torn(run.trajectory_path))):
        raise RunCorrupted(f"run {run.run_id}: {TRAJECTORY_FILE} lacks steps {len(records)}..{step}")
    commands = [record.get("action") for record in records[1 : step + 1]]
    if restoring and len(commands) < step:
        commands += [state.get("last_action")]  # the checkpointed step whose line a crash tore
    observation, trail = _replay(env, run, [str(c) for c in commands], records if restoring else [])
    if restoring and state.get("trail") and trail != state["trail"]:
        raise ReplayMismatch(
            f"run {run.run_id}: replaying the run does not reach the checkpoint's history; the game or its version "
            f"changed"
        )
    # The memory as of the state (-1: only what was seeded before the first step); a state from before
    # memory steps were checkpointed keeps the memory as it is.
    rewind = state.get("memory_step", -1) if restoring else -1
    family = family_of(state["env"])
    memory = WorldMemory(
        run.memory_path,
        new_embeddings=new_embeddings,
        rewind_to=rewind if (not restoring or "memory_step" in state) else None,
        rules=ConflictRules(state_groups=(*STATE_GROUPS, *family.state_groups)),  # the family's exclusive states too
        write_guard=run.writing,
    )
    try:
        meta = run.meta()
        if "result" in meta and len(records) > step + 1:  # a fork of a finished run: its end is no longer the run's
            run.write_meta({k: v for k, v in meta.items() if k != "result"})
        run.truncate_steps(step if restoring else -1)  # steps after the state's are its future, to be played again
        if restoring and step >= len(records):
            run.record_step(
                step, state.get("last_action"), observation, state.get("last_reason"), trail, state.get("last_decided")
            )
    except BaseException:
        memory.close()
        raise
    owner = run.meta().get("thread_id") or run.run_id
    past = EpisodePast(run.steps())  # the files now hold the state's history, and nothing after it
    return Session(
        run=run,
        env=env,
        memory=memory,
        observation=observation,
        thread=owner,
        family=family,
        step=step,
        trail=trail,
        past=past,
    )


# what run.json says was played, as the episode input gives it
EPISODE_KEYS = (
    "env",
    "seed",
    "variation",
    "split",
    "max_steps",
)


def _check_new_episode(run: RunDir, state: Mapping[str, Any], records: list[StepRecord]) -> None:
    """A new episode may take an existing run's id only to start that same episode again, when the run
    played nothing past step 0 (killed before its first checkpoint); anything else would overwrite a run."""
    meta = run.meta()
    if len(records) > 1 or "result" in meta:
        played = f"has already played {len(records) - 1} steps" if len(records) > 1 else "is finished"
        raise RunExists(f"run {run.run_id} {played}; a new episode needs a new run id (or a new thread)")
    differs = [key for key in EPISODE_KEYS if meta.get(key) != state.get(key)]
    if differs:
        raise RunExists(
            f"run {run.run_id} was started as another episode ({', '.join(f'{k} {meta.get(k)!r}' for k in differs)}); "
            "a new episode needs a new run id (or a new thread)"
        )


def _replay(env: TextEnv, run: RunDir, commands: list[str], recorded: list[StepRecord]) -> tuple[Observation, str]:
    """Reset the game and play ``commands`` again, checking each answer against the ``recorded`` lines
    (where there is one); writes nothing. Returns the last observation and the history's trail."""
    observation = env.reset()
    trail = next_trail(None, None, observation.text)
    for step, command in enumerate([None, *commands]):
        if command is not None:
            observation = env.step(command)
            trail = next_trail(trail, command, observation.text)
        expected = recorded[step] if step < len(recorded) else None
        if expected is not None and expected.get("observation") != observation.text:
            raise ReplayMismatch(
                f"run {run.run_id}: replaying step {step} ({command or 'reset'}) gave a different observation than "
                f"recorded;"
                " the game or its version changed"
            )
    return observation, trail


def end_session(run_id: str) -> None:
    """Release the game and the memory of a run (its files stay)."""
    with _LOCK:
        session = _SESSIONS.pop(run_id, None)
    if session is not None:
        session.close()


@contextmanager
def in_use(session: Session) -> Iterator[Session]:
    """``session`` while a node uses it: ``release_thread`` does not close it under the node, and the last node
    out closes a session released meanwhile."""
    with _LOCK:
        session.users += 1
    try:
        yield session
    finally:
        with _LOCK:
            session.users -= 1
            last_out = session.users == 0 and session.released
            _IDLE.notify_all()
        if last_out:
            session.close()


def release_thread(thread: str, wait: float) -> list[str]:
    """End the sessions of ``thread``'s runs: the game processes, memories and locks a served run held (its files
    stay). A session a node still uses (a cancelled run's node runs on to its end in its worker thread) is waited
    for up to ``wait`` seconds, then left for that node to close; a new run builds its own. Returns the run ids."""
    deadline = time.monotonic() + wait
    with _LOCK:
        sessions = [s for s in _SESSIONS.values() if s.thread == thread]
        for session in sessions:
            session.released = True
            del _SESSIONS[session.run.run_id]
        while any(s.users for s in sessions) and (left := deadline - time.monotonic()) > 0:
            _IDLE.wait(left)
        idle = [s for s in sessions if not s.users]
    for session in idle:
        session.close()
    return [s.run.run_id for s in sessions]


def rewind_run(run_dir: str | Path, run_id: str, state: Mapping[str, Any] | None, thread: str) -> None:
    """The run's files cut back to ``state``, a state of the thread that owns the run (None: the thread has none,
    so the run keeps only its step 0, which the same episode may start from again; see ``_check_new_episode``).
    A run's steps the thread no longer has (a rolled back run) are cut, memory included."""
    if not (Path(run_dir) / run_id).is_dir():
        return
    run = RunDir.open(run_dir, run_id)
    if (run.meta().get("thread_id") or run_id) != thread:
        return
    if state is not None and "observation" in state:
        open_session(run_dir, state, create=False)  # rebuilt from the files, which it cuts to the state
        end_session(run_id)
        return
    with run.writer():
        # what was seeded before the first step stays
        WorldMemory(run.memory_path, rewind_to=-1, write_guard=run.writing).close()
        run.truncate_steps(0)
        meta = run.meta()
        if "result" in meta:
            run.write_meta({k: v for k, v in meta.items() if k != "result"})


def get_session(run_id: str) -> Session | None:
    return _SESSIONS.get(run_id)


def memory_view(run_id: str, run_dir: str | Path) -> MemoryView:
    """The memory of a run: the live session's, else its saved memory (agent/readers.py)."""
    session = _SESSIONS.get(run_id)
    return session if session is not None else saved_memory(run_id, run_dir)
