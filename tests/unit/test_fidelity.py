"""Memory fidelity on hand-built truths and a hand-built memory, with every figure worked out by hand."""

from __future__ import annotations

import pytest

from ariadnegraph.evals.fidelity import (
    FidelityPoint,
    kg_triplets,
    render_fidelity,
    score_steps,
    truth_triplets,
)
from ariadnegraph.memory import WorldMemory

# A kitchen (seen from step 0), a hall north of it (visited at step 2) and a cellar west of the hall
# that the player never sees, with a barrel in it.
MAP = [["north_of", "hall", "kitchen"], ["south_of", "kitchen", "hall"], ["west_of", "cellar", "hall"],
       ["east_of", "hall", "cellar"], ["at", "barrel", "cellar"], ["at", "fridge", "kitchen"],
       ["in", "apple", "fridge"], ["cuttable", "apple"], ["sliced", "ingredient_1"]]
FACTS = {
    0: MAP + [["at", "P", "kitchen"], ["closed", "fridge"]],
    1: MAP + [["at", "P", "kitchen"], ["open", "fridge"]],
    2: MAP + [["at", "P", "hall"], ["open", "fridge"]],
    3: MAP + [["at", "P", "hall"], ["closed", "fridge"]],  # closed behind the player's back
}
TEXTS = {
    0: "-= Kitchen =-\nYou see a closed fridge. There is an exit to the north.",
    1: "You open the fridge, revealing an apple.",
    2: "-= Hall =-\nThere are exits to the south and west.",
    3: "Time passes.",
}
KG = {
    0: [("you", "in", "Kitchen"), ("fridge", "in", "Kitchen"), ("fridge", "is", "closed"), ("Kitchen", "has exit", "north"),
        ("recipe", "requires", "apple")],  # not a compared relation
    1: [("fridge", "is", "open"), ("apple", "in", "fridge")],  # closes "fridge is closed"
    2: [("player", "in", "Hall"), ("Hall", "north of", "Kitchen"), ("Kitchen", "south of", "Hall"),  # closes "player in kitchen"
        ("Hall", "has exit", "south"), ("Hall", "has exit", "west")],
    3: [],  # "fridge is open" stays open: stale
}


@pytest.fixture
def fidelity():
    memory = WorldMemory()
    for step in sorted(KG):
        memory.observe(step, TEXTS[step], KG[step])
    yield score_steps(memory, [(step, FACTS[step], TEXTS[step]) for step in sorted(FACTS)])
    memory.close()


def test_truth_uses_our_vocabulary_and_drops_what_text_cannot_say():
    truth = truth_triplets(FACTS[0] + [["in", "knife", "I"], ["needs_cooking", "red tuna"], ["raw", "red onion"],
                                       ["fried", "red onion"], ["link", "kitchen", "door", "hall"], ["edible", "apple"]])
    assert {("player", "in", "kitchen"), ("fridge", "is", "closed"), ("apple", "in", "fridge"), ("hall", "north of", "kitchen"),
            ("kitchen", "has exit", "north"), ("knife", "in", "inventory"), ("red tuna", "is", "raw"),
            ("red onion", "is", "fried")} <= truth
    assert ("red onion", "is", "raw") not in truth  # TextWorld's raw: never shown in text; needs_cooking is
    assert not [t for t in truth if "ingredient_1" in t or t[1] in ("link", "edible", "cuttable")]
    assert len(truth_triplets(FACTS[0])) == 13


def test_kg_side_keeps_only_compared_relations_by_canonical_keys():
    memory = WorldMemory()
    memory.observe(0, "", [("You", "in", "Kitchen"), ("the Apples", "is", "opened"), ("apple", "needs", "sliced"),
                           ("door", "leads", "north from Kitchen")])
    assert kg_triplets(memory.current()) == {("player", "in", "kitchen"), ("apple", "is", "open")}


def test_points_worked_out_by_hand(fidelity):
    # step 0: 4 KG facts, all true; apple unnamed, hall and cellar unvisited -> 4 observable; 13 true.
    # step 1: + apple in fridge; "fridge is closed" was closed by "open"     -> 5/5, coverage 5/13.
    # step 2: player moved (old location closed); hall visited: 9 observable -> 9/9; the cellar's
    #         4 facts and the barrel stay out of recall but count against coverage (9/13).
    # step 3: "fridge is open" left open while the truth says closed         -> 1 FP and 1 FN.
    assert fidelity.points == [
        FidelityPoint(0, 1.0, 1.0, 4, 0, 0, 4 / 13, 13),
        FidelityPoint(1, 1.0, 1.0, 5, 0, 0, 5 / 13, 13),
        FidelityPoint(2, 1.0, 1.0, 9, 0, 0, 9 / 13, 13),
        FidelityPoint(3, 8 / 9, 8 / 9, 8, 1, 1, 8 / 13, 13),
    ]
    assert fidelity.errors == {"false_positives": [["fridge", "is", "open"]], "false_negatives": [["fridge", "is", "closed"]]}


