"""The catalogue of games: the AriGraph manifest, the generators, and spec parsing.

A spec is ``PREFIX:REST`` (``arigraph:hunt``, ``cooking:2``, ``file:/path/game.z8``). The AriGraph
games are described by ``games.toml`` in the games directory, read here and never copied.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from .. import config
from .base import EnvSpecError

PREFIXES = (
    "arigraph",
    "cooking",
    "treasure",
    "coin",
    "custom",
    "file",
    "scienceworld",
    "twx",
    "nethack",
    "crafter",
)
BARE_SPECS = ("crafter",)  # worlds named without a game: "crafter" is "crafter:"
ARIGRAPH_COLLECTION = "arigraph"
MANIFEST_NAME = "games.toml"

# The RL-comparison cooking games appear only in a comment of the manifest (appendix F of the
# AriGraph paper); they share [game.cook]'s goal and task, 60 steps, native scoring.
_ONE_CUT = "1 ingredient, 1 room; cutting"
_ONE_FULL = "1 ingredient, 1 room; cutting and cooking"
_NINE = "1 ingredient, 9 rooms; no processing"
_THREE = "3 ingredients, 6 rooms; cutting and cooking"
RL_COOKING_GAMES: dict[str, str] = {  # tw-cooking settings read from each game's .json
    "cook_1_1_cut": _ONE_CUT,
    "cook_1_1_cut_1": _ONE_CUT,
    "cook_1_1_cut_2": _ONE_CUT,
    "cook_1_1_full": _ONE_FULL,
    "cook_1_1_full_1": _ONE_FULL,
    "cook_1_1_full_2": _ONE_FULL,
    "cook_1_1_nothing": "1 ingredient, 1 room; no processing",
    "cook_1_9": _NINE,
    "cook_1_9_1": _NINE,
    "cook_1_9_2": _NINE,
    "cook_3_6_1": _THREE,
    "cook_3_6_2": _THREE,
    "cook_rl_baseline": _THREE,
}
RL_MAX_STEPS = 60


@dataclass(frozen=True)
class GameInfo:
    """One line of ``ariadne games list``: a playable game or a family of generated games.

    ``kind`` is ``game`` (a fixed game file), ``generator`` (built from a level and a seed) or
    ``loader`` (plays what you point it at: a file path, a ScienceWorld task).
    """

    name: str
    spec: str
    description: str
    kind: str


@dataclass(frozen=True)
class ArigraphGame:
    """A manifest entry resolved against the games directory."""

    name: str
    path: Path
    goal: str
    task: str
    max_steps: int
    scoring: str  # "native" or "cleaning"
    walkthrough: tuple[str, ...] = ()
    cleaning_targets: dict[str, str] = field(default_factory=dict)


def split_spec(spec: str) -> tuple[str, str]:
    """``"cooking:2"`` -> ``("cooking", "2")``; a spec with an unknown prefix is an EnvSpecError."""
    if isinstance(spec, str) and spec.strip().lower() in BARE_SPECS:
        return spec.strip().lower(), ""
    if not isinstance(spec, str) or ":" not in spec:
        raise EnvSpecError(f"game spec must look like PREFIX:NAME, got {spec!r}; prefixes: {_prefix_list()}")
    prefix, rest = spec.split(":", 1)
    prefix = prefix.strip().lower()
    if prefix not in PREFIXES:
        raise EnvSpecError(f"unknown game spec prefix {prefix!r} in {spec!r}; use one of {_prefix_list()}")
    return prefix, rest.strip()


def env_family(spec: str) -> str:
    """The family of worlds a spec belongs to, which a long-term memory namespace is kept for: its prefix
    (``cooking``, ``twx``, ...), and for ScienceWorld the task (``scienceworld.boil``): DAVIS keeps the gold
    trajectories of each task's training variations for that task, and the 30 tasks share little."""
    prefix, name, _, _ = game_identity(spec)
    return f"scienceworld.{name}" if prefix == "scienceworld" else prefix


# TextWorld games give the evaluation code their true facts and the winning commands from any state (envs/base.Oracle:
# facts, policy), which the role oracles read; the other families give neither.
TRUTH_PREFIXES = ("arigraph", "cooking", "treasure", "coin", "custom", "file")


def gives_truth(spec: str) -> bool:
    return split_spec(spec)[0] in TRUTH_PREFIXES


