from ariadnegraph.memory import TemporalKG, spatial


def build(*steps):
    kg = TemporalKG()
    for step, triplets in enumerate(steps, start=1):
        kg.update(step, triplets)
    return kg


def test_unexplored_exits_algorithm_three():
    kg = build(
        [("player", "in", "kitchen"), ("kitchen", "has exit", "north"), ("kitchen", "has exit", "east"), ("kitchen", "has exit", "west")],
        [("player", "in", "hall"), ("hall", "north of", "kitchen"), ("hall", "has exit", "south"), ("hall", "has exit", "up")],
    )
    view = kg.current()
    # kitchen: north is explained by "hall north of kitchen"
    assert spatial.unexplored_exits(view, "kitchen") == ["east", "west"]
    # hall: south is explained by the same fact read backwards (grid maps are reversible)
    assert spatial.unexplored_exits(view, "hall") == ["up"]
    assert spatial.unexplored_exits(view, "hall", assume_reversible=False) == ["south", "up"]
    assert spatial.all_unexplored_exits(view, spatial.visited_locations(kg.all_facts)) == {"kitchen": ["east", "west"], "hall": ["up"]}
    assert spatial.current_location(view) == "hall"
    assert spatial.visited_locations(kg.all_facts) == ["kitchen", "hall"]


def test_shortest_path_between_known_locations():
    kg = build(
        [("hall", "north of", "kitchen"), ("study", "east of", "hall"), ("garden", "west of", "kitchen")],
        [("attic", "up of", "study")],
    )
    view = kg.current()
    assert spatial.shortest_path(view, "kitchen", "study") == [("north", "hall"), ("east", "study")]
    assert spatial.shortest_path(view, "study", "garden") == [("west", "hall"), ("south", "kitchen"), ("west", "garden")]
    assert spatial.shortest_path(view, "kitchen", "attic") == [("north", "hall"), ("east", "study"), ("up", "attic")]
    assert spatial.shortest_path(view, "kitchen", "kitchen") == []
    assert spatial.shortest_path(view, "kitchen", "moon") is None
    assert spatial.shortest_path(view, "study", "kitchen", assume_reversible=False) is None


def test_locations_and_exits():
    kg = build([("player", "in", "kitchen"), ("kitchen", "has exit", "north"), ("hall", "north of", "kitchen"), ("cellar", "is", "location")])
    view = kg.current()
    assert spatial.locations(view) == {"kitchen", "hall", "cellar"}
    assert spatial.exits(view, "kitchen") == {"north": "hall"}
    assert spatial.exits(view, "hall") == {"south": "kitchen"}


def test_reachable_places_nearest_first():
    kg = build([("hall", "north of", "kitchen"), ("study", "east of", "hall"), ("garden", "west of", "kitchen")], [])
    assert spatial.reachable_places(kg.current(), "kitchen") == ["garden", "hall", "study"]
    assert spatial.reachable_places(kg.current(), "moon") == []
