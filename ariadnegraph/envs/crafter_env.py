"""Crafter (Hafner, 2021) as a text game, behind the :class:`~ariadnegraph.envs.base.TextEnv` protocol.

Crafter renders 64×64 images; the agent reads a text description built here from its semantic map and
info dict, in the spirit of the descriptions SPRING and AgentKit gave their agents: what the player
faces, the nearest two things of each kind within the 9×7 view (with steps east/west and north/south),
the vitals, the inventory and the achievements still to unlock. Commands are Crafter's 17 actions
written as words ("move left", "do", "make wood pickaxe").

``score`` is the number of achievements unlocked (``max_score`` 22), so the normalised score is the
progression BALROG and AgentKit report. ``location`` is the 8×8 region of the 64×64 world the player
stands in (the KG's rooms); ``oracle.extra`` holds the position, the achievements, the four vitals, the
count of each item (``inv_<item>``), the terrain underfoot, the terrain of the view (``view``, written
by :func:`encode_view`), the achievements earned this step (``events``), what hurt the player this
step (``attack``) — what EMemBench's Crafter questions (table 15) are computed from — and the episode's
reward so far (Crafter's own reward, summed: what AgentKit's table 1 reports).
The game runs in a child process with a deadline per step.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Iterable, Iterator
from typing import Any

from .base import EnvError, EnvSpecError, Observation, Oracle, sanitize_command
from .crafter_manual import crafter_data
from .process import GameProcess
from .text import offset_text

ACTIONS = (
    "noop",
    "move left",
    "move right",
    "move up",
    "move down",
    "do",
    "sleep",
    "place stone",
    "place table",
    "place furnace",
    "place plant",
    "make wood pickaxe",
    "make stone pickaxe",
    "make iron pickaxe",
    "make wood sword",
    "make stone sword",
    "make iron sword",
)
ACHIEVEMENTS = 22
DEFAULT_MAX_STEPS = 10_000  # Crafter's own episode length
STEP_TIMEOUT = 10.0
START_TIMEOUT = 60.0
REGION = 8  # cells per side of a region (the KG's "room")
_VIEW = (9, 7)  # columns, rows of the world the player sees
VITALS = ("health", "food", "drink", "energy")
ITEMS = (
    "sapling",
    "wood",
    "stone",
    "coal",
    "iron",
    "diamond",
    "wood_pickaxe",
    "stone_pickaxe",
    "iron_pickaxe",
    "wood_sword",
    "stone_sword",
    "iron_sword",
)
MATERIALS = ("water", "grass", "stone", "path", "sand", "tree", "lava", "coal", "iron", "diamond", "table", "furnace")
WALKABLE = ("grass", "sand", "path")
_BUILT_PLACES = ("table", "furnace")  # the places Crafter builds; stone and plants are placed, not built


@functools.cache
def recipes() -> dict[str, dict[str, int]]:
    """What each thing Crafter builds uses up, read from the installed package's data.yaml ("make", and
    "place" for a table or furnace; a made tool also needs a table or furnace near)."""
    data = crafter_data()
    built = {name: dict(rule.get("uses") or {}) for name, rule in data["make"].items()}
    built.update({name: dict(data["place"][name].get("uses") or {}) for name in _BUILT_PLACES})
    return built


_CODES = "wgsPdtlciDTF"  # one letter per MATERIALS entry, in order, for the logged view
_OFF_MAP = "#"
_GOAL = (
    "Survive in an open world and unlock as many of Crafter's 22 achievements as you can: collect wood, "
    "place a table, make pickaxes and swords, collect stone, coal, iron and diamonds, eat, drink, sleep, "
    "and defeat zombies and skeletons."
)


class _ChunkObjects:
    """The creatures of one of Crafter's map chunks, in the order they came. Crafter keeps them in a ``set`` of
    objects, which iterates in the order of their memory addresses; it draws from that order which creature to
    despawn, so the same seed and commands played in another process (a resumed run's replay, the game forked from
    another agent) gave another game. Held so, the order is the game's own."""

    def __init__(self, objects: Iterable[Any] = ()) -> None:
        self._objects: dict[Any, None] = dict.fromkeys(objects)

    def add(self, obj: Any) -> None:
        self._objects[obj] = None

    def remove(self, obj: Any) -> None:
        del self._objects[obj]

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._objects))

    def __len__(self) -> int:
        return len(self._objects)

    def __contains__(self, obj: object) -> bool:
        return obj in self._objects


