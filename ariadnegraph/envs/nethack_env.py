"""NetHack (the NetHack Learning Environment, NLE) as a text game, behind the TextEnv protocol.

AriGraph section 4.2 plays NetHack with its graph memory; BALROG measures "progression" from how deep
the player got and which experience level it reached. NLE's language wrapper does not build here, so
the text layer is our own, over NLE's observation keys: the game's message, what lies next to the
player in each of the eight directions and what it can see farther off (from ``screen_descriptions``,
nearest first, with steps east/west and north/south), the two status lines and the inventory.

Commands are NLE's actions as words: the eight directions ("north", "far southeast"), "up"/"down" on
stairs, "wait", "more" (read on after --More--), commands such as "search", "pickup", "eat", "pray",
"kick", and the characters NLE allows as answers ("y" is not one of them in the challenge task). Meta
commands that end or leave the game (save, quit, shell, options) are not offered.

``score`` is BALROG's progression in percent (:func:`progression`, ``max_score`` 100); NetHack's own
score, the depth, the experience level and the bottom line are in ``oracle.extra``. ``location`` is
the dungeon level ("dungeon level 2"), the KG's room. The game runs in a child process with a deadline
per step.
"""

from __future__ import annotations

import functools
from typing import Any

from .base import EnvError, EnvSpecError, Observation, Oracle, sanitize_command
from .nethack_progress import progression
from .process import GameProcess
from .text import offset_text

# task -> (NLE environment id, description)
NETHACK_TASKS: dict[str, tuple[str, str]] = {
    "challenge": ("NetHackChallenge-v0", "the NetHack Challenge: a full game as a random role, as BALROG plays it"),
    "score": ("NetHackScore-v0", "a full game as a fixed role, scored by NetHack's in-game score"),
    "staircase": ("NetHackStaircase-v0", "reach the down staircase of the first level"),
    "gold": ("NetHackGold-v0", "collect gold"),
    "eat": ("NetHackEat-v0", "eat"),
    "scout": ("NetHackScout-v0", "explore as much of the dungeon as possible"),
    "oracle": ("NetHackOracle-v0", "reach the Oracle"),
}
DEFAULT_MAX_STEPS = 500
STEP_TIMEOUT = 10.0
START_TIMEOUT = 60.0
_KEYS = ("glyphs", "chars", "blstats", "message", "inv_strs", "tty_chars", "screen_descriptions")
_DIRECTIONS = {
    "N": "north",
    "E": "east",
    "S": "south",
    "W": "west",
    "NE": "northeast",
    "SE": "southeast",
    "SW": "southwest",
    "NW": "northwest",
}
_OFFERED_COMMANDS = {
    "APPLY",
    "CAST",
    "CHAT",
    "CLOSE",
    "DROP",
    "EAT",
    "ENGRAVE",
    "ESC",
    "FIGHT",
    "FIRE",
    "FORCE",
    "INVENTORY",
    "JUMP",
    "KICK",
    "LOOK",
    "LOOT",
    "OFFER",
    "OPEN",
    "PAY",
    "PICKUP",
    "PRAY",
    "PUTON",
    "QUAFF",
    "QUIVER",
    "READ",
    "REMOVE",
    "RIDE",
    "RUB",
    "SEARCH",
    "SIT",
    "SWAP",
    "TAKEOFF",
    "THROW",
    "TIP",
    "TURN",
    "UNTRAP",
    "WEAR",
    "WIELD",
    "WIPE",
    "ZAP",
}
_CHARACTERS = {"PLUS": "+", "MINUS": "-", "SPACE": "space", "APOS": "'", "QUOTE": '"', "DOLLAR": "$"}
_GROUND = {"floor of a room", "dark part of a room", "corridor", "lit corridor", "", "stone", "wall", "doorway"}
_STATUS = {
    "x": 0,
    "y": 1,
    "score": 9,
    "hp": 10,
    "max_hp": 11,
    "depth": 12,
    "gold": 13,
    "xlvl": 18,
    "turn": 20,
    "hunger": 21,
}


