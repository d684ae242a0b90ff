"""TextWorldExpress (Jansen & Côté, 2022) behind the :class:`~ariadnegraph.envs.base.TextEnv` protocol.

``twx:SETTING`` names one of the 16 game settings TALES (Microsoft, 2025) plays in its TWX column (see
:data:`TWX_SETTINGS`; ``twx:coincollector``, ``twx:simonsayswithmemory50``): a TextWorldExpress game
with fixed generation parameters. Keyword options
override them (``make("twx:coincollector", seed=3, split="test", numLocations=4)``); ``seed`` is an index into
the split's seeds (TextWorldExpress keeps 1,000 per split: train, dev, test), ``split`` defaults to
``test``.

The game runs in a child process (:class:`~ariadnegraph.envs.process.GameProcess`) that owns its JVM,
so a step that hangs ends as :class:`EnvTimeout` and a JVM that dies as :class:`EnvCrashed`.

Observations: ``text`` is the game's answer (on ``reset``: the task description, a blank line, the
first observation); ``admissible_actions`` the game's valid actions; ``score`` TextWorldExpress's
normalised score (0..1, what TALES reports), ``max_score`` 1; ``won``/``lost`` its task success and
failure. ``oracle.extra['valid']`` says whether the command was one of the valid actions (TALES counts
the others). ``oracle.walkthrough`` is the gold action sequence; ``oracle.facts`` the true world state
in TextWorld's fact form (location, containment, state, adjacency), from ``getObjectTree()`` for CookingWorld
and from the same objects' public fields for the other games with rooms (:meth:`_TwxGame._tree`); SimonSays has
no world, so no facts and no memory fidelity.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .base import EnvError, EnvSpecError, EnvTimeout, Observation, Oracle, one_line, sanitize_command
from .process import GameProcess

SPLITS = ("train", "dev", "test")
SEEDS_PER_SPLIT = 1000
DEFAULT_MAX_STEPS = 100
STEP_TIMEOUT = 10.0
START_TIMEOUT = 60.0  # fork, then a JVM start (about 0.3 s idle; far more on a loaded machine)


@dataclass(frozen=True)
class TwxSetting:
    game: str  # TextWorldExpress's game name
    params: dict[str, int]
    tales_name: str  # the name TALES gives the setting
    description: str


# TALES's 16 TWX settings (tale-suite 1.0.0rc2, tales/textworld_express/twx_data.py): the game and its
# generation parameters; our names are TALES's in lower case.
TWX_SETTINGS: dict[str, TwxSetting] = {}


def _register(tales_name: str, game: str, description: str, **params: int) -> None:
    TWX_SETTINGS[tales_name.lower()] = TwxSetting(game, params, tales_name, description)


_register(
    "CookingWorld",
    "cookingworld",
    "CookingWorld: read the recipe, gather, cut and cook the ingredients, eat the meal",
    numLocations=1,
    numIngredients=2,
    numDistractorItems=5,
    includeDoors=0,
    limitInventorySize=0,
)
_register(
    "TextWorldCommonsense",
    "twc",
    "TextWorld Commonsense: put things away where they belong",
    numLocations=1,
    numItemsToPutAway=1,
    includeDoors=0,
    limitInventorySize=0,
)
_register(
    "CoinCollector",
    "coin",
    "CoinCollector: find the coin and take it",
    numLocations=1,
    numDistractorItems=5,
    limitInventorySize=0,
)
_register("Arithmetic", "arithmetic", "Arithmetic: solve the problem, put the matching quantity in the box")
_register(
    "MapReader",
    "mapreader",
    "MapReader: read the map, fetch the coin, bring it back",
    numLocations=2,
    maxDistanceApart=1,
    maxDistractorItemsPerLocation=2,
    includeDoors=0,
    limitInventorySize=0,
)
_register("Sorting", "sorting", "Sorting: put the items in the box in order of quantity")
for _length in (10, 50, 100):
    _register(
        f"SimonSays{_length}",
        "simonsays",
        f"SimonSays {_length}: do what Simon says, one command at a time",
        gameLength=_length,
        numDistractors=4,
        memorization=0,
    )
for _length in (10, 50, 100):
    _register(
        f"SimonSaysWithMemory{_length}",
        "simonsays",
        f"SimonSaysWithMemory {_length}: all {_length} commands are shown once, at the start",
        gameLength=_length,
        numDistractors=4,
        memorization=1,
        verbose=0,
    )
for _length in (10, 50, 100):
    _register(
        f"SimonSaysWithMemory{_length}Verbose",
        "simonsays",
        f"SimonSaysWithMemory {_length}, verbose: the commands shown once, with more text each step",
        gameLength=_length,
        numDistractors=4,
        memorization=1,
        verbose=1,
    )
_register("PeckingOrder", "peckingorder", "PeckingOrder: follow the instruction book, one step after another")


def twx_setting(name: str) -> TwxSetting:
    try:
        return TWX_SETTINGS[name]
    except KeyError:
        raise EnvSpecError(f"unknown TextWorldExpress game '{name}'; use one of {', '.join(TWX_SETTINGS)}") from None


def _params_text(params: dict[str, int]) -> str:
    return ",".join(f"{key}={value}" for key, value in params.items())


class _TwxGame:
    """Lives in the game process: TextWorldExpress's env and its JVM."""

    def __init__(self, game: str, params: str, split: str, seed_index: int) -> None:
        from textworld_express import TextWorldExpressEnv

        self._env = TextWorldExpressEnv(envStepLimit=100_000)  # our own step limit is counted outside
        self._game, self._params, self._split = game, params, split
        seeds = {
            "train": self._env.getValidSeedsTrain,
            "dev": self._env.getValidSeedsDev,
            "test": self._env.getValidSeedsTest,
        }[split]()
        self.seed = int(seeds[seed_index])

    def reset(self) -> dict[str, Any]:
        try:
            text, infos = self._env.reset(
                seed=self.seed,
                gameFold=self._split,
                gameName=self._game,
                gameParams=self._params,
                generateGoldPath=True,
            )
        except ValueError as exc:  # TextWorldExpress refuses parameters with a ValueError
            return {"error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - py4j errors from the generator (mapreader's known trap)
            reason = re.search(r"ERROR: ([^\n]+)", str(exc))
            return {
                "error": f"the generator failed for this seed: "
                f"{reason.group(1).strip() if reason else type(exc).__name__}"
            }
        return {
            "text": text,
            "infos": _plain(infos),
            "gold": list(self._env.getGoldActionSequence()),
            "tree": self._tree(),
            "properties": dict(self._env.getGenerationProperties()),
        }

    def step(self, command: str) -> dict[str, Any]:
        text, _reward, _done, infos = self._env.step(command)
        return {"text": text, "infos": _plain(infos), "tree": self._tree()}

    def _tree(self) -> dict[str, Any]:
        """The game's true state in ``getObjectTree()``'s shape: CookingWorld writes it itself; the other games
        that have rooms (CoinCollector, TextWorldCommonsense, MapReader, Arithmetic, Sorting, PeckingOrder) keep it
        in their public Scala fields, read here through py4j (a few calls a step). SimonSays has none: {}."""
        game = self._env.server.game()
        try:
            rooms = list(game.locations())
        except Exception:  # noqa: BLE001 - py4j: a one-room game (Arithmetic, Sorting, PeckingOrder) keeps no list
            try:
                rooms = [game.agentLocation()]
            except Exception:  # noqa: BLE001 - no rooms at all (SimonSays)
                return {}
        tree = self._env.getObjectTree()  # {} but in CookingWorld
        if not tree:
            tree = {
                "player_location": game.agentLocation().name(),
                "inventory": json.loads(game.agentInventory().toJSON()).get("contents") or {},
                "locations": {room.name(): json.loads(room.toJSON()) for room in rooms},
            }
        for room in rooms:  # the trees call every door "door": its name is the one the text gives it
            place = tree["locations"].get(room.name()) or {}
            for key in _DOORS:
                if place.get(key):
                    place[key]["name"] = getattr(room, key)().doorDescription()
        return tree


def _plain(infos: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (list(v) if isinstance(v, (list, tuple)) else v)
        for k, v in infos.items()
        if isinstance(v, (str, int, float, bool, list, tuple, type(None)))
    }


_LOCATION = re.compile(r"\bYou are in the ([^.]+)\.")
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.IGNORECASE)


