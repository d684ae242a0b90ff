"""Crafter (Hafner, 2021) as a text game, behind the :class:`~ariadnegraph.envs.base.TextEnv` protocol.

Crafter renders 64×64 images; the agent reads a text description built here from its semantic map and
info dict, in the spirit of the descriptions SPRING and AgentKit gave their agents: what the player
faces, the nearest two things of each kind within the 9×7 view (with steps east/west and north/south),
the vitals, the inventory and the achievements still to unlock. Commands are Crafter's 17 actions
written as words ("move left", "do", "make wood pickaxe").

``score`` is the number of achievements unlocked (``max_score`` 22), so the normalised score is the
progression BALROG and AgentKit report. ``location`` is the 8×8 region of the 64×64 world the player
stands in (the KG's rooms); ``oracle.extra`` holds the position, the achievements, the health and the
episode's reward so far (Crafter's own reward, summed: what AgentKit's table 1 reports).
The game runs in a child process with a deadline per step.
"""

from __future__ import annotations

import functools
from typing import Any

from .base import EnvError, EnvSpecError, Observation, Oracle, sanitize_command
from .process import GameProcess
from .text import offset_text

ACTIONS = ("noop", "move left", "move right", "move up", "move down", "do", "sleep", "place stone", "place table",
           "place furnace", "place plant", "make wood pickaxe", "make stone pickaxe", "make iron pickaxe",
           "make wood sword", "make stone sword", "make iron sword")
ACHIEVEMENTS = 22
DEFAULT_MAX_STEPS = 10_000  # Crafter's own episode length
STEP_TIMEOUT = 10.0
START_TIMEOUT = 60.0
REGION = 8  # cells per side of a region (the KG's "room")
_VIEW = (9, 7)  # columns, rows of the world the player sees
_GOAL = ("Survive in an open world and unlock as many of Crafter's 22 achievements as you can: collect wood, "
         "place a table, make pickaxes and swords, collect stone, coal, iron and diamonds, eat, drink, sleep, "
         "and defeat zombies and skeletons.")


class _CrafterGame:
    """Lives in the game process."""

    def __init__(self, seed: int) -> None:
        import crafter

        self._env = crafter.Env(seed=seed, length=None)
        self._names: dict[int, str] = {}
        self._reward = 0.0  # the episode's reward so far, as the crafter package computes it

    def reset(self) -> dict[str, Any]:
        self._env.reset()
        _obs, reward, _done, info = self._env.step(0)  # a noop: reset gives no info dict
        self._reward = float(reward)  # that noop is a step of the episode: its reward counts
        self._names = {i: name for name, i in self._env._world._mat_ids.items() if name}
        self._names.update({i: cls.__name__.lower() for cls, i in self._env._sem_view._obj_ids.items()})
        return self._report(info, done=False)

    def step(self, index: int) -> dict[str, Any]:
        _obs, reward, done, info = self._env.step(index)
        self._reward += float(reward)
        return self._report(info, done=done)

    def _report(self, info: dict[str, Any], done: bool) -> dict[str, Any]:
        player = self._env._player
        x, y = (int(v) for v in info["player_pos"])
        fx, fy = (int(v) for v in player.facing)
        return {"text": describe(info["semantic"], (x, y), (fx, fy), self._names,
                                 info["inventory"], info["achievements"]),
                "pos": [int(v) for v in info["player_pos"]], "inventory": {k: int(v) for k, v in info["inventory"].items()},
                "achievements": sorted(k for k, v in info["achievements"].items() if v > 0), "done": bool(done),
                "health": int(info["inventory"]["health"]), "reward": round(self._reward, 6)}