def test_episode_is_the_micro_average_with_families(fidelity):
    assert (fidelity.precision, fidelity.recall, fidelity.coverage) == (26 / 27, 26 / 27, 26 / 52)
    by = fidelity.by_relation
    assert by["location"] == {"precision": 1.0, "recall": 1.0, "coverage": 8 / 12}
    assert by["containment"] == {"precision": 1.0, "recall": 1.0, "coverage": 3 / 4}
    assert by["state"] == {"precision": 0.75, "recall": 0.75, "coverage": 0.75}
    assert by["adjacency"] == {"precision": 1.0, "recall": 1.0, "coverage": 12 / 32}
    assert by["cooking"] == {"precision": None, "recall": None, "coverage": None}
    data = fidelity.to_dict()
    assert data["precision"] == 26 / 27
    assert len(data["points"]) == 4
    assert data["points"][3]["false_positives"] == 1


def test_states_the_truth_cannot_express_are_not_compared():
    memory = WorldMemory()  # the game calls its BBQ "closed" but has no openness fact for it
    memory.observe(0, "-= Backyard =-\nYou see a closed BBQ.", [("player", "in", "Backyard"), ("BBQ", "is", "closed")])
    result = score_steps(memory, [(0, [["at", "P", "backyard"], ["at", "BBQ", "backyard"]], "-= Backyard =-\nYou see a closed BBQ.")])
    assert (result.precision, result.recall) == (1.0, 0.5)  # the BBQ's location is missed, its state not counted


def test_no_true_facts_gives_no_figures():
    memory = WorldMemory()  # ScienceWorld: the oracle has no facts
    memory.observe(0, "You are in the kitchen.", [("player", "in", "kitchen")])
    result = score_steps(memory, [(0, [], "You are in the kitchen.")])
    assert (result.precision, result.recall, result.coverage) == (None, None, None)
    assert result.points == [FidelityPoint(0, None, None, 0, 0, 0, None, 0)]
    assert "no memory fidelity" in render_fidelity(result, "r1")


def test_rendering_shows_families_and_a_compact_curve(fidelity):
    text = render_fidelity(fidelity, "r1", every=2)
    assert "precision 0.96, recall 0.96 (observed facts), coverage 0.50 (all facts)" in text
    assert "state              0.75    0.75      0.75" in text
    steps = [line.split()[0] for line in text.splitlines() if line[:5].strip().isdigit()]
    assert steps == ["0", "2", "3"]  # every 2nd step, and the last


# -- TextWorldExpress's and ScienceWorld's truths ------------------------------------------------------------------
def _thing(name: str, uuid: str = "", contents: tuple = (), **props) -> dict:
    return {"name": name, "uuid": uuid or name, "isDeleted": False, **props,
            "contents": {f"{c['name']}-{c['uuid']}": c for c in contents}}


def test_twx_tree_doors_by_their_names_the_box_holds_in_and_deleted_things_are_gone():
    from ariadnegraph.envs.twx_env import tree_facts

    coin = _thing("coin", isMovable=True)
    eaten = {**_thing("meal"), "isDeleted": True}
    tree = {"player_location": "sauna", "inventory": {"map": _thing("map")}, "locations": {
        "sauna": {**_thing("sauna", contents=(_thing("box", contents=(coin,), isContainer=True),
                                              _thing("table", contents=(eaten,), isContainer=True))),
                  "locationSouth": "cubicle", "doorSouth": {**_thing("plain door"), "isOpen": True}}}}
    facts = set(tree_facts(tree))
    assert {("at", "P", "sauna"), ("in", "map", "I"), ("in", "coin", "box"), ("at", "table", "sauna"),
            ("south_of", "cubicle", "sauna"), ("open", "plain door")} <= facts
    assert not any("meal" in fact for fact in facts)