def parse_location(text: str) -> str | None:
    found = _LOCATION.search(text or "")
    return found.group(1).strip() if found else None


def parse_inventory(text: str) -> tuple[str, ...]:
    """TextWorldExpress's inventory answer, one item per indented line after its header."""
    items = []
    for line in (text or "").splitlines()[1:]:
        item = line.strip().rstrip(".")
        if item and "inventory is currently empty" not in item.lower():
            items.append(_ARTICLE.sub("", item))
    return tuple(items)


# -- the true world state as TextWorld facts --------------------------------------------------------
_STATES = {
    "isSliced": "sliced",
    "isDiced": "diced",
    "isChopped": "chopped",
    "isFried": "fried",
    "isRoasted": "roasted",
    "isGrilled": "grilled",
}
_DIRECTIONS = {
    "locationNorth": "north_of",
    "locationSouth": "south_of",
    "locationEast": "east_of",
    "locationWest": "west_of",
}
_DOORS = ("doorNorth", "doorSouth", "doorEast", "doorWest")
# Holders that say what they hold "in" although they do not open: the Box of Arithmetic, Sorting and MapReader
# ("a box, that contains ..."); other holders that do not open are supports ("a counter that has ... on it").
_HOLDS_IN = frozenset({"box"})


def tree_facts(tree: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """``getObjectTree()`` as TextWorld facts: ``at(P, room)``, ``at(thing, room)``, ``in(item, I)``,
    ``in``/``on`` for contents (``in`` for things that open and the box, ``on`` for tables and counters), ``open``
    / ``closed`` (doors too, by the name the text gives them), cutting and cooking states, ``needs_cooking``,
    ``cuttable``/``cookable`` and the rooms' exits (``east_of(backyard, kitchen)``: the backyard lies east of the
    kitchen). Things the game has deleted (eaten, used up) are left out."""
    if not tree or "locations" not in tree:
        return ()
    facts: list[tuple[str, ...]] = [("at", "P", tree["player_location"])]
    for thing in _present(tree.get("inventory")):
        facts.append(("in", thing["name"], "I"))
        facts += _thing_facts(thing)
    for room, place in tree["locations"].items():
        for key, relation in _DIRECTIONS.items():
            if place.get(key):
                facts.append((relation, place[key], room))
        for key in _DOORS:
            if door := place.get(key):
                facts.append(("open" if door.get("isOpen") else "closed", door["name"]))
        for thing in _present(place.get("contents")):
            facts.append(("at", thing["name"], room))
            facts += _thing_facts(thing)
    return tuple(dict.fromkeys(facts))


def _present(contents: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [thing for thing in (contents or {}).values() if not thing.get("isDeleted")]


def _thing_facts(thing: dict[str, Any]) -> Iterator[tuple[str, ...]]:
    name = thing["name"]
    if thing.get("isOpenable"):
        yield ("open" if thing.get("isOpen") else "closed", name)
    for key, state in _STATES.items():
        if thing.get(key):
            yield (state, name)
    if thing.get("needsCooking") and thing.get("isRaw"):  # needs cooking still (TextWorld's needs_cooking): "raw"
        yield ("needs_cooking", name)
    if thing.get("isCuttable"):
        yield ("cuttable", name)
    if thing.get("isCookable"):
        yield ("cookable", name)
    relation = "in" if thing.get("isOpenable") or name in _HOLDS_IN else "on"
    for inner in _present(thing.get("contents")):
        yield (relation, inner["name"], name)
        yield from _thing_facts(inner)


class TwxTextEnv:
    """One TextWorldExpress game (a setting, a split, a seed) as a TextEnv. ``max_steps`` counts the
    commands sent; at the limit the episode is over."""

    def __init__(
        self,
        setting: str,
        *,
        game: str,
        params: dict[str, int],
        split: str,
        seed: int,
        max_steps: int,
        step_timeout: float,
        goal: str = "",
    ) -> None:
        self.spec = f"twx:{setting}"
        self.setting, self.game, self.params = setting, game, dict(params)
        self.split, self.seed_index = split, seed
        self.max_steps, self.step_timeout = max_steps, step_timeout
        self.goal = goal
        self._process: GameProcess | None = None
        self._last: Observation | None = None
        self._steps = 0
        self._walkthrough: tuple[str, ...] = ()
        self._extra: dict[str, Any] = {}

    def _start(self) -> GameProcess:
        if self._process is None or not self._process.alive:
            factory = functools.partial(_TwxGame, self.game, _params_text(self.params), self.split, self.seed_index)
            self._process = GameProcess(factory, start_timeout=START_TIMEOUT, label=f"twx-{self.setting}")
        return self._process

    def reset(self) -> Observation:
        reply = self._start().call(
            "reset", timeout=START_TIMEOUT, what=f"generating {self.spec} seed {self.seed_index}"
        )
        if "error" in reply:
            self.close()
            raise EnvSpecError(
                f"TextWorldExpress refused {self.spec} ({_params_text(self.params)}) seed {self.seed_index}: "
                f"{one_line(reply['error'], 200)}"
            )
        infos = reply["infos"]
        self.goal = infos.get("taskDescription", "")
        self._walkthrough = tuple(reply["gold"])
        self._extra = {"game": self.game, "split": self.split, "seed_index": self.seed_index, **reply["properties"]}
        self._steps = 0
        text = f"{self.goal}\n\n{reply['text'].strip()}".strip()
        self._last = self._observation(text, infos, reply["tree"], None)
        return self._last

    def step(self, command: str) -> Observation:
        if self._last is None:
            raise EnvError(f"{self.spec}: call reset() before step()")
        command = sanitize_command(command)
        if self._last.done:
            return self._last
        valid = command in self._last.admissible_actions
        try:
            reply = self._start().call("step", command, timeout=self.step_timeout, what=f"'{command}' in {self.spec}")
        except EnvTimeout:
            self.close()
            raise
        self._steps += 1
        self._last = self._observation(reply["text"], reply["infos"], reply["tree"], command, valid=valid)
        return self._last

    def _observation(
        self, text: str, infos: dict[str, Any], tree: dict[str, Any], command: str | None, valid: bool | None = None
    ) -> Observation:
        won, lost = bool(infos.get("tasksuccess")), bool(infos.get("taskfailure"))
        out_of_steps = self._steps >= self.max_steps
        return Observation(
            text=text or "(no answer)",
            admissible_actions=tuple(sorted(set(infos.get("validActions") or ()))),
            score=float(infos.get("score") or 0.0),
            max_score=1.0,
            done=bool(infos.get("done")) or won or lost or out_of_steps,
            won=won,
            lost=lost,
            location=parse_location(infos.get("look") or text),
            inventory=parse_inventory(infos.get("inventory") or ""),
            moves=self._steps,
            last_action=command,
            oracle=Oracle(
                facts=tree_facts(tree),
                walkthrough=self._walkthrough,
                extra={**self._extra, "raw_score": infos.get("scoreRaw"), "valid": valid},
            ),
        )

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None


def make_twx(
    setting: str,
    *,
    seed: int | None = None,
    split: str = "test",
    max_steps: int | None = None,
    step_timeout: float = STEP_TIMEOUT,
    variation: int | None = None,
    **params: Any,
) -> TwxTextEnv:
    """The env ``twx:SETTING`` names; ``params`` override the setting's generation parameters.
    Bad names, splits, seeds and parameters are one-line :class:`EnvSpecError`."""
    if variation is not None:  # accepted by the signature (one call for every family), never used: refused
        raise EnvSpecError(
            f"twx: games take no variation (ScienceWorld's option), got {variation!r}; seed= picks a game of the split"
        )
    chosen = twx_setting(setting)
    if split not in SPLITS:
        raise EnvSpecError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    index = seed if seed is not None else 0
    if type(index) is not int or not 0 <= index < SEEDS_PER_SPLIT:
        raise EnvSpecError(
            f"seed for twx: is an index into the {split} split's seeds, 0..{SEEDS_PER_SPLIT - 1}; got {seed!r}"
        )
    known = set(chosen.params) | _GAME_PARAMS.get(chosen.game, set())
    unknown = sorted(set(params) - known)
    if unknown:
        raise EnvSpecError(
            f"twx:{setting} takes no option {', '.join(unknown)} (its parameters: {', '.join(sorted(known)) or 'none'})"
        )
    bad = [k for k, v in params.items() if type(v) is not int or v < 0]
    if bad:
        raise EnvSpecError(f"twx:{setting} parameters are non-negative integers: {', '.join(bad)}")
    merged = {**chosen.params, **params}
    _check_known_traps(chosen.game, merged)
    return TwxTextEnv(
        setting,
        game=chosen.game,
        params=merged,
        split=split,
        seed=index,
        max_steps=max_steps or DEFAULT_MAX_STEPS,
        step_timeout=step_timeout,
        goal="",
    )


# Generation parameters each game takes (TextWorldExpress's README).
_GAME_PARAMS: dict[str, set[str]] = {
    "cookingworld": {"numLocations", "numIngredients", "numDistractorItems", "includeDoors", "limitInventorySize"},
    "twc": {"numLocations", "numItemsToPutAway", "includeDoors", "limitInventorySize"},
    "coin": {"numLocations", "numDistractorItems", "includeDoors", "limitInventorySize"},
    "mapreader": {
        "numLocations",
        "maxDistanceApart",
        "maxDistractorItemsPerLocation",
        "includeDoors",
        "limitInventorySize",
    },
    "arithmetic": set(),
    "sorting": set(),
    "simonsays": {"gameLength", "numDistractors", "memorization", "verbose"},
    "peckingorder": set(),
}


def _check_known_traps(game: str, params: dict[str, int]) -> None:
    """Parameters TextWorldExpress accepts at load and then fails on (seen here), refused up front."""
    if game == "twc" and params.get("numItemsToPutAway", 1) > 4:
        raise EnvSpecError(f"twc: numItemsToPutAway must be 4 or fewer, got {params['numItemsToPutAway']}")
    # mapreader with numLocations=8, maxDistanceApart=4 throws for some seeds only: reset() turns that into one line.
