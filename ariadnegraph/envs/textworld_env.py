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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .base import (
    EnvError,
    EnvSpecError,
    Observation,
    Oracle,
    one_line,
    sanitize_command,
)
from .cleaning import CleaningScorer
from .families.textworld_cooking import TEXTWORLD_WAYS, appliance_needs
from .generation import check_level, check_seed, ensure_game
from .process import GameProcess, check_start_method, default_start_method
from .registry import arigraph_game
from .text import clean_feedback, next_location, parse_inventory, parse_location

DEFAULT_STEP_TIMEOUT = 10.0
COOKING_MAX_STEPS = 50  # STMA appendix A.1: every task must be finished within 50 turns
FILE_MAX_STEPS = 100
COOKING_GOAL = "Read the recipe in the cookbook, cook the meal it describes, then eat the meal"
COOKING_TASK = (  # STMA's task statement, with where each way of cooking is done as the cooking family's table says
    "Cook the meal described in the cookbook, then eat it. Read the cookbook in the kitchen first and "
    "remember the recipe. Cut, dice or slice each ingredient with a knife exactly as the recipe says. "
    f"{appliance_needs(TEXTWORLD_WAYS)[:1].upper()}{appliance_needs(TEXTWORLD_WAYS)[1:]}; cooking an ingredient "
    "twice burns it. Closed doors must be opened. Prepare the meal in the kitchen once every ingredient "
    "is ready."
)
TEXTWORLD_OPTIONS = frozenset({"step_timeout", "max_steps", "seed", "start_method"})


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


_STATES = frozenset({"open", "closed", "locked", "sliced", "diced", "chopped", "fried", "roasted", "grilled", "burned"})


def true_triplets(facts: tuple[tuple[str, ...], ...]) -> list[tuple[str, str, str]]:
    """TextWorld's true facts in the memory's words (``player``, ``inventory``, ``in``/``on``, ``is STATE``,
    ``A north of B``): what a role oracle writes into memory (``Preset.oracle_extraction``)."""

    def name(arg: str) -> str:
        return "player" if arg == "P" else "inventory" if arg == "I" else arg

    found = []
    for predicate, *args in facts:
        if any(a.startswith(("ingredient_", "slot_")) or a == "RECIPE" for a in args):
            continue
        if predicate in ("at", "in", "on") and len(args) == 2:
            found.append((name(args[0]), "on" if predicate == "on" else "in", name(args[1])))
        elif predicate in _STATES and len(args) == 1:
            found.append((name(args[0]), "is", predicate))
        elif predicate.endswith("_of") and len(args) == 2 and predicate[:-3] in ("north", "south", "east", "west"):
            found.append((args[0], f"{predicate[:-3]} of", args[1]))
    return found


def requested_infos() -> Any:
    """The infos every TextWorld env asks for (also used by the benchmark's raw baseline)."""
    from textworld import EnvInfos

    return EnvInfos(
        admissible_commands=True,
        score=True,
        max_score=True,
        won=True,
        lost=True,
        facts=True,
        policy_commands=True,
        inventory=True,
        description=True,
        moves=True,
        objective=True,
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
        check_json: bool = False,
    ) -> None:
        """``check_json``: check at each reset that the .json beside the story is its own (a ``file:`` game, whose two
        files a user put together; a generated or bundled game's are made together)."""
        self.path = Path(path)
        self.check_json = check_json
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
        if self.check_json:
            _check_own_json(self.path, self._location, data["facts"])
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

    def _observation(
        self, data: dict[str, Any], text: str, *, last_action: str | None, walkthrough: tuple[str, ...]
    ) -> Observation:
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
            oracle=Oracle(facts=facts, walkthrough=walkthrough, policy=tuple(data["policy"]), extra=extra),
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
        raise EnvSpecError(f"cannot read {path.with_suffix('.json')}: {one_line(exc)}") from None


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
    _check_story_length(path)
    return path


# A Z-machine story's header gives its length (the word at 0x1A) in units that grow with its version.
_LENGTH_UNIT = {1: 2, 2: 2, 3: 2, 4: 4, 5: 4, 6: 8, 7: 8, 8: 8}