def describe(semantic: Any, pos: tuple[int, int], facing: tuple[int, int], names: dict[int, str],
             inventory: dict[str, int], achievements: dict[str, int]) -> str:
    """The text the agent reads for one Crafter frame."""
    x, y = pos
    width, height = len(semantic), len(semantic[0])
    found: dict[str, list[tuple[int, int, int]]] = {}
    half_w, half_h = _VIEW[0] // 2, _VIEW[1] // 2
    for dx in range(-half_w, half_w + 1):
        for dy in range(-half_h, half_h + 1):
            cx, cy = x + dx, y + dy
            if (dx, dy) == (0, 0) or not (0 <= cx < width and 0 <= cy < height):
                continue
            name = names.get(int(semantic[cx][cy]), "unknown")
            if name in ("grass", "sand", "path"):
                continue  # the ground: walkable, said once below
            found.setdefault(name, []).append((abs(dx) + abs(dy), dx, dy))
    fx, fy = x + facing[0], y + facing[1]
    facing_name = names.get(int(semantic[fx][fy]), "the edge of the world") if 0 <= fx < width and 0 <= fy < height else "the edge of the world"
    lines = [f"You face {facing_name} ({offset_text(*facing)})."]
    if found:
        seen = []
        for name, spots in sorted(found.items(), key=lambda item: min(item[1])[0]):
            nearest = sorted(spots)[:2]
            seen.append(f"{name} ({'; '.join(offset_text(dx, dy) for _, dx, dy in nearest)})")
        lines.append("You see: " + ", ".join(seen) + ". Elsewhere is grass, sand or path you can walk on.")
    else:
        lines.append("You see only grass, sand and path around you.")
    vitals = ", ".join(f"{k} {inventory.get(k, 0)}/9" for k in ("health", "food", "drink", "energy"))
    items = [f"{k.replace('_', ' ')} {v}" for k, v in inventory.items() if v and k not in ("health", "food", "drink", "energy")]
    lines.append(f"Vitals: {vitals}.")
    lines.append(f"Inventory: {', '.join(items) if items else 'nothing'}.")
    left = [k.replace("_", " ") for k, v in sorted(achievements.items()) if not v]
    lines.append(f"Achievements left ({len(left)}): {', '.join(left) if left else 'none'}.")
    return "\n".join(lines)


class CrafterTextEnv:
    def __init__(self, *, seed: int, max_steps: int, step_timeout: float) -> None:
        self.spec = "crafter"
        self.seed, self.max_steps, self.step_timeout = seed, max_steps, step_timeout
        self.goal = _GOAL
        self._process: GameProcess | None = None
        self._last: Observation | None = None
        self._steps = 0

    def _start(self) -> GameProcess:
        if self._process is None or not self._process.alive:
            self._process = GameProcess(functools.partial(_CrafterGame, self.seed), start_timeout=START_TIMEOUT, label="crafter")
        return self._process

    def reset(self) -> Observation:
        self._steps = 0
        report = self._start().call("reset", timeout=START_TIMEOUT, what=f"starting crafter seed {self.seed}")
        self._last = self._observation(report, None)
        return self._last

    def step(self, command: str) -> Observation:
        if self._last is None:
            raise EnvError("crafter: call reset() before step()")
        command = sanitize_command(command).lower().replace("_", " ")
        if self._last.done:
            return self._last
        if command not in ACTIONS:
            # Not a Crafter action: the world goes on without the player acting (a noop), as a game would.
            report = self._start().call("step", 0, timeout=self.step_timeout, what="noop in crafter")
            report = {**report, "text": f"'{command}' is not an action here; nothing happened.\n{report['text']}"}
        else:
            report = self._start().call("step", ACTIONS.index(command), timeout=self.step_timeout, what=f"'{command}' in crafter")
        self._steps += 1
        self._last = self._observation(report, command)
        return self._last

    def _observation(self, report: dict[str, Any], command: str | None) -> Observation:
        unlocked = report["achievements"]
        x, y = report["pos"]
        dead = report["health"] <= 0
        return Observation(
            text=report["text"] if command is not None else f"{self.goal}\n\n{report['text']}",
            admissible_actions=ACTIONS,
            score=float(len(unlocked)),
            max_score=float(ACHIEVEMENTS),
            done=report["done"] or dead or self._steps >= self.max_steps,
            won=len(unlocked) == ACHIEVEMENTS,
            lost=dead,
            location=f"region {x // REGION}-{y // REGION}",
            inventory=tuple(f"{k.replace('_', ' ')}" for k, v in report["inventory"].items()
                            if v and k not in ("health", "food", "drink", "energy")),
            moves=self._steps,
            last_action=command,
            oracle=Oracle(extra={"x": x, "y": y, "health": report["health"], "achievements": ",".join(unlocked), "reward": report["reward"],
                                 "valid": command in ACTIONS if command is not None else None}),
        )

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None


def make_crafter(rest: str = "", *, seed: int | None = None, max_steps: int | None = None, step_timeout: float = STEP_TIMEOUT,
                 variation: int | None = None) -> CrafterTextEnv:
    if rest:
        raise EnvSpecError(f"crafter takes no game name, got 'crafter:{rest}' (use seed= for another world)")
    if seed is not None and (type(seed) is not int or seed < 0):
        raise EnvSpecError(f"crafter seed must be a non-negative integer, got {seed!r}")
    return CrafterTextEnv(seed=1 if seed is None else seed, max_steps=max_steps or DEFAULT_MAX_STEPS, step_timeout=step_timeout)
