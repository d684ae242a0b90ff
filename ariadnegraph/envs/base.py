"""The environment protocol every text game speaks, and the errors it raises.

Agents see an :class:`Observation` without its ``oracle`` part (use :meth:`Observation.for_agent`);
only evaluation code reads ``oracle`` (true facts, walkthroughs, gold paths).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol, runtime_checkable


def one_line(text: object, limit: int = 300) -> str:
    """``text`` folded onto one line and shortened: error messages must stay one line."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


class EnvError(RuntimeError):
    """Base class for environment failures; its message is one line meant for a user."""


class EnvSpecError(EnvError, ValueError):
    """The spec or its options name no game we can build (unknown kind, level, task, file)."""


class EnvTimeout(EnvError):
    """A game step did not answer within the step timeout; the game process was stopped."""


class EnvCrashed(EnvError):
    """The game process died while handling a command."""


class InvalidCommand(EnvError, ValueError):
    """A command that must not reach the game (empty, several commands glued together, ...)."""


@dataclass(frozen=True)
class Oracle:
    """Ground truth for evaluation code only. Never shown to the agent."""

    facts: tuple[tuple[str, ...], ...] = ()  # TextWorld facts as (predicate, arg1, arg2, ...)
    walkthrough: tuple[str, ...] = ()  # TextWorld walkthrough / ScienceWorld gold path
    # the commands that win from where the game is now, where the game knows them (TextWorld)
    policy: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Observation:
    """What one ``reset``/``step`` returns. ``text`` is exactly what the agent reads."""

    text: str
    admissible_actions: tuple[str, ...] = ()
    score: float = 0.0
    max_score: float = 0.0
    done: bool = False
    won: bool = False
    lost: bool = False
    location: str | None = None  # current room, when the text reveals it
    inventory: tuple[str, ...] | None = None  # None when unknown
    moves: int = 0
    last_action: str | None = None
    oracle: Oracle = field(default_factory=Oracle)

    @property
    def normalized_score(self) -> float:
        return self.score / self.max_score if self.max_score else 0.0

    def for_agent(self) -> "Observation":
        """The same observation with the oracle removed: the only form agent code may hold."""
        return replace(self, oracle=Oracle())

    def to_dict(self, include_oracle: bool = False) -> dict[str, Any]:
        data = asdict(self)
        if not include_oracle:
            data.pop("oracle")
        return data


@runtime_checkable
class TextEnv(Protocol):
    """A text environment: ``reset`` starts an episode, ``step`` sends one command."""

    spec: str

    def reset(self) -> Observation: ...

    def step(self, command: str) -> Observation: ...

    def close(self) -> None: ...


# "take key then go north", "take key. go north" reach the Inform parser as one line, which runs both
# and desynchronises TextWorld's per-turn infos for the rest of the episode (TextWorld#366), so they
# are split before they get there. A period between digits ("1.5") is not a separator; a plain "and"
# is not either, because object names contain it ("salt and pepper shakers") and Inform's answer to
# "take key and go north" is a harmless parser error.
_COMMAND_SEPARATORS = re.compile(r"\s*(?:;|\band\s+then\b|\bthen\b|,\s*and\b|\.(?!\d)|(?<!\d)\.|\n)\s*", re.IGNORECASE)
_MAX_COMMAND_CHARS = 200
# Out-of-game verbs: "quit"/"restart" leave the interpreter waiting for a yes/no (every later answer
# is shifted by one), "save"/"script"/"transcript" write files into the working directory, and "tw-*"
# are TextWorld's own control commands (turning off its action trace breaks state tracking). A
# backslash starts a dumb-frotz escape: "\q" makes the interpreter loop forever.
_META_VERBS = frozenset({"quit", "q", "restart", "save", "restore", "script", "transcript", "unscript", "noscript"})


def split_commands(text: str) -> list[str]:
    """Split a possibly compound command into single game commands, in order."""
    parts = [p.strip(" .,!?\t") for p in _COMMAND_SEPARATORS.split(text or "")]
    return [p for p in parts if p]


def sanitize_command(text: str) -> str:
    """Return one safe game command, or raise :class:`InvalidCommand` with the reason.

    Compound commands are rejected, never split silently (callers wanting to run them in turn use
    :func:`split_commands`); so are interpreter escapes and out-of-game verbs (quit, restart, save,
    script, tw-...). Control characters are removed and whitespace folded.
    """
    if not isinstance(text, str):
        raise InvalidCommand(f"command must be a string, got {type(text).__name__}")
    printable = "".join(ch if ch.isprintable() or ch == "\n" else " " for ch in text)  # newlines separate
    cleaned = " ".join(printable.split()).strip(" .!?")
    if not cleaned:
        raise InvalidCommand("empty command")
    if len(cleaned) > _MAX_COMMAND_CHARS:
        raise InvalidCommand(f"command longer than {_MAX_COMMAND_CHARS} characters")
    parts = split_commands(printable)
    if len(parts) > 1:
        raise InvalidCommand(f"one command at a time, got {len(parts)}: {parts}")
    if "\\" in cleaned:
        raise InvalidCommand(f"backslash not allowed in a command (it escapes to the interpreter): {cleaned!r}")
    verb = cleaned.split()[0].lower()
    if verb in _META_VERBS or verb.startswith("tw-"):
        raise InvalidCommand(f"{verb!r} is an out-of-game command; use reset() or close() instead")
    return cleaned