def _check_story_length(path: Path) -> None:
    """A story file whole as its header declares it: cut short, or with bytes changed (a bad copy or download), it is
    refused here, before a game process is started (the interpreter dies on a cut story at the first reset, after a
    run has been created, and plays a garbled one until it reaches the damage). The header holds the story's length
    (the word at 0x1A, in units that grow with the version) and the sum of its bytes after the header (0x1C)."""
    story = path.read_bytes()  # (a story is at most 512 KB)
    version = story[0] if story else 0
    if len(story) < 64 or version not in _LENGTH_UNIT:
        raise EnvSpecError(f"not a Z-machine story (no valid header): {path}")
    declared = int.from_bytes(story[0x1A:0x1C], "big") * _LENGTH_UNIT[version]
    if not declared:  # an old story may declare neither: nothing to check
        return
    if len(story) < declared:
        raise EnvSpecError(
            f"game file {path} is cut short: its header declares {declared:,} bytes, it holds {len(story):,}"
        )
    checksum = int.from_bytes(story[0x1C:0x1E], "big")
    if checksum and sum(story[0x40:declared]) & 0xFFFF != checksum:
        raise EnvSpecError(f"game file {path} is damaged: its bytes do not add up to its header's checksum")


def _check_own_json(path: Path, story_room: str | None, facts: tuple[tuple[str, ...], ...]) -> None:
    """The game's .json describes this story: where the story says the player starts is where the .json's facts put
    them. A .json of another game would score and describe another world under this story's text."""
    start = next((f[2] for f in facts if f[0] == "at" and f[1] == "P" and len(f) == 3), None)

    def key(name: str | None) -> str:
        return "".join(ch for ch in (name or "").lower() if ch.isalnum())

    if story_room and start and key(story_room) != key(start):
        raise EnvSpecError(
            f"{path.with_suffix('.json').name} is not the .json of {path.name}: the story starts in the "
            f"{story_room}, the .json in the {start}"
        )


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
    common: dict[str, Any] = {
        "step_timeout": _check_timeout(options.get("step_timeout", DEFAULT_STEP_TIMEOUT)),
        "start_method": options.get("start_method"),
    }
    check_start_method(common["start_method"])
    override = "max_steps" in options
    if override:
        _check_max_steps(options["max_steps"])
    if prefix == "arigraph":
        game = arigraph_game(rest)
        return TextWorldEnv(
            check_game_file(game.path),
            spec=f"arigraph:{game.name}",
            goal=game.goal,
            task=game.task,
            max_steps=options["max_steps"] if override else game.max_steps,
            cleaning_targets=game.cleaning_targets or None,
            walkthrough=game.walkthrough,
            seed=options.get("seed"),
            **common,
        )
    if prefix in ("cooking", "treasure", "coin", "custom"):
        level, seed = check_level(prefix, rest), check_seed(options.get("seed"))
        path = ensure_game(prefix, level, seed)
        if prefix == "cooking":
            goal, task, budget = COOKING_GOAL, COOKING_TASK, COOKING_MAX_STEPS
        else:
            data = _game_json(path)
            goal, task = data.get("objective", ""), None
            budget = max(100, 2 * len(data.get("metadata", {}).get("walkthrough", ())))
        return TextWorldEnv(
            path,
            spec=f"{prefix}:{level}",
            goal=goal,
            task=task,
            max_steps=options["max_steps"] if override else budget,
            seed=seed,
            **common,
        )
    if prefix == "file":
        if not rest:
            raise EnvSpecError("file: spec needs a path, e.g. file:/games/my_game.z8")
        path = check_game_file(Path(rest).expanduser())
        return TextWorldEnv(
            path,
            spec=f"file:{path}",
            goal=_game_json(path).get("objective", ""),
            max_steps=options["max_steps"] if override else FILE_MAX_STEPS,
            seed=options.get("seed"),
            check_json=True,
            **common,
        )
    raise EnvSpecError(f"not a TextWorld spec prefix: {prefix!r}")