def _ordered_chunks(world: Any) -> None:
    """A freshly generated Crafter world's chunk sets replaced by ``_ChunkObjects``, each in an order its creatures'
    places decide (world generation added them in an order of addresses too)."""
    chunks = collections.defaultdict(_ChunkObjects)
    for key, objects in world._chunks.items():
        chunks[key] = _ChunkObjects(sorted(objects, key=lambda o: (tuple(int(x) for x in o.pos), type(o).__name__)))
    world._chunks = chunks


class _CrafterGame:
    """Lives in the game process."""

    def __init__(self, seed: int) -> None:
        import crafter

        self._env = crafter.Env(seed=seed, length=None)
        self._names: dict[int, str] = {}
        self._counts: dict[str, int] = {}  # achievement -> times earned, to tell this step's events
        self._health = 0
        self._reward = 0.0  # the episode's reward so far, as the crafter package computes it

    def reset(self) -> dict[str, Any]:
        self._env.reset()
        _ordered_chunks(self._env._world)
        _obs, reward, _done, info = self._env.step(0)  # a noop: reset gives no info dict
        self._reward = float(reward)  # that noop is a step of the episode: its reward counts
        self._names = {i: name for name, i in self._env._world._mat_ids.items() if name}
        self._names.update({i: cls.__name__.lower() for cls, i in self._env._sem_view._obj_ids.items()})
        self._counts = dict(info["achievements"])
        self._health = int(info["inventory"]["health"])
        return self._report(info, done=False)

    def step(self, index: int) -> dict[str, Any]:
        _obs, reward, done, info = self._env.step(index)
        self._reward += float(reward)
        return self._report(info, done=done)

    def _report(self, info: dict[str, Any], done: bool) -> dict[str, Any]:
        player = self._env._player
        x, y = (int(v) for v in info["player_pos"])
        fx, fy = (int(v) for v in player.facing)
        world = self._env._world
        materials = {i: name for name, i in world._mat_ids.items() if name}
        view = encode_view(
            lambda cx, cy: (
                materials.get(int(world._mat_map[cx, cy]))
                if 0 <= cx < world.area[0] and 0 <= cy < world.area[1]
                else None
            ),
            (x, y),
        )
        events = sorted(k for k, v in info["achievements"].items() if v > self._counts.get(k, 0))
        self._counts = dict(info["achievements"])
        health = int(info["inventory"]["health"])
        # Crafter records no cause of damage: a zombie that struck this step has just reset its cooldown to 5;
        # a fall of 2 or more otherwise is an arrow (hunger, thirst and fatigue take 1 at a time; lava takes all).
        zombie = any(
            type(o).__name__ == "Zombie" and getattr(o, "cooldown", 0) == 5 and o.distance(player) <= 1
            for o in world.objects
        )
        underfoot = materials.get(int(world._mat_map[x, y]), "")
        attack = (
            "zombie"
            if zombie
            else "lava"
            if underfoot == "lava" and health <= 0
            else "arrow"
            if self._health - health >= 2
            else ""
        )
        self._health = health
        return {
            "text": describe(info["semantic"], (x, y), (fx, fy), self._names, info["inventory"], info["achievements"]),
            "pos": [int(v) for v in info["player_pos"]],
            "inventory": {k: int(v) for k, v in info["inventory"].items()},
            "achievements": sorted(k for k, v in info["achievements"].items() if v > 0),
            "done": bool(done),
            "health": health,
            "view": view,
            "terrain": underfoot,
            "events": ",".join(events),
            "attack": attack,
            "reward": round(self._reward, 6),
        }


