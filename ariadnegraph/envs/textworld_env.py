"""TextWorld games behind the :class:`~ariadnegraph.envs.base.TextEnv` protocol.

Every game runs in a child process (:class:`GameProcess`): the interpreter can hang on some inputs
(TextWorld#161; a dumb-frotz escape like ``\\q`` loops forever) or die in C code, and either must
reach the caller as :class:`EnvTimeout`/:class:`EnvCrashed` within the step timeout instead of
freezing the agent. The child sends plain tuples and dicts; the parent builds the Observation.

Compound commands ("take key then go north") are rejected with :class:`InvalidCommand` by
:func:`sanitize_command`, never split: one ``step`` is one game turn. Callers that want to run them in
turn can use :func:`~ariadnegraph.envs.base.split_commands` and step each part.
"""

from __future__ import annotations

import functools
import json
import math
import multiprocessing as mp
import os
import signal
import sys
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from .base import (
    EnvCrashed,
    EnvError,
    EnvSpecError,
    EnvTimeout,
    Observation,
    Oracle,
    sanitize_command,
)
from .cleaning import CleaningScorer
from .generation import check_level, check_seed, ensure_game
from .registry import arigraph_game
from .text import clean_feedback, next_location, parse_inventory, parse_location

DEFAULT_STEP_TIMEOUT = 10.0
START_TIMEOUT = 60.0  # importing textworld and loading a large game's .json
COOKING_MAX_STEPS = 50  # STMA appendix A.1: every task must be finished within 50 turns
FILE_MAX_STEPS = 100
COOKING_GOAL = "Prepare the meal from the recipe and eat it"
COOKING_TASK = (
    "Cook the meal described in the cookbook, then eat it. Read the cookbook in the kitchen first and "
    "remember the recipe. Cut, dice or slice each ingredient with a knife exactly as the recipe says. "
    "Frying needs the stove, roasting needs the oven, grilling needs the BBQ; cooking an ingredient "
    "twice burns it. Closed doors must be opened. Prepare the meal in the kitchen once every ingredient "
    "is ready."
)
TEXTWORLD_OPTIONS = frozenset({"step_timeout", "max_steps", "seed", "start_method"})
_PRELOAD = ["textworld", "ariadnegraph.envs.textworld_env"]
_ORPHAN_CHECK_SECONDS = 5.0  # an idle game process checks this often whether its parent still exists


# ---------------------------------------------------------------------------------------------
# The child process


def default_start_method() -> str:
    """``fork`` on Linux: a game process starts in ~5 ms and scripts need no ``__main__`` guard.

    ``spawn``/``forkserver`` re-import the caller's main script in the child (a script without the
    guard would start its games again) and take ~0.8 s per process. The forked child only loads
    the game (textworld is imported in the parent first, so the child takes no import locks) and
    a wedged start still ends in :class:`EnvTimeout`. Elsewhere (macOS forks badly) ``spawn``.
    """
    return "fork" if sys.platform.startswith("linux") else "spawn"


def _context(start_method: str | None) -> mp.context.BaseContext:
    method = start_method or default_start_method()
    if method not in mp.get_all_start_methods():
        raise EnvSpecError(f"start_method must be one of {', '.join(mp.get_all_start_methods())}, got {method!r}")
    context = mp.get_context(method)
    if method == "forkserver":
        _preload_forkserver(context)
    return context


@functools.cache
def _preload_forkserver(context: mp.context.BaseContext) -> None:
    # Takes effect only if the fork server has not started yet: an import cache, nothing else.
    context.set_forkserver_preload(_PRELOAD)  # type: ignore[attr-defined]


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "no exit status"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


