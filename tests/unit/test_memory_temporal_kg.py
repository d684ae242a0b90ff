import pytest

from ariadnegraph.memory import NO_RULES, TemporalKG


def test_conflicting_location_closes_old_fact_and_keeps_it():
    kg = TemporalKG()
    kg.update(1, [("apple", "in", "fridge")])
    change = kg.update(4, [("apple", "on", "table")])
    assert [f.triplet for f in change.added] == [("apple", "on", "table")]
    assert [(f.triplet, f.valid_from, f.valid_to) for f in change.closed] == [(("apple", "in", "fridge"), 1, 4)]
    history = [(f.triplet, f.valid_from, f.valid_to) for f in kg.all_facts]
    assert history == [(("apple", "in", "fridge"), 1, 4), (("apple", "on", "table"), 4, None)]


def test_as_of_views_are_exact_at_every_step():
    kg = TemporalKG()
    kg.update(1, [("door", "is", "closed"), ("player", "in", "kitchen")])
    kg.update(2, [("door", "is", "open")])
    kg.update(3, [("player", "in", "hall")])
    kg.update(5, [("door", "is", "closed"), ("player", "in", "kitchen")])
    expected = {
        0: set(),
        1: {("door", "is", "closed"), ("player", "in", "kitchen")},
        2: {("door", "is", "open"), ("player", "in", "kitchen")},
        3: {("door", "is", "open"), ("player", "in", "hall")},
        4: {("door", "is", "open"), ("player", "in", "hall")},
        5: {("door", "is", "closed"), ("player", "in", "kitchen")},
    }
    for step, triplets in expected.items():
        assert kg.as_of(step).triplets() == triplets, step
    assert kg.current().triplets() == expected[5]
    # A past view shows facts as memory knew them then: still open.
    assert all(f.valid_to is None for f in kg.as_of(2).facts.values())
    # Reopened facts are new facts; the old ones stay closed in history.
    assert [(f.valid_from, f.valid_to) for f in kg.all_facts if f.triplet == ("door", "is", "closed")] == [(1, 2), (5, None)]


def test_reaffirmed_fact_is_kept_not_duplicated():
    kg = TemporalKG()
    kg.update(1, [("key", "in", "box")])
    change = kg.update(2, [("the key", "in", "boxes")])
    assert change.added == ()
    assert [f.id for f in change.kept] == [1]
    assert len(kg) == 1


def test_explicit_outdated_by_id_and_by_triplet():
    kg = TemporalKG(rules=NO_RULES)
    kg.update(1, [("a", "likes", "b"), ("c", "likes", "d")])
    change = kg.update(2, [], outdated=[1, ("c", "likes", "d"), ("x", "likes", "y")])
    assert sorted(f.id for f in change.closed) == [1, 2]
    assert len(kg.current()) == 0
    assert len(kg) == 2


def test_same_step_facts_never_close_each_other():
    kg = TemporalKG()
    change = kg.update(1, [("apple", "in", "fridge"), ("apple", "on", "table")])
    assert len(change.added) == 2
    assert change.closed == ()


def test_state_groups_and_direction_uniqueness():
    """The cooking states are exclusive where the memory is opened with the cooking family's groups (agent/session.py)."""
    from ariadnegraph.envs.families import family_of
    from ariadnegraph.memory.conflicts import STATE_GROUPS, ConflictRules

    kg = TemporalKG(rules=ConflictRules(state_groups=(*STATE_GROUPS, *family_of("cooking:1").state_groups)))
    kg.update(1, [("carrot", "is", "raw"), ("carrot", "is", "uncut"), ("hall", "north of", "kitchen")])
    kg.update(2, [("carrot", "is", "sliced")])
    kg.update(3, [("carrot", "is", "fried"), ("pantry", "north of", "kitchen")])
    assert kg.current().triplets() == {
        ("carrot", "is", "sliced"),
        ("carrot", "is", "fried"),
        ("pantry", "north of", "kitchen"),
    }


def test_steps_cannot_go_backwards_and_triplets_must_be_complete():
    kg = TemporalKG()
    kg.update(3, [("a", "r", "b")])
    with pytest.raises(ValueError):
        kg.update(2, [("a", "r", "c")])
    with pytest.raises(ValueError):
        kg.update(4, [("a", "", "c")])


def test_display_names_keep_first_surface_form_and_commas():
    kg = TemporalKG()
    kg.update(1, [("Salt, pepper and chili mix", "in", "Pantry")])
    kg.update(2, [("salt, pepper and chili mix", "is", "edible")])
    view = kg.current()
    assert view.triplets() == {("Salt, pepper and chili mix", "in", "Pantry"), ("Salt, pepper and chili mix", "is", "edible")}
    assert len(view.incident("salt, pepper and chili mix")) == 2


def test_conflicts_are_found_through_shared_subject_or_exclusive_object_only():
    kg = TemporalKG()
    kg.update(1, [("door", "is", "closed"), ("box", "is", "closed"), ("hall", "north of", "kitchen"), ("loop", "north of", "loop")])
    change = kg.update(2, [("door", "is", "open"), ("apple", "in", "box"), ("cellar", "north of", "kitchen")])
    # the box stays closed although "closed" is shared; the hall is no longer north of the kitchen
    assert sorted(f.triplet for f in change.closed) == [("door", "is", "closed"), ("hall", "north of", "kitchen")]
    change = kg.update(3, [("box", "is", "open"), ("apple", "in", "inventory"), ("hall", "north of", "loop")])
    assert sorted(f.triplet for f in change.closed) == [("apple", "in", "box"), ("box", "is", "closed"), ("loop", "north of", "loop")]
    assert ("door", "is", "open") in kg.current()
    assert ("cellar", "north of", "kitchen") in kg.current()


def test_never_invalidate_only_appends_and_the_newest_place_wins():
    """DAVIS's KG (``invalidate=False``): contradicted and outdated facts stay open beside the new ones."""
    from ariadnegraph.memory import spatial

    kg = TemporalKG()
    kg.update(1, [("player", "in", "kitchen"), ("door", "is", "closed")])
    change = kg.update(2, [("player", "in", "hall"), ("door", "is", "open")], outdated=[("door", "is", "closed")], invalidate=False)
    assert change.closed == ()
    assert all(f.is_open for f in kg.all_facts)
    assert kg.current().triplets() == {("player", "in", "kitchen"), ("player", "in", "hall"), ("door", "is", "closed"), ("door", "is", "open")}
    assert spatial.current_location(kg.current()) == "hall"
    kg.update(3, [("player", "in", "cellar")])  # the default closes what the new fact contradicts again
    assert {f.triplet for f in kg.all_facts if not f.is_open} == {("player", "in", "hall"), ("player", "in", "kitchen")}
