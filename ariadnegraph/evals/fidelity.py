"""Memory fidelity: how far the agent's knowledge graph matches the game's true state, step by step.

At every step the KG as memory knew it then (``WorldMemory.as_of(step)``: outdated facts closed) is
compared with the game's true facts for that step (``oracle.jsonl``; evaluation code only), in TextWorld's
fact form: TextWorld's own, TextWorldExpress's object tree (``envs/twx_env.py``, every game with rooms) and
ScienceWorld's (``envs/scienceworld_env.py``).

**Compared relations** (the ones both sides can express), in our ``(subject, relation, object)``
vocabulary, grouped in families for ``by_relation``:

- ``location``: ``at(x, room)`` / ``in(x, I)`` ↔ ``(x, in, room)``, ``(player, in, room)``,
  ``(x, in, inventory)``;
- ``containment``: ``in(x, c)`` / ``on(x, s)`` ↔ ``(x, in|on, holder)`` for holders that are not rooms;
- ``state``: ``open`` / ``closed`` / ``locked`` ↔ ``(x, is, open|closed|locked)``;
- ``adjacency``: ``north_of(a, b)`` etc. ↔ ``(a, north of, b)`` and ``(b, has exit, north)``;
- ``cooking``: ``sliced diced chopped fried roasted grilled burned`` ↔ ``(x, is, state)``; the text's
  "raw" (shown only on ingredients that need cooking) ↔ ``needs_cooking(x)``.

States are compared only for things the truth can give that state: openness for things with an
open/closed/locked fact (the game calls a BBQ "closed" but has no such fact), cooking states for
cookable or cuttable things.

Everything else is left out on both sides: facts on recipe slots (``ingredient_1``), ``link``/``free``
(door wiring), ``edible``/``cuttable``/``uncut`` (never shown in text), recipe facts and notes in the KG, and
exits that are not compass directions (ScienceWorld's "has exit" names the room a door leads to; its doors are
not in its object tree).

**ScienceWorld's truth** names things more barely than its text: the tree's apple is "a red apple" in a look,
its plant "an apple tree in the adult stage", its pillow "a white pillow". The truth gives the other names the
game takes for a thing (``called(referent, name)``, from the game's referents); with such a truth, a name in
memory that is a referent, or that ends with a true name or referent ("white pillow"), stands for that thing.
Its tree does not tell a support from a container either (``IN_OR_ON`` in the oracle): memory's ``on`` is
then compared as ``in``.

**Definitions**, per step (``FidelityPoint``), with ``K`` the KG's comparable facts and ``T`` the true ones:

- precision = |K ∩ T| / |K|: every fact memory holds as current counts, stale or invented ones are
  false positives;
- recall = |K ∩ T| / |S| over the *observable* truth ``S``: true facts whose entities the agent has
  observed so far — objects named in an observation (or inventory) read in a room the truth puts them in
  (through what holds them: a "sink" named in the kitchen is not the bathroom's sink; a thing in a closed
  container named there, by a recipe say, counts), rooms the player has been in (an adjacency fact needs a
  move between its two rooms: an exit's far side is unknown until taken) — plus any true fact the KG holds
  (a fact memory got right was knowable). A KG cannot know rooms it never saw, so those do not count;
- coverage = |K ∩ T| / |T| over *all* true facts, unseen rooms included.

Episode figures are micro-averages over steps (sums of counts); ``counts`` keeps the sums, so episodes
can be pooled the same way. A game that gives no facts (TextWorldExpress's SimonSays, Crafter, NetHack): every
figure is then None; precision is None too while memory holds no compared fact (a preset without KG
extraction).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from ..agent.integrity import checked_copies
from ..agent.presets import system_label
from ..envs.families.textworld_cooking import BURNED, COOK_STATES, CUT_STATES, RAW
from ..envs.scienceworld_truth import IN_OR_ON
from ..memory import EntityNormalizer, EventLog, KGView, TemporalKG, WorldMemory
from ..memory.conflicts import DIRECTION_RELATIONS
from ..memory.spatial import PLAYER, PLAYER_ALIASES
from ..memory.temporal_kg import KG_EVENTS
from ..memory.world import MEMORY_FILE
from ..runs import RunDir, StepRecord

Triplet = tuple[str, str, str]

INVENTORY = "inventory"
FAMILIES = ("location", "containment", "state", "adjacency", "cooking")
OPENNESS = frozenset({"open", "closed", "locked"})
COOKING = frozenset({*CUT_STATES, *COOK_STATES, BURNED, RAW})
HAS_EXIT = "has exit"
CALLED = "called"  # called(referent, name): another name the game takes for a thing (ScienceWorld's truth)
COMPASS = frozenset(relation.removesuffix(" of") for relation in DIRECTION_RELATIONS)
# Other spellings a model may use for the compared relations and states.
_RELATION_ALIASES = {"at": "in", "inside": "in", "located in": "in", "on top of": "on"}
_STATE_ALIASES = {"opened": "open", "unlocked": "closed"}
# Arguments of TextWorld facts that are not things in the world (recipe slots, the recipe itself).
_ABSTRACT = re.compile(r"^(?:ingredient_\d+|slot_\d+|RECIPE)$")
_KEY = EntityNormalizer(PLAYER_ALIASES).key


# -- the two sides -----------------------------------------------------------------------------------
def _tw_name(arg: str) -> str:
    return PLAYER if arg == "P" else INVENTORY if arg == "I" else arg


def truth_triplets(facts: Iterable[Iterable[str]]) -> set[Triplet]:
    """TextWorld facts (``[predicate, arg, ...]``) -> comparable ``(subject, relation, object)`` keys."""
    truth: set[Triplet] = set()
    for name, *args in facts:
        if any(_ABSTRACT.match(a) for a in args):
            continue
        keys = [_KEY(_tw_name(a)) for a in args]
        if name == "at" and len(keys) == 2:
            truth.add((keys[0], "in", keys[1]))
        elif name in ("in", "on") and len(keys) == 2:
            truth.add((keys[0], name, keys[1]))
        elif len(keys) == 1 and (name in OPENNESS or (name in COOKING and name != "raw")):
            truth.add((keys[0], "is", name))
        elif name == "needs_cooking" and len(keys) == 1:
            truth.add((keys[0], "is", "raw"))
        elif name.endswith("_of") and len(keys) == 2 and f"{name[:-3]} of" in DIRECTION_RELATIONS:
            truth.add((keys[0], f"{name[:-3]} of", keys[1]))
            truth.add((keys[1], HAS_EXIT, name[:-3]))
    return truth


def stateful(facts: Iterable[Iterable[str]]) -> dict[str, set[str]]:
    """State family -> keys of the things whose state of that family the truth can express."""
    found: dict[str, set[str]] = {"state": set(), "cooking": set()}
    for name, *args in (tuple(f) for f in facts):
        if len(args) == 1 and not _ABSTRACT.match(args[0]):
            if name in OPENNESS:
                found["state"].add(_KEY(args[0]))
            elif name in COOKING or name in ("cookable", "cuttable", "needs_cooking"):
                found["cooking"].add(_KEY(args[0]))
    return found


def comparable(triplet: Triplet) -> Triplet | None:
    """A KG triplet (canonical keys) in the compared vocabulary, or None if it is not compared."""
    subject, relation, obj = triplet
    relation = _RELATION_ALIASES.get(relation, relation)
    if relation in ("in", "on") or relation in DIRECTION_RELATIONS:
        return (subject, relation, obj)
    if relation == HAS_EXIT and obj in COMPASS:
        return (subject, relation, obj)
    if relation == "is":
        state = _STATE_ALIASES.get(obj, obj)
        if state in OPENNESS or state in COOKING:
            return (subject, relation, state)
    return None


def kg_triplets(view: KGView) -> set[Triplet]:
    """The comparable facts a KG view holds as current, by canonical keys."""
    found = (comparable(fact.key) for fact in view.facts.values())
    return {t for t in found if t is not None}


def referents(facts: Iterable[Iterable[str]]) -> dict[str, str]:
    """The truth's ``called(referent, name)`` facts: referent key -> name key (empty for TextWorld's truth)."""
    return {_KEY(args[0]): _KEY(args[1]) for name, *args in facts if name == CALLED and len(args) == 2}


class Names:
    """How a KG name reads against one step's truth: as it is where the truth uses it, else as the thing it is
    another name of (a referent; a name ending with a true name or referent: "white pillow") where the truth
    gives referents. The KG's ``on`` is ``in`` where the truth does not tell them apart (``in_or_on``)."""

    def __init__(self, truth: set[Triplet], called: dict[str, str], in_or_on: bool = False) -> None:
        self.called, self.in_or_on = called, in_or_on
        self.names = {e for s, relation, o in truth for e in ((s, o) if relation in ("in", "on") else (s,))}
        # longest first: "wood cup" before "cup"
        self._endings = sorted({*self.names, *called}, key=len, reverse=True) if called else []

    def of(self, name: str) -> str:
        if name in self.names or not self.called:
            return name
        if name in self.called:
            return self.called[name]
        ending = next((n for n in self._endings if name.endswith(" " + n)), None)
        return name if ending is None else self.called.get(ending, ending)

    def read(self, triplet: Triplet) -> Triplet:
        subject, relation, obj = triplet
        if relation in ("in", "on"):
            return (self.of(subject), "in" if self.in_or_on else relation, self.of(obj))
        return (self.of(subject), relation, obj) if relation == "is" else triplet