def _one_line(text: object, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _serve(conn: Connection, factory: Callable[[], Any], parent_end: Connection) -> None:
    """Child main loop: build the game, then answer ``(method, args)`` requests until closed."""
    parent_end.close()  # a forked child holds the parent's end too: without this, no EOF if it dies
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    try:
        game = factory()
    except BaseException as exc:  # noqa: BLE001 - everything must reach the parent
        conn.send(("error", type(exc).__name__, _one_line(exc)))
        return
    conn.send(("ok", None))
    parent = os.getppid()
    while True:
        try:
            if not conn.poll(_ORPHAN_CHECK_SECONDS):
                if os.getppid() != parent:
                    break  # the parent died without closing us (other forks may hold our pipe open)
                continue
            method, args = conn.recv()
        except (EOFError, OSError):
            break  # the parent is gone
        if method == "__close__":
            close = getattr(game, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass
            conn.send(("ok", None))
            break
        try:
            reply = ("ok", getattr(game, method)(*args))
        except Exception as exc:  # noqa: BLE001
            reply = ("error", type(exc).__name__, _one_line(exc))
        try:
            conn.send(reply)
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result
            conn.send(("error", type(exc).__name__, _one_line(exc)))


def _stop(process: mp.process.BaseProcess, conn: Connection) -> None:
    if process.is_alive():
        process.kill()
        process.join(2.0)
    conn.close()


class GameProcess:
    """Hosts any object with methods (``reset``, ``step``, ...) in a child process and forwards calls.

    ``factory`` builds the object inside the child; it must be picklable (a module-level class or
    function, or a :func:`functools.partial` of one) unless ``start_method="fork"``. A call that does
    not answer within its timeout kills the child and raises :class:`EnvTimeout`; a child that dies
    raises :class:`EnvCrashed`; an exception inside the child also raises :class:`EnvCrashed`
    (the game's state is unknown after it) and stops the child. After any of these, start a new
    process. Not thread-safe: one caller at a time.
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        *,
        start_method: str | None = None,
        start_timeout: float = START_TIMEOUT,
        label: str = "game",
    ) -> None:
        context = _context(start_method)
        self._conn, child_conn = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child_conn, factory, self._conn), daemon=True, name=f"ariadne-{label}"
        )
        self._process.start()
        child_conn.close()
        self._finalizer = weakref.finalize(self, _stop, self._process, self._conn)
        try:
            self._receive(start_timeout, "starting the game")
        except BaseException:
            self.kill()
            raise

    @property
    def alive(self) -> bool:
        return self._finalizer.alive and self._process.is_alive()

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def call(self, method: str, *args: Any, timeout: float, what: str | None = None) -> Any:
        """Run ``method(*args)`` on the hosted object and return its (picklable) result."""
        what = what or method
        if not self._finalizer.alive:
            raise EnvError(f"game process is stopped; cannot run {what}")
        try:
            try:
                self._conn.send((method, args))
            except OSError:
                code = self._reap()
                raise EnvCrashed(f"game process died ({_describe_exit(code)}) before {what}") from None
            return self._receive(timeout, what)
        except EnvError:
            raise
        except BaseException:
            self.kill()  # interrupted (Ctrl-C): its reply would arrive as the answer to the next call
            raise

    def _receive(self, timeout: float, what: str) -> Any:
        try:
            ready = self._conn.poll(timeout)
        except (EOFError, OSError):
            ready = True  # the pipe is closed: recv below reports the death
        if not ready:
            self.kill()
            raise EnvTimeout(f"{what} did not answer within {timeout}s; game stopped")
        try:
            reply = self._conn.recv()
        except Exception:  # noqa: BLE001 - EOF, a torn message: the child is gone either way
            code = self._reap()
            raise EnvCrashed(f"game process died ({_describe_exit(code)}) during {what}") from None
        if reply[0] == "ok":
            return reply[1]
        self.kill()
        raise EnvCrashed(f"game failed during {what}: {reply[1]}: {reply[2]}; game stopped")

    def _reap(self) -> int | None:
        self._process.join(2.0)
        code = self._process.exitcode
        self.kill()
        return code

    def kill(self) -> None:
        """Stop the child at once (SIGKILL)."""
        self._finalizer()

    def close(self, timeout: float = 2.0) -> None:
        """Ask the hosted object to close, then stop the child; safe to call twice."""
        if not self._finalizer.alive:
            return
        if self._process.is_alive():
            try:
                self._conn.send(("__close__", ()))
                if self._conn.poll(timeout):
                    self._conn.recv()
                self._process.join(timeout)
            except (EOFError, OSError):
                pass
        self._finalizer()


# ---------------------------------------------------------------------------------------------
# What runs inside the child: one TextWorld game answering with plain data


class TextWorldGame:
    """One TextWorld game inside the game process; ``reset``/``step`` return plain dicts.

    Facts are converted to name tuples here, once; everything else is passed through so the parent
    parses text only once.
    """

    def __init__(self, path: str) -> None:
        import textworld  # already loaded when forked from the parent or a preloaded fork server

        self._env = textworld.start(path, request_infos=requested_infos())

    def reset(self) -> dict[str, Any]:
        state = self._env.reset()
        data = self._snapshot(state, done=False)
        data["objective"] = state.get("objective") or ""
        data["walkthrough"] = tuple(state.get("extra.walkthrough") or ())
        return data

    def step(self, command: str) -> dict[str, Any]:
        state, _, done = self._env.step(command)
        return self._snapshot(state, done=bool(done))

    def close(self) -> None:
        self._env.close()

    @staticmethod
    def _snapshot(state: Any, done: bool) -> dict[str, Any]:
        return {
            "feedback": state.feedback or "",
            "score": state.get("score") or 0,
            "max_score": state.get("max_score") or 0,
            "won": bool(state.get("won")),
            "lost": bool(state.get("lost")),
            "done": done,
            "admissible": tuple(state.get("admissible_commands") or ()),
            "facts": tuple((f.name, *(a.name for a in f.arguments)) for f in state.get("facts") or ()),
            "policy": tuple(state.get("policy_commands") or ()),
            "inventory": state.get("inventory"),
            "description": state.get("description"),
            "moves": state.get("moves"),
        }


def requested_infos() -> Any:
    """The infos every TextWorld env asks for (also used by the benchmark's raw baseline)."""
    from textworld import EnvInfos

    return EnvInfos(
        admissible_commands=True, score=True, max_score=True, won=True, lost=True, facts=True,
        policy_commands=True, inventory=True, description=True, moves=True, objective=True,
        extras=["walkthrough"],
    )


# ---------------------------------------------------------------------------------------------
# The env


class TextWorldEnv:
    """A TextWorld game file as a :class:`~ariadnegraph.envs.base.TextEnv`.

    ``goal``, ``task`` and ``max_steps`` are plain attributes for the agent to read; ``task`` (if any)
    is appended to the first observation. After ``max_steps`` commands sent to the game (rejected
    ones do not count) the observation is ``done`` (not ``won``) with ``oracle.extra["truncated"]``
    set; ``max_steps=None`` means no budget. ``seed`` is recorded only: generation seeds are applied
    when the game is made, and TextWorld play is deterministic.
    ``cleaning_targets`` switches scoring to :class:`~ariadnegraph.envs.cleaning.CleaningScorer`.
    ``game_factory`` replaces the :class:`TextWorldGame` host (tests use it to fake hangs and crashes).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        spec: str | None = None,
        goal: str = "",
        task: str | None = None,
        max_steps: int | None = None,
        step_timeout: float = DEFAULT_STEP_TIMEOUT,
        cleaning_targets: dict[str, str] | None = None,
        walkthrough: tuple[str, ...] = (),
        seed: int | None = None,
        start_method: str | None = None,
        game_factory: Callable[[], Any] | None = None,
    ) -> None:
        self.path = Path(path)
        self.spec = spec or f"file:{self.path}"
        self.goal = goal
        self.task = task or None
        self.max_steps = _check_max_steps(max_steps)
        self.step_timeout = _check_timeout(step_timeout)
        self.reset_timeout = max(3 * self.step_timeout, 30.0)  # reset also plans the walkthrough
        self.seed = seed
        self.start_method = start_method
        self._walkthrough = tuple(walkthrough)
        self._scorer = CleaningScorer(cleaning_targets) if cleaning_targets else None
        self._factory = game_factory or functools.partial(TextWorldGame, str(self.path))
        self._process: GameProcess | None = None
        self._steps = 0
        self._done = True
        self._location: str | None = None
        self._from_start: tuple[str, ...] = ()
        self._objective = ""

    # -- protocol ---------------------------------------------------------------------------

    def reset(self) -> Observation:
        """Start a fresh episode (restarting the game process if it was stopped)."""
        if self._process is None or not self._process.alive:
            if self._process is not None:
                self._process.kill()
                self._process = None
            if (self.start_method or default_start_method()) == "fork":
                import textworld  # noqa: F401 - once in the parent, so forked children import nothing
            self._process = GameProcess(self._factory, start_method=self.start_method, label=self.path.stem)
        data = self._call("reset", timeout=self.reset_timeout, what="reset")
        self._steps, self._done = 0, False
        story = clean_feedback(data["feedback"], banner=True)
        self._location = parse_location(story)
        self._objective = data["objective"]
        self._from_start = data["policy"] or data["walkthrough"] or self._walkthrough
        text = f"{story}\n\n{self.task}" if self.task and story else (self.task or story)
        if self._scorer is not None:
            self._scorer.reset(data["facts"])
        return self._observation(data, text, last_action=None, walkthrough=self._from_start)

    def step(self, command: str) -> Observation:
        """Send one command (sanitised; compounds are rejected) and return what happened."""
        if self._process is None:
            raise EnvError("game is not running; call reset() first")
        if self._done:
            raise EnvError("episode is over; call reset() to play again")
        cmd = sanitize_command(command)
        data = self._call("step", cmd, timeout=self.step_timeout, what=f"step {cmd!r}")
        self._steps += 1
        text = clean_feedback(data["feedback"])
        self._location = next_location(self._location, cmd, text)
        if self._scorer is not None:
            self._scorer.update(data["facts"])
        return self._observation(data, text, last_action=cmd, walkthrough=data["policy"])

    def close(self) -> None:
        """Stop the game process; ``reset()`` starts a new one."""
        if self._process is not None:
            self._process.close()
            self._process = None
        self._done = True

    def __enter__(self) -> "TextWorldEnv":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"TextWorldEnv({self.spec!r}, max_steps={self.max_steps})"

    # -- internals --------------------------------------------------------------------------

    def _call(self, method: str, *args: Any, timeout: float, what: str) -> dict[str, Any]:
        assert self._process is not None
        try:
            return self._process.call(method, *args, timeout=timeout, what=what)
        except EnvError:
            self._process.kill()
            self._process, self._done = None, True
            raise

    def _observation(self, data: dict[str, Any], text: str, *, last_action: str | None,
                     walkthrough: tuple[str, ...]) -> Observation:
        facts = data["facts"]
        if self._scorer is not None:
            score, max_score = self._scorer.score, self._scorer.max_score
            won, lost = self._scorer.won, False
        else:
            score, max_score, won, lost = data["score"], data["max_score"], data["won"], data["lost"]
        truncated = bool(self.max_steps and self._steps >= self.max_steps and not (won or lost))
        done = bool(won or lost or data["done"] or truncated)
        self._done = done
        extra: dict[str, Any] = {
            "steps": self._steps,
            "truncated": truncated,
            "location": next((f[2] for f in facts if f[0] == "at" and f[1] == "P" and len(f) == 3), None),
            "objective": self._objective,
            "walkthrough_from_start": self._from_start,
            "inventory_text": data["inventory"],
            "description": data["description"],
            "game_file": str(self.path),
        }
        if self._scorer is not None:
            extra["cleaning"] = self._scorer.summary()
        moves = data["moves"]
        return Observation(
            text=text,
            admissible_actions=() if done else data["admissible"],
            score=float(score),
            max_score=float(max_score),
            done=done,
            won=bool(won),
            lost=bool(lost),
            location=self._location,
            inventory=parse_inventory(data["inventory"]),
            moves=moves if isinstance(moves, int) else self._steps,
            last_action=last_action,
            oracle=Oracle(facts=facts, walkthrough=walkthrough, extra=extra),
        )


def _check_timeout(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise EnvSpecError(f"step_timeout must be a positive number of seconds, got {value!r}")
    return float(value)


def _check_max_steps(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise EnvSpecError(f"max_steps must be a positive integer or None, got {value!r}")
    return value


# ---------------------------------------------------------------------------------------------
# Specs


def _game_json(path: Path) -> dict[str, Any]:
    try:
        with path.with_suffix(".json").open(encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as exc:
        raise EnvSpecError(f"cannot read {path.with_suffix('.json')}: {_one_line(exc)}") from None


def check_game_file(path: Path) -> Path:
    """A playable TextWorld game file: exists, is Z-machine, has its .json."""
    if not path.is_file():
        raise EnvSpecError(f"game file not found: {path}")
    if path.suffix == ".ulx":
        raise EnvSpecError(f"Glulx games (.ulx) are not supported by textworld>=1.7; use a .z8 build: {path}")
    if not (len(path.suffix) == 3 and path.suffix.startswith(".z") and path.suffix[2] in "12345678"):
        raise EnvSpecError(f"not a TextWorld game file (.z8 expected): {path}")
    if not path.with_suffix(".json").is_file():
        json_name = path.with_suffix(".json").name
        raise EnvSpecError(f"{path.name} has no {json_name} next to it; TextWorld needs it for scores and facts")
    return path


def make_textworld(prefix: str, rest: str, **options: Any) -> TextWorldEnv:
    """Build the env for ``arigraph:``, ``cooking:``, ``treasure:``, ``coin:`` or ``file:`` specs.

    Options: ``step_timeout`` (seconds, default 10), ``max_steps`` (overrides the game's budget;
    None = unlimited), ``seed`` (generation seed for generated games, default 1; ignored by fixed
    games, whose play is deterministic), ``start_method`` (multiprocessing start method).
    """
    unknown = sorted(set(options) - TEXTWORLD_OPTIONS)
    if unknown:
        accepted = ", ".join(sorted(TEXTWORLD_OPTIONS))
        raise EnvSpecError(f"unknown option(s) for {prefix}: {', '.join(unknown)}; accepted: {accepted}")
    # Check options before anything slow (generation) happens.
    common = {
        "step_timeout": _check_timeout(options.get("step_timeout", DEFAULT_STEP_TIMEOUT)),
        "start_method": options.get("start_method"),
    }
    _context(common["start_method"])
    override = "max_steps" in options
    if override:
        _check_max_steps(options["max_steps"])
    if prefix == "arigraph":
        game = arigraph_game(rest)
        return TextWorldEnv(
            check_game_file(game.path), spec=f"arigraph:{game.name}", goal=game.goal, task=game.task,
            max_steps=options["max_steps"] if override else game.max_steps,
            cleaning_targets=game.cleaning_targets or None, walkthrough=game.walkthrough,
            seed=options.get("seed"), **common,
        )
    if prefix in ("cooking", "treasure", "coin"):
        level, seed = check_level(prefix, rest), check_seed(options.get("seed"))
        path = ensure_game(prefix, level, seed)
        if prefix == "cooking":
            goal, task, budget = COOKING_GOAL, COOKING_TASK, COOKING_MAX_STEPS
        else:
            data = _game_json(path)
            goal, task = data.get("objective", ""), None
            budget = max(100, 2 * len(data.get("metadata", {}).get("walkthrough", ())))
        return TextWorldEnv(
            path, spec=f"{prefix}:{level}", goal=goal, task=task,
            max_steps=options["max_steps"] if override else budget, seed=seed, **common,
        )
    if prefix == "file":
        if not rest:
            raise EnvSpecError("file: spec needs a path, e.g. file:/games/my_game.z8")
        path = check_game_file(Path(rest).expanduser())
        return TextWorldEnv(
            path, spec=f"file:{path}", goal=_game_json(path).get("objective", ""),
            max_steps=options["max_steps"] if override else FILE_MAX_STEPS, seed=options.get("seed"), **common,
        )
    raise EnvSpecError(f"not a TextWorld spec prefix: {prefix!r}")
