"""Text environments: one protocol (:mod:`.base`), an adapter per game engine (TextWorld, TextWorldExpress,
ScienceWorld, NetHack, Crafter), a registry of specs, and the game families (:mod:`.families`: what the agent
knows of each game).

``make("arigraph:hunt")``, ``make("cooking:2", seed=7)``, ``make("treasure:5")``, ``make("coin:10")``,
``make("file:/path/game.z8")``, ``make("scienceworld:boil")``. Importing this package is cheap: the
game engines are imported only where a game runs.
"""

from __future__ import annotations

from typing import Any

from .base import (
    EnvCrashed,
    EnvError,
    EnvSpecError,
    EnvTimeout,
    InvalidCommand,
    Observation,
    Oracle,
    TextEnv,
    sanitize_command,
    split_commands,
)
from .registry import (
    PREFIXES,
    GameInfo,
    check_served_spec,
    list_games,
    split_spec,
)

__all__ = [
    "PREFIXES",
    "check_served_spec",
    "EnvCrashed",
    "EnvError",
    "EnvSpecError",
    "EnvTimeout",
    "GameInfo",
    "InvalidCommand",
    "Observation",
    "Oracle",
    "TextEnv",
    "check_game",
    "list_games",
    "make",
    "sanitize_command",
    "split_commands",
]


def make(spec: str, **options: Any) -> TextEnv:
    """Build the environment a spec names (not yet reset).

    TextWorld options: ``step_timeout`` (s, default 10), ``max_steps``, ``seed`` (generated games;
    default 1), ``start_method``. ScienceWorld options are those of ``make_scienceworld``; TextWorldExpress options
    those of ``make_twx``.
    Raises :class:`EnvSpecError` (one line) for an unknown prefix, game, level, file or option.
    """
    prefix, rest = split_spec(spec)
    if prefix == "scienceworld":
        from .scienceworld_env import make_scienceworld

        return make_scienceworld(rest, **options)
    if prefix == "twx":
        from .twx_env import make_twx

        return make_twx(rest, **options)
    if prefix == "nethack":
        from .nethack_env import make_nethack

        return make_nethack(rest, **options)
    if prefix == "crafter":
        from .crafter_env import make_crafter

        return make_crafter(rest, **options)
    from .textworld_env import make_textworld

    return make_textworld(prefix, rest, **options)


def check_game(spec: str, **options: Any) -> None:
    """What a run is refused for before anything of it is written: a spec that builds no game and, for a game made of
    the user's own files (``file:``), a story or a .json that is not whole or not its own, which only starting the
    game shows (a generated or bundled game's files are made together)."""
    game = make(spec, **options)
    try:
        if split_spec(spec)[0] == "file":
            game.reset()
    finally:
        game.close()