def rooms_of(truth: Iterable[Triplet]) -> set[str]:
    """Rooms named by true facts: where the player is and the ends of every adjacency."""
    rooms: set[str] = set()
    for subject, relation, obj in truth:
        if relation in DIRECTION_RELATIONS:
            rooms |= {subject, obj}
        elif subject == PLAYER and relation == "in":
            rooms.add(obj)
    return rooms


def places_of(facts: Iterable[Iterable[str]]) -> set[str]:
    """Rooms the truth puts things in (``at(x, room)``): ScienceWorld's, which states no adjacency."""
    return {_KEY(args[1]) for name, *args in facts if name == "at" and len(args) == 2}


def family(triplet: Triplet, rooms: set[str]) -> str:
    """Which relation family a comparable triplet belongs to."""
    _, relation, obj = triplet
    if relation in ("in", "on"):
        return "location" if relation == "in" and (obj in rooms or obj == INVENTORY) else "containment"
    if relation == "is":
        return "state" if obj in OPENNESS else "cooking"
    return "adjacency"


# -- what the agent has observed -------------------------------------------------------------------
class Observed:
    """What the agent has observed so far: the objects named in its texts and the rooms it read each name in, the
    rooms it has been in, and the links between rooms it has walked (an exit's far side is unknown until taken)."""

    def __init__(self) -> None:
        self.entities: set[str] = {PLAYER, INVENTORY}
        self.seen_in: dict[str, set[str]] = {}  # entity -> the rooms the player was in when a text named it
        self.rooms: set[str] = set()
        self.links: set[frozenset[str]] = set()
        self._here: str | None = None
        self._patterns: dict[str, re.Pattern[str]] = {}

    def update(self, text: str, facts: Iterable[Iterable[str]], rooms: set[str], called: dict[str, str]) -> None:
        """Take one step's agent-visible text; ``called``: the truth's referents (a thing named by another of its
        names is observed)."""
        lowered = " ".join(text.lower().split())
        names: set[str] = set()
        for name, *args in (tuple(f) for f in facts):
            if name == "at" and args and args[0] == "P":
                here = _KEY(args[1])
                self.rooms.add(here)
                if self._here is not None and self._here != here:
                    self.links.add(frozenset((self._here, here)))
                self._here = here
            names.update(a for a in args if a not in ("P", "I") and not _ABSTRACT.match(a) and _KEY(a) not in rooms)
        # Longest names first, each masked once found: "patio table" must not also name the "table".
        for name in sorted(names, key=len, reverse=True):
            pattern = self._patterns.get(name)
            if pattern is None:
                pattern = self._patterns[name] = re.compile(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])")
            lowered, found = pattern.subn("\0", lowered)
            if found:
                key = _KEY(name)
                entity = called.get(key, key)
                self.entities.add(entity)
                self.seen_in.setdefault(entity, set()).add(self._here or "")

    def knows(self, triplet: Triplet, rooms: set[str], places: Places) -> bool:
        """True when a true fact's entities have been observed: each object named in a text read in the room the
        fact is about (``places``: where the truth puts the holder; the air named in the kitchen says nothing of
        the hallway's air), each room visited, and for adjacency the move between its two rooms."""
        subject, relation, obj = triplet
        if relation in DIRECTION_RELATIONS:
            return frozenset((subject, obj)) in self.links
        if relation in ("in", "on"):
            where = places.rooms_of(obj)
            return self._knows(subject, where, rooms) and self._knows(obj, where, rooms)
        return self._knows(subject, places.rooms_of(subject), rooms)

    def _knows(self, entity: str, where: set[str], rooms: set[str]) -> bool:
        if entity in rooms:
            return entity in self.rooms
        if entity in (PLAYER, INVENTORY):
            return True
        return bool(self.seen_in.get(entity, set()) & where) if where else entity in self.entities