def action_name(action: Any) -> str | None:
    """Our word for an NLE action (None: not offered to the agent)."""
    kind, name = type(action).__name__, action.name
    if kind == "CompassDirection":
        return _DIRECTIONS[name]
    if kind == "CompassDirectionLonger":
        return f"far {_DIRECTIONS[name]}"
    if kind == "MiscDirection":
        return {"UP": "up", "DOWN": "down", "WAIT": "wait"}.get(name)
    if kind == "MiscAction":
        return "more" if name == "MORE" else None
    if kind == "Command":
        return name.lower() if name in _OFFERED_COMMANDS else None
    if kind == "TextCharacters":
        return _CHARACTERS.get(name, name.removeprefix("NUM_"))
    return None


def _text(row: Any) -> str:
    return bytes(row).decode("latin-1").rstrip("\x00").rstrip()


def describe(obs: dict[str, Any], far: int = 12) -> str:
    """The text the agent reads: message, neighbours, what is in sight, status lines, inventory."""
    stats = obs["blstats"]
    x, y = int(stats[0]), int(stats[1])
    seen = obs["screen_descriptions"]
    rows, cols = len(seen), len(seen[0])
    around = []
    for name, (dx, dy) in (
        ("north", (0, -1)),
        ("northeast", (1, -1)),
        ("east", (1, 0)),
        ("southeast", (1, 1)),
        ("south", (0, 1)),
        ("southwest", (-1, 1)),
        ("west", (-1, 0)),
        ("northwest", (-1, -1)),
    ):
        cx, cy = x + dx, y + dy
        what = _text(seen[cy][cx]) if 0 <= cx < cols and 0 <= cy < rows else ""
        around.append(f"{name}: {what or 'dark'}")
    things = []
    for cy in range(rows):
        for cx in range(cols):
            what = _text(seen[cy][cx])
            if (cx, cy) != (x, y) and what not in _GROUND and max(abs(cx - x), abs(cy - y)) > 1:
                things.append((abs(cx - x) + abs(cy - y), what, cx - x, cy - y))
    things.sort()
    lines = []
    message = _text(obs["message"])
    if message:
        lines.append(f"Message: {message}")
    lines.append("Next to you: " + "; ".join(around) + ".")
    if things:
        lines.append(
            "In sight: " + "; ".join(f"{what} ({offset_text(dx, dy)})" for _, what, dx, dy in things[:far]) + "."
        )
    tty = obs["tty_chars"]
    lines.append("Status: " + " | ".join(line for line in (_text(tty[-2]).strip(), _text(tty[-1]).strip()) if line))
    items = [_text(row) for row in obs["inv_strs"] if _text(row)]
    lines.append("Inventory: " + ("; ".join(items) if items else "nothing") + ".")
    return "\n".join(lines)


class _NetHackGame:
    """Lives in the game process: NLE and its NetHack."""

    def __init__(self, env_id: str, seed: int) -> None:
        import gymnasium as gym
        import nle  # noqa: F401 - registers the NetHack environments

        self._env = gym.make(env_id, observation_keys=_KEYS)
        self._seed = seed
        self._actions = list(getattr(self._env.unwrapped, "actions"))  # noqa: B009 - NLE's actions, in index order (untyped)
        self.names = [action_name(a) for a in self._actions]

    def reset(self) -> dict[str, Any]:
        obs, _info = self._env.reset(seed=self._seed)
        return self._report(obs, done=False, end="")

    def step(self, index: int) -> dict[str, Any]:
        obs, _reward, terminated, truncated, info = self._env.step(index)
        return self._report(obs, done=bool(terminated or truncated), end=str(info.get("end_status", "")))

    def _report(self, obs: dict[str, Any], done: bool, end: str) -> dict[str, Any]:
        stats = {key: int(obs["blstats"][i]) for key, i in _STATUS.items()}
        return {
            "text": describe(obs),
            "stats": stats,
            "done": done,
            "end": end,
            "inventory": [_text(row) for row in obs["inv_strs"] if _text(row)],
            "names": [n for n in self.names if n is not None],
        }

    def index(self, name: str) -> int:
        return self.names.index(name)