SPLIT_PREFIXES = ("scienceworld", "twx")  # games with train / dev / test splits (test is the default and the suites')
Split = Literal["train", "dev", "test"]
SPLITS: tuple[str, ...] = get_args(Split)
SEEDED_PREFIXES = ("cooking", "treasure", "coin", "custom", "twx", "nethack", "crafter")  # a seed picks the game
VARIED_PREFIXES = ("scienceworld",)  # a variation picks the game


def has_splits(spec: str) -> bool:
    return split_spec(spec)[0] in SPLIT_PREFIXES


def check_split(spec: str, split: object) -> None:
    """A split is given only for games that have splits, as a name (the game checks which names exist)."""
    if split is not None and not (isinstance(split, str) and has_splits(spec)):
        raise EnvSpecError(f"{spec} takes no split {split!r} (splits are for ScienceWorld and TextWorldExpress)")
    if split is not None and split not in SPLITS:
        raise EnvSpecError(f"{spec} has no split {split!r}: {', '.join(SPLITS)}")


def game_identity(
    spec: str, *, seed: int | None = None, variation: int | None = None
) -> tuple[str, str, int | None, int | None]:
    """What makes two specs the same game: the family, the canonical name, and the seed or variation where
    the family takes one (``cooking: 01`` seed 1 is ``cooking:1`` seed 1; ``arigraph:hunt`` has one game
    whatever the seed)."""
    prefix, rest = split_spec(spec)
    name = " ".join(rest.lower().split())
    if prefix == "scienceworld":
        from .scienceworld_env import resolve_scienceworld_task  # a static table: no JVM is started

        name = resolve_scienceworld_task(rest)[1]
    elif prefix == "file":
        name = str(Path(rest).expanduser().resolve())
    elif name.isdigit():
        name = str(int(name))
    return prefix, name, seed if prefix in SEEDED_PREFIXES else None, variation if prefix in VARIED_PREFIXES else None


def check_served_spec(spec: str) -> None:
    """A spec from a server's client: ``file:`` games must lie inside the games directory or the
    cache of generated games. One message whether or not the path exists, so a client learns
    nothing about the server's files."""
    prefix, rest = split_spec(spec)
    if prefix != "file":
        return
    roots = [config.cache_dir()]
    try:
        roots.append(config.games_dir())
    except config.ConfigError:
        pass
    try:
        path = Path(rest).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        path = None
    if path is None or not any(path.is_relative_to(root.resolve()) for root in roots):
        raise EnvSpecError(
            f"file: games on this server must be inside its games directory ({config.GAMES_DIR_ENV}) or its cache"
        )


def _prefix_list() -> str:
    return ", ".join(f"{p}:" for p in PREFIXES)


def parse_level(kind: str, value: str | int, low: int, high: int) -> int:
    """A generator level as an int within ``[low, high]``, else a one-line EnvSpecError."""
    try:
        level = int(str(value).strip())
    except ValueError:
        raise EnvSpecError(f"{kind} level must be an integer {low}-{high}, got {value!r}") from None
    if not low <= level <= high:
        raise EnvSpecError(f"{kind} level must be {low}-{high}, got {level}")
    return level


def arigraph_dir() -> Path:
    """The folder holding the AriGraph games and their manifest."""
    try:
        return config.games_dir() / ARIGRAPH_COLLECTION
    except config.ConfigError as exc:
        raise EnvSpecError(str(exc)) from None


@functools.lru_cache(maxsize=8)
def _load_manifest(path: Path, mtime_ns: int) -> dict[str, Any]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def load_manifest(folder: Path | None = None) -> dict[str, Any]:
    """The parsed ``games.toml`` (cached until the file changes)."""
    path = (folder or arigraph_dir()) / MANIFEST_NAME
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise EnvSpecError(f"AriGraph manifest not found: {path}; run `ariadne games fetch arigraph`") from None
    try:
        return _load_manifest(path, stat.st_mtime_ns)
    except tomllib.TOMLDecodeError as exc:
        raise EnvSpecError(f"cannot read {path}: {' '.join(str(exc).split())}") from None


def arigraph_names(manifest: dict[str, Any]) -> list[str]:
    """Manifest games first (in file order), then the RL cooking games."""
    names = list(manifest.get("game", {}))
    return names + [n for n in RL_COOKING_GAMES if n not in names]