class Places:
    """Where each thing of one step's truth is: the rooms it is in, through what holds it (the inventory is in
    the player's room)."""

    def __init__(self, truth: set[Triplet], rooms: set[str]) -> None:
        self.rooms = rooms
        self.here = next((o for s, relation, o in truth if s == PLAYER and relation == "in"), None)
        self.holders: dict[str, set[str]] = {}
        for subject, relation, obj in truth:
            if relation in ("in", "on") and subject != PLAYER:
                self.holders.setdefault(subject, set()).add(obj)
        self._memo: dict[str, set[str]] = {}

    def rooms_of(self, thing: str, path: tuple[str, ...] = ()) -> set[str]:
        if thing in self.rooms:
            return {thing}
        if thing == INVENTORY:
            return {self.here} if self.here else set()
        if thing not in self._memo:
            found: set[str] = set()
            for holder in self.holders.get(thing, ()):
                if holder not in path:  # a truth never loops; a name two things share might
                    found |= self.rooms_of(holder, (*path, thing))
            self._memo[thing] = found
        return self._memo[thing]


class MissingOracle(FileNotFoundError):
    """A run recorded without the game's true facts: there is nothing to compare its memory with."""


# -- scores ------------------------------------------------------------------------------------------
def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


@dataclass(frozen=True)
class FidelityPoint:
    """One step: counts of the KG against the truth, and the ratios they give."""

    step: int
    precision: float | None
    recall: float | None
    true_positives: int
    false_positives: int
    false_negatives: int  # observable true facts the KG misses
    coverage: float | None = None
    true_facts: int = 0  # all comparable true facts