class NetHackTextEnv:
    def __init__(self, task: str, *, seed: int, max_steps: int, step_timeout: float) -> None:
        self.spec = f"nethack:{task}"
        self.task, self.seed, self.max_steps, self.step_timeout = task, seed, max_steps, step_timeout
        self.goal = (
            "Play NetHack: go as deep into the dungeon as you can and gain experience levels, without dying "
            f"({NETHACK_TASKS[task][1]})."
        )
        self._process: GameProcess | None = None
        self._last: Observation | None = None
        self._names: list[str] = []
        self._steps = 0
        self._best = 0.0

    def _start(self) -> GameProcess:
        if self._process is None or not self._process.alive:
            factory = functools.partial(_NetHackGame, NETHACK_TASKS[self.task][0], self.seed)
            self._process = GameProcess(factory, start_timeout=START_TIMEOUT, label=f"nethack-{self.task}")
        return self._process

    def reset(self) -> Observation:
        self._steps, self._best = 0, 0.0
        report = self._start().call("reset", timeout=START_TIMEOUT, what=f"starting {self.spec} seed {self.seed}")
        self._names = report["names"]
        self._last = self._observation(report, None, valid=None)
        return self._last

    def step(self, command: str) -> Observation:
        if self._last is None:
            raise EnvError(f"{self.spec}: call reset() before step()")
        command = sanitize_command(command).lower()
        if self._last.done:
            return self._last
        valid = command in self._names
        if valid:
            index = self._start().call("index", command, timeout=self.step_timeout, what="naming an action")
            report = self._start().call("step", index, timeout=self.step_timeout, what=f"'{command}' in {self.spec}")
        else:
            report = self._start().call(
                "step",
                self._start().call("index", "wait", timeout=self.step_timeout),
                timeout=self.step_timeout,
                what=f"waiting in {self.spec}",
            )
            report = {**report, "text": f"'{command}' is not a command here; you wait a turn.\n{report['text']}"}
        self._steps += 1
        self._last = self._observation(report, command, valid=valid)
        return self._last

    def _observation(self, report: dict[str, Any], command: str | None, *, valid: bool | None) -> Observation:
        stats = report["stats"]
        self._best = max(self._best, progression(stats["depth"], stats["xlvl"]))
        died = report["done"] and "DEATH" in report["end"]
        return Observation(
            text=report["text"] if command is not None else f"{self.goal}\n\n{report['text']}",
            admissible_actions=tuple(self._names),
            score=self._best,
            max_score=100.0,
            done=report["done"] or self._steps >= self.max_steps,
            won=self._best >= 100.0,
            lost=died,
            location=f"dungeon level {stats['depth']}",
            inventory=tuple(report["inventory"]),
            moves=self._steps,
            last_action=command,
            oracle=Oracle(extra={**stats, "end": report["end"], "valid": valid}),
        )

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None


def make_nethack(
    task: str,
    *,
    seed: int | None = None,
    max_steps: int | None = None,
    step_timeout: float = STEP_TIMEOUT,
    variation: int | None = None,
) -> NetHackTextEnv:
    if variation is not None:  # accepted by the signature (one call for every family), never used: refused
        raise EnvSpecError(
            f"nethack: games take no variation (ScienceWorld's option), got {variation!r}; seed= picks the dungeon"
        )
    if task not in NETHACK_TASKS:
        raise EnvSpecError(f"unknown NetHack task '{task}'; use one of {', '.join(NETHACK_TASKS)}")
    if seed is not None and (type(seed) is not int or seed < 0):
        raise EnvSpecError(f"nethack seed must be a non-negative integer, got {seed!r}")
    return NetHackTextEnv(
        task, seed=0 if seed is None else seed, max_steps=max_steps or DEFAULT_MAX_STEPS, step_timeout=step_timeout
    )