def describe(
    semantic: Any,
    pos: tuple[int, int],
    facing: tuple[int, int],
    names: dict[int, str],
    inventory: dict[str, int],
    achievements: dict[str, int],
) -> str:
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
    facing_name = (
        names.get(int(semantic[fx][fy]), "the edge of the world")
        if 0 <= fx < width and 0 <= fy < height
        else "the edge of the world"
    )
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
    items = [
        f"{k.replace('_', ' ')} {v}"
        for k, v in inventory.items()
        if v and k not in ("health", "food", "drink", "energy")
    ]
    lines.append(f"Vitals: {vitals}.")
    lines.append(f"Inventory: {', '.join(items) if items else 'nothing'}.")
    left = [k.replace("_", " ") for k, v in sorted(achievements.items()) if not v]
    lines.append(f"Achievements left ({len(left)}): {', '.join(left) if left else 'none'}.")
    return "\n".join(lines)


def encode_view(material_at: Any, pos: tuple[int, int]) -> str:
    """The terrain of the view around ``pos`` as rows north to south of one letter per cell west to east
    ("/" between rows; "#" off the map): the one writer of the logged ``view``."""
    x, y = pos
    half_w, half_h = _VIEW[0] // 2, _VIEW[1] // 2
    rows = []
    for dy in range(-half_h, half_h + 1):
        row = ""
        for dx in range(-half_w, half_w + 1):
            name = material_at(x + dx, y + dy)
            row += _CODES[MATERIALS.index(name)] if name in MATERIALS else _OFF_MAP
        rows.append(row)
    return "/".join(rows)


def decode_view(view: str, pos: tuple[int, int]) -> dict[tuple[int, int], str]:
    """A logged ``view`` back to world cells: (x, y) -> terrain name (cells off the map left out)."""
    x, y = pos
    rows = view.split("/") if view else []
    half_h = len(rows) // 2
    cells = {}
    for r, row in enumerate(rows):
        half_w = len(row) // 2
        for c, code in enumerate(row):
            if code != _OFF_MAP and code in _CODES:
                cells[(x + c - half_w, y + r - half_h)] = MATERIALS[_CODES.index(code)]
    return cells


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
            self._process = GameProcess(
                functools.partial(_CrafterGame, self.seed), start_timeout=START_TIMEOUT, label="crafter"
            )
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
            report = self._start().call(
                "step", ACTIONS.index(command), timeout=self.step_timeout, what=f"'{command}' in crafter"
            )
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
            inventory=tuple(
                f"{k.replace('_', ' ')}"
                for k, v in report["inventory"].items()
                if v and k not in ("health", "food", "drink", "energy")
            ),
            moves=self._steps,
            last_action=command,
            oracle=Oracle(
                extra={
                    "x": x,
                    "y": y,
                    "health": report["health"],
                    "achievements": ",".join(unlocked),
                    "reward": report["reward"],
                    "valid": command in ACTIONS if command is not None else None,
                    **{k: report["inventory"].get(k, 0) for k in VITALS},
                    **{f"inv_{k}": report["inventory"].get(k, 0) for k in ITEMS},
                    **{k: report.get(k, "") for k in ("terrain", "view", "events", "attack")},
                }
            ),
        )

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None


def make_crafter(
    rest: str = "",
    *,
    seed: int | None = None,
    max_steps: int | None = None,
    step_timeout: float = STEP_TIMEOUT,
    variation: int | None = None,
) -> CrafterTextEnv:
    if variation is not None:  # accepted by the signature (one call for every family), never used: refused
        raise EnvSpecError(
            f"crafter: games take no variation (ScienceWorld's option), got {variation!r}; seed= picks the world"
        )
    if rest:
        raise EnvSpecError(f"crafter takes no game name, got 'crafter:{rest}' (use seed= for another world)")
    if seed is not None and (type(seed) is not int or seed < 0):
        raise EnvSpecError(f"crafter seed must be a non-negative integer, got {seed!r}")
    return CrafterTextEnv(
        seed=1 if seed is None else seed, max_steps=max_steps or DEFAULT_MAX_STEPS, step_timeout=step_timeout
    )