@dataclass
class _Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    truth: int = 0

    def add(self, tp: int, fp: int, fn: int, truth: int) -> None:
        self.tp, self.fp, self.fn, self.truth = self.tp + tp, self.fp + fp, self.fn + fn, self.truth + truth

    def figures(self) -> dict[str, float | None]:
        return {
            "precision": _ratio(self.tp, self.tp + self.fp),
            "recall": _ratio(self.tp, self.tp + self.fn),
            "coverage": _ratio(self.tp, self.truth),
        }


@dataclass(frozen=True)
class EpisodeFidelity:
    """Memory fidelity of one episode: micro-averages over steps, the per-step curve, per-family figures."""

    precision: float | None
    recall: float | None
    points: list[FidelityPoint]
    by_relation: dict[str, dict[str, float | None]]
    coverage: float | None = None
    errors: dict[str, list[list[str]]] = field(default_factory=dict)  # last step's misses, for debugging
    # summed over steps, for pooling episodes: "all" and each relation family -> tp, fp, fn, truth
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    system: str = ""  # what played, as every surface names it (agent.presets.system_label): ORACLE runs say so

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "precision": self.precision,
            "recall": self.recall,
            "coverage": self.coverage,
            "by_relation": self.by_relation,
            "counts": self.counts,
            "points": [asdict(p) for p in self.points],
            "errors": self.errors,
        }


def _by_family(triplets: Iterable[Triplet], rooms: set[str]) -> Counter[str]:
    return Counter(family(t, rooms) for t in triplets)


