"""Whether the AriGraph paper's games can be read here: a fresh clone has no games folder beside it
(`ariadne games fetch arigraph` brings them where the network allows); tests that read them are skipped,
with the reason, and everything else runs (tests/conftest.py)."""

from __future__ import annotations

import functools

ARIGRAPH_GAMES_MARK = "arigraph_games"


@functools.cache
def arigraph_games_missing() -> str | None:
    """Why the AriGraph paper's games cannot be read here (None: they can)."""
    from ariadnegraph.envs.base import EnvError
    from ariadnegraph.envs.registry import load_manifest

    try:
        load_manifest()
    except EnvError as exc:
        return f"needs the AriGraph games ({' '.join(str(exc).split())})"
    return None
