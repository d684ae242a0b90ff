"""Live resources of a running episode: the game and the memory, found by run id.

Games run in child processes and memories hold open files, so neither can live in checkpointed
state. This process keeps them in a table keyed by run id; a process that finds no entry (a resumed
run, a LangGraph server worker) rebuilds it: the memory reopens from the run directory and the game
is replayed from the checkpointed actions, each answer checked against the recorded trajectory.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from ..envs import Observation, TextEnv, make
from ..memory import WorldMemory
from ..runs import RunDir


class ReplayMismatch(RuntimeError):
    """Replaying the recorded actions did not reproduce the recorded observations."""


@dataclass
class Session:
    run: RunDir
    env: TextEnv
    memory: WorldMemory
    observation: Observation  # the latest observation, oracle included (evaluation code may read it)

    def close(self) -> None:
        self.memory.close()
        self.env.close()


_SESSIONS: dict[str, Session] = {}
_LOCK = threading.Lock()


def env_options(state: dict) -> dict:
    options = {}
    if state.get("seed") is not None:
        options["seed"] = state["seed"]
    if state.get("variation") is not None:
        options["variation"] = state["variation"]
    if state.get("max_steps"):
        options["max_steps"] = state["max_steps"]
    return options


def open_session(run_dir: str | Path, state: dict, *, create: bool) -> Session:
    """The session of ``state['run_id']``: the live one, or one rebuilt from disk and state."""
    run_id = state["run_id"]
    with _LOCK:
        session = _SESSIONS.get(run_id)
        if session is not None:
            return session
        env = make(state["env"], **env_options(state))
        try:
            if create and not (Path(run_dir) / run_id / "run.json").exists():
                meta = {key: state.get(key) for key in ("run_id", "env", "seed", "variation", "max_steps")}
                run = RunDir.create(run_dir, run_id, meta)
            else:
                run = RunDir.open(run_dir, run_id)
            memory = WorldMemory(run.memory_path)  # a damaged memory is refused before the trajectory is touched
            try:
                actions = state.get("actions") or []
                observation = _replay(env, run, actions)
                # Steps recorded after the last checkpoint will be played again: forget them.
                run.truncate_steps(len(actions) if "observation" in state else -1)
            except BaseException:
                memory.close()
                raise
        except BaseException:
            env.close()
            raise
        session = _SESSIONS[run_id] = Session(run, env, memory, observation)
        return session


def _replay(env: TextEnv, run: RunDir, actions: list[str]) -> Observation:
    """Reset the game and run ``actions`` again, checking each answer against the trajectory."""
    recorded = {record["step"]: record for record in run.steps()}
    observation = env.reset()
    for step, action in enumerate([None, *actions]):
        if action is not None:
            observation = env.step(action)
        expected = recorded.get(step)
        if expected is not None and expected.get("observation") != observation.text:
            raise ReplayMismatch(
                f"run {run.run_id}: replaying step {step} ({action or 'reset'}) gave a different observation than recorded;"
                " the game or its version changed"
            )
    return observation


def close_session(run_id: str) -> None:
    with _LOCK:
        session = _SESSIONS.pop(run_id, None)
    if session is not None:
        session.close()


def get_session(run_id: str) -> Session | None:
    return _SESSIONS.get(run_id)


_READERS: dict[tuple[str, str], WorldMemory] = {}


def memory_for(run_id: str, run_dir: str | Path) -> WorldMemory:
    """The memory of a run: the live session's, else the saved one opened for reading."""
    session = _SESSIONS.get(run_id)
    if session is not None:
        return session.memory
    key = (str(Path(run_dir).resolve()), run_id)
    with _LOCK:
        memory = _READERS.get(key)
        if memory is None:
            run = RunDir.open(run_dir, run_id)
            memory = _READERS[key] = WorldMemory.open(run.memory_path)
        return memory