def score_steps(
    memory: WorldMemory | TemporalKG, steps: Iterable[tuple[int, list, str]], *, in_or_on: bool = False
) -> EpisodeFidelity:
    """Compare ``memory.as_of(step)`` with the truth for each ``(step, facts, agent-visible text)``;
    ``in_or_on``: the truth does not tell a support from a container (ScienceWorld's)."""
    observed = Observed()
    total = _Counts()
    families = {name: _Counts() for name in FAMILIES}
    points: list[FidelityPoint] = []
    errors: dict[str, list[list[str]]] = {}
    for step, facts, text in steps:
        truth = truth_triplets(facts)
        rooms = rooms_of(truth) | places_of(facts)
        called = referents(facts)
        observed.update(text, facts, rooms, called)
        can_state = stateful(facts)
        names = Names(truth, called, in_or_on)
        held = {names.read(t) for t in kg_triplets(memory.as_of(step))}
        known = {t for t in held if t[1] != "is" or t[0] in can_state[family(t, rooms)]}
        hits = known & truth
        places = Places(truth, rooms)
        scope = {t for t in truth if observed.knows(t, rooms, places)} | hits
        misses, wrong = scope - known, known - truth
        total.add(len(hits), len(wrong), len(misses), len(truth))
        counted = [_by_family(part, rooms) for part in (hits, wrong, misses, truth)]
        for name, counts in families.items():
            counts.add(*(c[name] for c in counted))
        points.append(
            FidelityPoint(
                step,
                _ratio(len(hits), len(known)),
                _ratio(len(hits), len(scope)),
                len(hits),
                len(wrong),
                len(misses),
                _ratio(len(hits), len(truth)),
                len(truth),
            )
        )
        errors = {"false_positives": sorted(map(list, wrong)), "false_negatives": sorted(map(list, misses))}
    if total.truth == 0:  # the game states no facts (SimonSays, Crafter, NetHack): nothing to measure
        points = [FidelityPoint(p.step, None, None, 0, 0, 0, None, 0) for p in points]
        return EpisodeFidelity(None, None, points, {name: _Counts().figures() for name in FAMILIES})
    figures = total.figures()
    return EpisodeFidelity(
        figures["precision"],
        figures["recall"],
        points,
        {name: counts.figures() for name, counts in families.items()},
        figures["coverage"],
        errors,
        {name: asdict(counts) for name, counts in {"all": total, **families}.items()},
    )


# -- entry points ------------------------------------------------------------------------------------
def _agent_text(record: StepRecord, inventory: Iterable[str] | None) -> str:
    # The inventory stored beside the facts is the one the agent was shown (Observation.inventory).
    return "\n".join([record.get("observation") or "", *(inventory or ())])


def read_kg(memory_path: str | Path) -> tuple[TemporalKG, set[int]]:
    """A run's temporal KG and its recorded steps, read straight from the event log.

    No embeddings or vectors are loaded (``WorldMemory.open`` would need the run's embedding model,
    perhaps a remote one): fidelity only needs the facts and when they opened and closed.
    """
    path = Path(memory_path) / MEMORY_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no memory at {memory_path} (expected {MEMORY_FILE})")
    kg, steps = TemporalKG(EntityNormalizer(PLAYER_ALIASES)), set()
    log = EventLog(path)
    try:
        for kind, payload in log.replay():
            if kind in KG_EVENTS:
                kg.restore_event(kind, payload)
            elif kind == "episode":
                steps.add(payload["step"])
    finally:
        log.close()
    return kg, steps


def episode_fidelity(run_dir: str | Path, run_id: str) -> EpisodeFidelity:
    """Fidelity of a finished (or interrupted) run, from its directory, post hoc.

    Raises ``RunNotFound`` for an unknown run, ``MissingOracle`` when the run has no ``oracle.jsonl``
    (older runs) and ``FileNotFoundError`` when it has no memory.
    """
    with checked_copies(run_dir, [run_id], played=True) as copies:
        return run_fidelity(RunDir.open(copies, run_id))


def run_fidelity(run: RunDir) -> EpisodeFidelity:
    """Fidelity of a run already checked and copied (``checked_copies``)."""
    run_id = run.run_id
    if not run.oracle_path.exists():
        raise MissingOracle(
            f"run '{run_id}' has no oracle.jsonl: memory fidelity needs the game's true facts (older run?)"
        )
    oracle = {record["step"]: record for record in run.oracle_steps()}
    kg, recorded = read_kg(run.memory_path)
    steps = [
        (r["step"], oracle[r["step"]].get("facts") or [], _agent_text(r, oracle[r["step"]].get("inventory")))
        for r in run.steps()
        if r["step"] in oracle and r["step"] in recorded
    ]
    context = run.meta()["context"]
    scored = score_steps(kg, steps, in_or_on=any(record.get(IN_OR_ON) for record in oracle.values()))
    return replace(scored, system=system_label(str(context.get("preset")), context.get("switch_overrides")))