def arigraph_game(name: str) -> ArigraphGame:
    """Resolve ``arigraph:NAME`` to a game file plus its goal, task, step budget and scoring."""
    folder = arigraph_dir()
    manifest = load_manifest(folder)
    games = manifest.get("game", {})
    if name in games:
        entry = games[name]
        path = folder / entry["file"]
        goal, task = entry.get("goal", ""), entry.get("task", "")
        max_steps, scoring = int(entry.get("max_steps", 100)), entry.get("scoring", "native")
        walkthrough = tuple(entry.get("walkthrough", ()))
    elif name in RL_COOKING_GAMES:
        cook = games.get("cook", {})
        path = folder / name / "game.z8"
        goal, task = cook.get("goal", ""), cook.get("task", "")
        max_steps, scoring, walkthrough = RL_MAX_STEPS, "native", ()
    else:
        raise EnvSpecError(f"unknown arigraph game {name!r}; choose from {', '.join(arigraph_names(manifest))}")
    if not path.is_file():
        raise EnvSpecError(f"arigraph game file not found: {path}")
    targets: dict[str, str] = {}
    if scoring == "cleaning":
        targets = dict(manifest.get("cleaning", {}).get("targets", {}))
        if not targets:
            raise EnvSpecError(f"arigraph:{name} is scored by cleaning targets but {MANIFEST_NAME} has none")
    elif scoring != "native":
        raise EnvSpecError(f"arigraph:{name} has unknown scoring {scoring!r} in {MANIFEST_NAME}")
    return ArigraphGame(name, path, goal, task, max_steps, scoring, walkthrough, targets)


def list_games() -> list[GameInfo]:
    """Every built-in game and generator, for ``ariadne games list``.

    Without a games directory the AriGraph games are still listed, marked as not fetched.
    """
    infos: list[GameInfo] = []
    missing = ""
    try:
        manifest: dict[str, Any] | None = load_manifest()
    except EnvSpecError as exc:
        manifest, missing = None, f"not available: {exc}"
    if manifest is not None:
        games = manifest.get("game", {})
        for name in arigraph_names(manifest):
            if name in games:
                entry = games[name]
                scoring = " (cleaning score)" if entry.get("scoring") == "cleaning" else ""
                text = f"AriGraph: {entry.get('goal', name)}{scoring}, {entry.get('max_steps', '?')} steps"
            else:
                text = f"AriGraph RL cooking game: {RL_COOKING_GAMES[name]}, {RL_MAX_STEPS} steps"
            infos.append(GameInfo(name, f"arigraph:{name}", text, "game"))
    else:
        infos.append(GameInfo("arigraph", "arigraph:NAME", f"AriGraph games ({missing})", "game"))
    generators = (
        ("cooking", "STMA cooking levels 1-4 generated with tw-make (seed=, default 1)"),
        ("treasure", "TextWorld treasure hunter, levels 1-30 (seed=, default 1)"),
        ("coin", "TextWorld coin collector, levels 1-300 (seed=, default 1)"),
        ("custom", "TextWorld quests whose goal names only the last action, levels 1-3 (seed=, default 1)"),
    )
    infos += [GameInfo(name, f"{name}:LEVEL", text, "generator") for name, text in generators]
    infos += [
        GameInfo("file", "file:PATH", "any TextWorld .z8 game (with its .json for scores and facts)", "loader"),
    ]
    from .scienceworld_env import (
        scienceworld_tasks,  # static task list: no JVM is started
    )

    infos += [
        GameInfo(
            name,
            f"scienceworld:{name}",
            f"ScienceWorld task {task_id} (variation=, split=test|dev|train; easy)",
            "game",
        )
        for task_id, name in scienceworld_tasks()
    ]
    from .twx_env import TWX_SETTINGS  # a static table: no JVM is started

    infos += [
        GameInfo(
            name,
            f"twx:{name}",
            f"TextWorldExpress {setting.description} (seed=index 0-999, split=test|dev|train)",
            "game",
        )
        for name, setting in TWX_SETTINGS.items()
    ]
    from .nethack_env import NETHACK_TASKS  # static: NLE is not started

    infos += [
        GameInfo(task, f"nethack:{task}", f"NetHack (NLE) {text}; score = BALROG progression (seed=)", "game")
        for task, (_, text) in NETHACK_TASKS.items()
    ]
    infos.append(
        GameInfo(
            "crafter", "crafter", "Crafter, as text: 22 achievements, 17 actions; score = achievements (seed=)", "game"
        )
    )
    return infos