SCIENCEWORLD_TREE = _thing("universe", contents=(
    _thing("kitchen", "k", contents=(
        _thing("counter", "c", contents=(_thing("bowl", "b", contents=(_thing("apple", "a", contents=(
            _thing("terminal 1", "t1"),)),)),)),
        _thing("fridge", "f", propContainer={"isOpen": False, "isClosable": True}),
        _thing("couch", "u", contents=(_thing("pillow", "p"),)),
        _thing("agent", "g", contents=(_thing("inventory", "i", contents=(_thing("orange", "o"),)),)),
        {**_thing("steam", "s"), "isDeleted": True})),
    _thing("hallway", "h", contents=(_thing("picture", "x"),)),
    _thing("terminal 2", "t2")))
REFERENTS = {"a": ["apple", "red apple", "object"], "p": ["object", "pillow"], "f": ["fridge", "kitchen fridge"]}


def test_scienceworld_tree_places_things_carries_the_inventory_and_names_referents():
    from ariadnegraph.envs.scienceworld_truth import tree_facts

    facts = set(tree_facts(SCIENCEWORLD_TREE, REFERENTS))
    assert facts == {
        ("at", "counter", "kitchen"), ("in", "bowl", "counter"), ("in", "apple", "bowl"), ("at", "fridge", "kitchen"),
        ("closed", "fridge"), ("at", "couch", "kitchen"), ("in", "pillow", "couch"), ("at", "P", "kitchen"),
        ("in", "orange", "I"), ("at", "picture", "hallway"),
        ("called", "red apple", "apple"), ("called", "kitchen fridge", "fridge"),  # "object" names two things: none
    }


def test_scienceworld_names_and_supports_are_read_as_the_truth_gives_them_and_a_wrong_fact_counts():
    from ariadnegraph.envs.scienceworld_truth import tree_facts

    facts = [list(f) for f in tree_facts(SCIENCEWORLD_TREE, REFERENTS)]
    look = ("This room is called the kitchen. In it, you see: a counter. On the counter is: a bowl (containing a red "
            "apple). a fridge. The fridge door is closed. a couch. On the couch is: a white pillow.")
    memory = WorldMemory()
    memory.observe(0, look, [("player", "in", "kitchen"), ("counter", "in", "kitchen"), ("bowl", "on", "counter"),
                             ("red apple", "in", "bowl"), ("fridge", "in", "kitchen"), ("fridge", "is", "closed"),
                             ("couch", "in", "kitchen"), ("white pillow", "on", "couch"), ("orange", "in", "inventory"),
                             ("kitchen", "has exit", "hallway")])  # an exit by room name: not compared
    memory.observe(1, "You move the apple to the fridge.", [("apple", "in", "fridge")])  # wrong: it is in the bowl
    result = score_steps(memory, [(0, facts, look + "\norange"), (1, facts, "You move the apple to the fridge.")],
                         in_or_on=True)
    assert result.points[0] == FidelityPoint(0, 1.0, 1.0, 9, 0, 0, 9 / 10, 10)  # all but the unseen picture
    assert (result.points[1].precision, result.points[1].false_positives) == (0.9, 1)  # the wrong fact costs
    assert result.errors["false_positives"] == [["apple", "in", "fridge"]]
    assert result.counts["all"] == {"tp": 18, "fp": 1, "fn": 0, "truth": 20}
    assert result.precision == 18 / 19
    strict = score_steps(memory, [(0, facts, look)])  # a truth that tells supports apart: "on" is not "in"
    assert strict.precision == 7 / 9


def test_a_name_read_in_one_room_says_nothing_of_a_thing_of_that_name_in_another():
    """ScienceWorld has a sink in the kitchen and one in the bathroom; a room the truth puts things in is a room
    even where the truth states no adjacency, and moving there without a look shows nothing of it."""
    facts = [["at", "sink", "kitchen"], ["at", "sink", "bathroom"]]
    texts = {0: "This room is called the kitchen. In it, you see: a sink. A door to the bathroom (that is open)",
             1: "You move to the bathroom."}
    memory = WorldMemory()
    memory.observe(0, texts[0], [("player", "in", "kitchen"), ("sink", "in", "kitchen")])
    memory.observe(1, texts[1], [("player", "in", "bathroom")])
    result = score_steps(memory, [(0, [["at", "P", "kitchen"], *facts], texts[0]),
                                  (1, [["at", "P", "bathroom"], *facts], texts[1])])
    assert (result.precision, result.recall, result.coverage) == (1.0, 1.0, 4 / 6)
    assert result.by_relation["location"]["coverage"] == 4 / 6
    assert result.by_relation["containment"]["coverage"] is None
