"""Generated TextWorld games (STMA cooking levels, treasure hunter, coin collector, custom quests), cached on disk.

Games are made by the ``tw-make`` command in a subprocess: Inform 7 compilation is slow (~5 s) and
keeping it out of our process means a crash or a hang in the compiler can be timed out and cannot
leave global state (random seeds, loaded grammars) behind. A game lives at
``cache_dir()/games/<kind>/level{L}_seed{S}.z8`` next to its ``.json``. Generation writes into a
temporary folder and renames the ``.json`` then the ``.z8`` into place, so a ``.z8`` in the cache
always has its complete ``.json``: a killed generation is redone, never trusted.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import config
from .base import EnvError, EnvSpecError, EnvTimeout
from .registry import parse_level

DEFAULT_SEED = 1  # used when no seed is given, so `cooking:2` is always the same game
GENERATION_TIMEOUT = 600.0
# STMA appendix A.1: level -> (--recipe, --take, --go); always with --open --cook --cut.
COOKING_LEVELS: dict[int, tuple[int, int, int]] = {1: (1, 0, 6), 2: (2, 1, 9), 3: (3, 2, 9), 4: (4, 3, 12)}
# Custom quests whose goal names only the quest's last action (tw-make custom --only-last-action): the rest is for the
# player to find. Level -> (rooms, objects at least, the quest's actions).
CUSTOM_LEVELS: dict[int, tuple[int, int, int]] = {1: (3, 6, 3), 2: (5, 10, 5), 3: (8, 16, 8)}
LEVEL_RANGES: dict[str, tuple[int, int]] = {
    "cooking": (1, 4),
    "treasure": (1, 30),
    "coin": (1, 300),
    "custom": (1, len(CUSTOM_LEVELS)),
}
_CHALLENGES = {"treasure": "tw-treasure_hunter", "coin": "tw-coin_collector"}
_STALE_TEMP_SECONDS = 3600.0


def check_seed(seed: object) -> int:
    """A generation seed as a non-negative int, else a one-line EnvSpecError."""
    if seed is None:
        return DEFAULT_SEED
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        raise EnvSpecError(f"seed must be a non-negative integer, got {seed!r}")
    try:
        value = int(seed)
    except ValueError:
        raise EnvSpecError(f"seed must be a non-negative integer, got {seed!r}") from None
    if value < 0:
        raise EnvSpecError(f"seed must be a non-negative integer, got {value}")
    return value


def check_level(kind: str, level: object) -> int:
    """Validate the generator kind and its level (cooking 1-4, treasure 1-30, coin 1-300)."""
    if kind not in LEVEL_RANGES:
        raise EnvSpecError(f"unknown game generator {kind!r}; use one of {', '.join(LEVEL_RANGES)}")
    low, high = LEVEL_RANGES[kind]
    return parse_level(kind, level, low, high)  # type: ignore[arg-type]


def tw_make_args(kind: str, level: int, seed: int, output: Path) -> list[str]:
    """The ``tw-make`` arguments (without the program) for one game."""
    if kind == "cooking":
        recipe, take, go = COOKING_LEVELS[level]
        challenge = [
            "tw-cooking",
            "--recipe",
            str(recipe),
            "--take",
            str(take),
            "--go",
            str(go),
            "--open",
            "--cook",
            "--cut",
        ]
    elif kind == "custom":
        rooms, objects, actions = CUSTOM_LEVELS[level]
        challenge = [
            "custom",
            "--world-size",
            str(rooms),
            "--nb-objects",
            str(objects),
            "--quest-length",
            str(actions),
            "--only-last-action",
        ]
    else:
        challenge = [_CHALLENGES[kind], "--level", str(level)]
    return [*challenge, "--seed", str(seed), "--output", str(output), "-f", "--silent"]


def tw_make_command() -> list[str]:
    """How to run ``tw-make``: the one installed next to this Python, else the one on PATH."""
    local = Path(sys.executable).parent / "tw-make"
    if local.is_file():
        return [str(local)]
    found = shutil.which("tw-make")
    if found:
        return [found]
    raise EnvError("tw-make not found next to the Python interpreter or on PATH; install textworld")


def cooking_game_made_as(settings: Mapping[str, Any]) -> tuple[int, int] | None:
    """The cooking game (level, seed) that tw-make's recorded settings (a game .json's ``metadata.settings``) make, or
    None for settings none of the levels uses: a game copied or renamed is still the level and seed it was made as.
    (The treasure and coin generators record no settings.)"""
    seed = settings.get("seed")
    if settings.get("subcommand") != "tw-cooking" or type(seed) is not int:
        return None
    skills = all(settings.get(k) is True for k in ("open", "cook", "cut"))
    defaults = not settings.get("drop") and not settings.get("recipe_seed") and not settings.get("split")
    recipe = (settings.get("recipe"), settings.get("take"), settings.get("go"))
    level = next((level for level, made in COOKING_LEVELS.items() if made == recipe), None)
    return (level, seed) if level is not None and skills and defaults else None


def cached_game_path(kind: str, level: int, seed: int) -> Path:
    """Where the cache keeps one generated game (it may not exist yet)."""
    return config.cache_dir() / "games" / kind / f"level{level}_seed{seed}.z8"


def is_cached(path: Path) -> bool:
    """A cached game is usable only with its .json (written first, so the .z8 proves both)."""
    return path.is_file() and path.with_suffix(".json").is_file()


def _run_tw_make(args: list[str], timeout: float, what: str) -> None:
    """Run tw-make; a failure or a timeout becomes a one-line EnvError naming ``what``."""
    command = tw_make_command() + args
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise EnvTimeout(f"tw-make did not finish within {timeout:g}s for {what}") from None
    if result.returncode != 0:
        lines = (result.stderr or result.stdout or "").strip().splitlines()
        reason = lines[-1].strip() if lines else f"exit status {result.returncode}"
        raise EnvError(f"tw-make failed for {what}: {reason}")


def _remove_stale_temps(folder: Path) -> None:
    now = time.time()
    for temp in folder.glob(".tmp-*"):
        try:
            if now - temp.stat().st_mtime > _STALE_TEMP_SECONDS:
                shutil.rmtree(temp, ignore_errors=True)
        except OSError:
            pass


def ensure_game(kind: str, level: object, seed: object = None, *, timeout: float = GENERATION_TIMEOUT) -> Path:
    """The path of the generated game, generating it first unless the cache already has it."""
    level = check_level(kind, level)
    seed = check_seed(seed)
    target = cached_game_path(kind, level, seed)
    if is_cached(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temps(target.parent)
    temp = Path(tempfile.mkdtemp(prefix=f".tmp-{target.stem}-", dir=target.parent))
    try:
        produced = temp / "game.z8"
        what = f"{kind} level {level} seed {seed}"
        _run_tw_make(tw_make_args(kind, level, seed, produced), timeout, what)
        if not is_cached(produced):
            raise EnvError(f"tw-make produced no game for {what}")
        os.replace(produced.with_suffix(".json"), target.with_suffix(".json"))
        os.replace(produced, target)  # last: a .z8 in the cache means both files are complete
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return target


def generate_game(kind: str, level: object, seed: object = None, out_dir: Path | None = None) -> Path:
    """Generate (or reuse) a game; with ``out_dir``, copy its .z8 and .json there and return the copy."""
    path = ensure_game(kind, level, seed)
    if out_dir is None:
        return path
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    copy = out_dir / path.name
    shutil.copyfile(path.with_suffix(".json"), copy.with_suffix(".json"))
    shutil.copyfile(path, copy)
    return copy