def walkthrough_fidelity(
    spec: str, *, model: str = "scripted", base_url: str | None = None, **env_options: Any
) -> EpisodeFidelity:
    """Play the game's walkthrough and feed each observation to ``model``'s extraction role through
    the relation retriever's own prompt, into a fresh ``WorldMemory`` as memory_update would; score the
    memory at every step. (No planner: the walkthrough decides.)"""
    from ..envs import make

    env = make(spec, **env_options)
    memory = WorldMemory()
    try:
        observation = env.reset()
        return score_steps(
            memory,
            _walkthrough_steps(env, observation, memory, model, base_url),
            in_or_on=bool(observation.oracle.extra.get(IN_OR_ON)),
        )
    finally:
        env.close()
        memory.close()


def _walkthrough_steps(
    env: Any, first: Any, memory: WorldMemory, model_spec: str, base_url: str | None
) -> Iterator[tuple[int, list, str]]:
    from ..models import call_structured, load_chat_model
    from ..nodes.common import role_messages
    from ..nodes.prompts import RECIPE, RELATION_RETRIEVER, REQUIRES
    from ..nodes.relation_retriever import extraction_sections, grounded
    from ..nodes.schemas import Extraction

    model = load_chat_model(model_spec, base_url=base_url, max_tokens=Extraction.reply_tokens)
    commands = [None, *first.oracle.walkthrough]
    observation, recipe = first, cast(list[str], [])
    for step, command in enumerate(commands):
        if command is not None:
            if observation.done:
                break
            observation = env.step(command)
        seen = observation.for_agent()
        # The recipe once read, as the summarizer's belief would carry it.
        state = {
            "env": env.spec,
            "goal": getattr(env, "goal", None) or "",
            "observation": seen.text,
            "last_action": command,
            "location": seen.location,
            "inventory": list(seen.inventory) if seen.inventory is not None else None,
            "belief": f"Recipe: {'; '.join(recipe)}" if recipe else "",
        }
        sections = extraction_sections(state, memory)
        out = call_structured(
            model, Extraction, role_messages(RELATION_RETRIEVER, sections), fallback=Extraction()
        ).value
        triplets = [(t[0], t[1], t[2]) for t in grounded(out.triplets, sections)[0]]  # what the node lets into memory
        recipe += [
            obj
            for subject, relation, obj in triplets
            if subject == RECIPE and relation == REQUIRES and obj not in recipe
        ]
        outdated: list[int | tuple[str, str, str]] = [(t[0], t[1], t[2]) for t in grounded(out.outdated, sections)[0]]
        memory.observe(step, seen.text, triplets, outdated, action=command)
        yield step, [list(f) for f in observation.oracle.facts], "\n".join([seen.text, *(seen.inventory or [])])


def _figure(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:5.2f}"


def render_fidelity(result: EpisodeFidelity, run_id: str, every: int = 10) -> str:
    """Per-episode figures, per relation family, and the curve at every ``every``-th step (and the last)."""
    run = f"run {run_id}" + (f" ({result.system})" if result.system else "")
    if result.precision is None and result.recall is None:
        return f"{run}: no memory fidelity (the game gives no true facts, e.g. SimonSays, Crafter, NetHack)"
    lines = [
        f"{run}: memory fidelity over {len(result.points)} steps: precision "
        f"{_figure(result.precision).strip()}, "
        f"recall {_figure(result.recall).strip()} (observed facts), coverage {_figure(result.coverage).strip()} (all "
        f"facts)",
        "family        precision  recall  coverage",
    ]
    for name, figures in result.by_relation.items():
        lines.append(
            f"{name:<12}  {_figure(figures['precision']):>9}  {_figure(figures['recall']):>6}  "
            f"{_figure(figures.get('coverage')):>8}"
        )
    lines.append(" step  precision  recall  coverage   tp   fp   fn")
    shown = [p for i, p in enumerate(result.points) if p.step % every == 0 or i == len(result.points) - 1]
    for p in shown:
        lines.append(
            f"{p.step:>5}  {_figure(p.precision):>9}  {_figure(p.recall):>6}  {_figure(p.coverage):>8}"
            f"  {p.true_positives:>3}  {p.false_positives:>3}  {p.false_negatives:>3}"
        )
    return "\n".join(lines)
