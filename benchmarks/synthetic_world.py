"""The synthetic text world ``benchmarks/memory.py`` grows its memories from (seeded, deterministic): rooms on a grid
with passages, containers, supporters and things that an explorer opens, takes, carries, cooks and eats, each step
written as ~10 triplets like an extractor's output. Its layout and rules are described in ``memory.py``'s header."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

FACTS_PER_ROOM = 45
TRIPLETS_PER_STEP = 10

ROOM_ADJ = [
    "dusty",
    "bright",
    "narrow",
    "old",
    "cold",
    "quiet",
    "grand",
    "damp",
    "tiny",
    "long",
    "dark",
    "sunny",
    "musty",
    "cozy",
    "bare",
    "tiled",
    "wooden",
    "stone",
    "round",
    "hidden",
]
ROOM_NOUN = [
    "kitchen",
    "pantry",
    "hallway",
    "cellar",
    "attic",
    "study",
    "library",
    "bedroom",
    "bathroom",
    "garden",
    "garage",
    "workshop",
    "corridor",
    "parlor",
    "gallery",
    "chapel",
    "vault",
    "stable",
    "porch",
    "laundry",
]
MATERIALS = ["oak", "pine", "steel", "iron", "glass", "wicker", "brass", "plastic", "copper", "birch", "cedar", "tin"]
CONTAINERS = [
    "chest",
    "fridge",
    "cupboard",
    "wardrobe",
    "toolbox",
    "crate",
    "cabinet",
    "drawer",
    "basket",
    "safe",
    "trunk",
    "locker",
]
SUPPORTERS = ["table", "counter", "shelf", "workbench", "desk", "stand", "bench", "sideboard"]
COLORS = ["red", "green", "yellow", "blue", "purple", "white", "black", "orange", "brown", "pink", "golden", "silver"]
FOODS = [
    "apple",
    "carrot",
    "potato",
    "onion",
    "tomato",
    "pepper",
    "fish",
    "mushroom",
    "lettuce",
    "cucumber",
    "banana",
    "pork chop",
    "chicken leg",
    "parsley",
    "egg",
]
TOOLS = ["key", "knife", "book", "lamp", "coin", "map", "rope", "candle", "bottle", "hammer", "sword", "shovel"]
COOKED = ["fried", "roasted", "grilled"]
CUT = ["sliced", "diced", "chopped"]
DIRS = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}


class Namer:
    """Unique display names: random combinations of the pools ("oak chest"), numbered ("oak chest 317")
    once the combinations run out."""

    def __init__(self, rng: random.Random, *pools: list[str]) -> None:
        self.rng, self.pools, self.used = rng, pools, set()

    def __call__(self) -> str:
        for attempt in range(1000):
            name = " ".join(self.rng.choice(p) for p in self.pools)
            if attempt > 20:
                name = f"{name} {attempt + len(self.used)}"
            if name not in self.used:
                self.used.add(name)
                return name
        raise RuntimeError("namer exhausted")


@dataclass
class Thing:
    name: str
    kind: str  # food | tool | container | supporter
    relation: str = "in"  # "in" or "on" its holder
    holder: str = ""  # a room, container, supporter or "inventory"
    states: dict[str, str] = field(default_factory=dict)  # group -> state (open/closed, raw/fried, ...)


class World:
    """Ground truth of the synthetic game, and the agent playing it, as a stream of observations."""

    def __init__(self, facts: int, seed: int = 7) -> None:
        self.rng = rng = random.Random(seed * 1_000_003 + facts)
        n_rooms = max(9, round(facts / FACTS_PER_ROOM))
        cols = math.ceil(math.sqrt(n_rooms))
        cells = [(i % cols, i // cols) for i in range(n_rooms)]
        room_names = Namer(rng, ROOM_ADJ, ROOM_NOUN)
        self.rooms = {cell: room_names() for cell in cells}
        self.cell_of = {name: cell for cell, name in self.rooms.items()}
        self.exits: dict[str, dict[str, str]] = {name: {} for name in self.rooms.values()}
        # passages: random spanning tree of the grid cells, plus ~30% of the other neighbour pairs
        start = cells[0]
        seen, stack = {start}, [start]
        while stack:
            cell = stack[-1]
            options = [(d, (cell[0] + dx, cell[1] + dy)) for d, (dx, dy) in DIRS.items()]
            options = [(d, c) for d, c in options if c in self.rooms and c not in seen]
            if not options:
                stack.pop()
                continue
            d, nxt = rng.choice(options)
            self._link(cell, d, nxt)
            seen.add(nxt)
            stack.append(nxt)
        for cell in cells:
            for d in ("east", "south"):
                dx, dy = DIRS[d]
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt in self.rooms and d not in self.exits[self.rooms[cell]] and rng.random() < 0.3:
                    self._link(cell, d, nxt)
        # things
        self.things: dict[str, Thing] = {}
        self.contents: dict[str, list[str]] = {}  # holder -> things (ordered: deterministic sampling)
        containers, supporters = Namer(rng, MATERIALS, CONTAINERS), Namer(rng, MATERIALS, SUPPORTERS)
        objects = Namer(rng, COLORS, FOODS + TOOLS)
        for room in self.rooms.values():
            holders = [room]
            for _ in range(rng.randint(1, 3)):
                c = containers()
                self._place(Thing(c, "container", states={"door": rng.choice(["open", "closed"])}), "in", room)
                holders.append(c)
            for _ in range(rng.randint(0, 2)):
                s = supporters()
                self._place(Thing(s, "supporter"), "in", room)
                holders.append(s)
            for _ in range(rng.randint(3, 7)):
                name = objects()
                noun = name.split(" ", 1)[1]
                if noun.rsplit(" ", 1)[-1].isdigit():
                    noun = noun.rsplit(" ", 1)[0]
                food = noun in FOODS
                thing = Thing(name, "food" if food else "tool")
                if food:
                    thing.states = {"cook": "raw", "cut": "uncut"}
                holder = rng.choice(holders)
                self._place(thing, "on" if self.things.get(holder, Thing("", "")).kind == "supporter" else "in", holder)
        self.player = self.rooms[start]
        self.visited = {self.player}
        self.trail = [self.player]  # depth-first exploration stack
        self.step = 0

    def _link(self, cell, d, nxt) -> None:
        back = {"north": "south", "south": "north", "east": "west", "west": "east"}[d]
        self.exits[self.rooms[cell]][d] = self.rooms[nxt]
        self.exits[self.rooms[nxt]][back] = self.rooms[cell]

    def _place(self, thing: Thing, relation: str, holder: str) -> None:
        if thing.holder:
            self.contents[thing.holder].remove(thing.name)
        thing.relation, thing.holder = relation, holder
        self.things[thing.name] = thing
        self.contents.setdefault(holder, []).append(thing.name)

    # -- what the agent sees -----------------------------------------------------------------------
    def visible(self, room: str) -> list[Thing]:
        """Things seen in ``room``: on the floor, on supporters, in open containers."""
        found = []
        for name in self.contents.get(room, []):
            thing = self.things[name]
            found.append(thing)
            if thing.kind == "supporter" or thing.states.get("door") == "open":
                found.extend(self.things[n] for n in self.contents.get(name, []))
        return found

    def facts_about(self, thing: Thing) -> list[tuple[str, str, str]]:
        out = [(thing.name, thing.relation, thing.holder)]
        out += [(thing.name, "is", state) for state in thing.states.values()]
        return out

    def describe(self, room: str) -> list[tuple[str, str, str]]:
        """Triplets an extractor gets from the room description (shuffled, deterministic)."""
        triplets = [(room, "has exit", d) for d in sorted(self.exits[room])]
        for thing in self.visible(room):
            triplets += self.facts_about(thing)
        self.rng.shuffle(triplets)
        return triplets

    # -- the agent ---------------------------------------------------------------------------------
    def _move(self) -> tuple[str, list[tuple[str, str, str]]]:
        here = self.player
        unexplored = [d for d, r in sorted(self.exits[here].items()) if r not in self.visited]
        if unexplored:
            d = self.rng.choice(unexplored)
            self.trail.append(self.exits[here][d])
        elif len(self.trail) > 1:
            self.trail.pop()
            back = self.trail[-1]
            d = next(d for d, r in self.exits[here].items() if r == back)
        else:
            d = self.rng.choice(sorted(self.exits[here]))
        there = self.exits[here][d]
        self.player = there
        self.visited.add(there)
        return f"go {d}", [("you", "in", there), (there, f"{d} of", here)]

    def _act(self) -> tuple[str, list[tuple[str, str, str]], list[tuple[str, str, str]]] | None:
        rng, room = self.rng, self.player
        inventory = list(self.contents.get("inventory", []))
        visible = self.visible(room)
        containers = [t for t in visible if t.kind == "container"]
        takeable = [t for t in visible if t.kind in ("food", "tool")]
        foods = [self.things[n] for n in inventory if self.things[n].kind == "food"]
        roll = rng.random()
        if inventory and roll < 0.25:
            thing = self.things[rng.choice(inventory)]
            holders = [t for t in visible if t.kind == "supporter" or t.states.get("door") == "open"]
            holder = rng.choice(holders) if holders and rng.random() < 0.7 else None
            relation = "on" if holder is not None and holder.kind == "supporter" else "in"
            self._place(thing, relation, holder.name if holder else room)
            return f"put {thing.name} {relation} {thing.holder}", [(thing.name, relation, thing.holder)], []
        if takeable and len(inventory) < 6 and roll < 0.5:
            thing = rng.choice(takeable)
            self._place(thing, "in", "inventory")
            return f"take {thing.name}", [(thing.name, "in", "inventory")], []
        if foods and roll < 0.65:
            food = rng.choice(foods)
            if food.states["cut"] == "uncut" and rng.random() < 0.5:
                food.states["cut"] = rng.choice(CUT)
                return f"slice {food.name}", [(food.name, "is", food.states["cut"])], []
            if food.states["cook"] == "raw" and rng.random() < 0.6:
                food.states["cook"] = rng.choice(COOKED)
                return f"cook {food.name}", [(food.name, "is", food.states["cook"]), (food.name, "is", "edible")], []
            food.states["eaten"] = "consumed"
            self.contents["inventory"].remove(food.name)
            del self.things[food.name]
            return f"eat {food.name}", [(food.name, "is", "consumed")], [(food.name, "in", "inventory")]
        if containers and roll < 0.8:
            box = rng.choice(containers)
            if box.states["door"] == "closed":
                box.states["door"] = "open"
                inside = [f for n in self.contents.get(box.name, []) for f in self.facts_about(self.things[n])]
                return f"open {box.name}", [(box.name, "is", "open")] + inside, []
            box.states["door"] = "closed"
            return f"close {box.name}", [(box.name, "is", "closed")], []
        return None

    def __iter__(self) -> Iterator[tuple[int, str, list[tuple[str, str, str]], list[tuple[str, str, str]]]]:
        while True:
            self.step += 1
            outdated: list[tuple[str, str, str]] = []
            acted = None if self.rng.random() < 0.4 else self._act()
            if acted is None:
                action, triplets = self._move()
            else:
                action, triplets, outdated = acted
                triplets = [("you", "in", self.player)] + triplets
            triplets = triplets[:TRIPLETS_PER_STEP]
            seen = set(triplets)
            for t in self.describe(self.player):
                if len(triplets) >= TRIPLETS_PER_STEP:
                    break
                if t not in seen:
                    triplets.append(t)
                    seen.add(t)
            exits = ", ".join(sorted(self.exits[self.player]))
            seen_things = dict.fromkeys(t[0] for t in triplets if t[0] not in ("you", self.player))
            things = ", ".join(list(seen_things)[:5]) or "nothing special"
            text = f"> {action}\n-= {self.player.title()} =- You see {things}. Exits: {exits}."
            yield self.step, text, triplets, outdated

    def queries(self, known: list[str], count: int) -> list[str]:
        """Query texts: names the memory knows and short phrases about them (deterministic)."""
        rng = random.Random(len(known) * 31 + count)
        rooms = [n for n in known if n in self.cell_of]
        things = [n for n in known if n not in self.cell_of and n not in ("you", "inventory") and " " in n]
        phrases = [
            lambda: f"where is the {rng.choice(things)}",
            lambda: f"way to the {rng.choice(rooms)}",
            lambda: f"open the {rng.choice(things)}",
            lambda: f"{rng.choice(COOKED + CUT)} {rng.choice(FOODS)}",
            lambda: f"take {rng.choice(things)}",
            lambda: f"what is in the {rng.choice(things)}",
            lambda: f"find the {rng.choice(TOOLS)}",
        ]
        out: list[str] = []
        while len(out) < count:
            roll = rng.random()
            q = rng.choice(things) if roll < 0.35 else rng.choice(rooms) if roll < 0.5 else rng.choice(phrases)()
            if q not in out:
                out.append(q)
        return out
