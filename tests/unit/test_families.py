"""Game families (envs/families): one interface per kind of game, resolved from the env spec, and each family's
parser read on recorded observations (tests/fixtures/observations: trajectories the games really printed)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ariadnegraph.controller.rules import within_rules
from ariadnegraph.envs import families
from ariadnegraph.envs.families import GENERIC, Observed, Standing, family_of
from tests.fakes import fake_session, view_of

OBSERVATIONS = Path(__file__).parent.parent / "fixtures" / "observations"


def recorded(name: str) -> tuple[str, list[Observed]]:
    data = json.loads((OBSERVATIONS / name).read_text())
    return data["env"], [
        Observed(s["observation"], s["action"], s["valid"] or [], s["location"], s["inventory"]) for s in data["steps"]
    ]


def facts_of(env: str, seen: Observed) -> set[tuple[str, str, str]]:
    return set(family_of(env).perceive(seen).facts)


# -- resolution --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, family", [
    ("cooking:2", "textworld.cooking"), ("arigraph:cook_hard", "textworld.cooking"), ("arigraph:hunt", "textworld"),
    ("arigraph:clean", "textworld"), ("treasure:3", "textworld"), ("coin:2", "textworld"), ("file:/g/x.z8", "textworld"),
    ("twx:cookingworld", "twx.cookingworld"), ("twx:simonsayswithmemory50verbose", "twx.simonsays"),
    ("twx:peckingorder", "twx.peckingorder"), ("scienceworld:boil", "scienceworld"), ("crafter", "crafter"),
    ("nethack:challenge", "nethack"),
])
def test_a_spec_resolves_to_its_family(spec, family):
    assert family_of(spec).name == family


def test_every_twx_setting_has_a_family_of_its_own_game():
    from ariadnegraph.envs.twx_env import TWX_SETTINGS

    for setting in TWX_SETTINGS:
        assert family_of(f"twx:{setting}").name.startswith("twx."), setting


def test_a_spec_no_family_covers_plays_with_the_generic_family(monkeypatch):
    monkeypatch.setattr(families, "FAMILIES", [f for f in families.FAMILIES if f.name != "textworld"])
    generic = family_of("coin:1")
    assert generic is GENERIC
    assert generic.ruinous("eat coin", Standing()) is None
    assert generic.perceive(Observed("There is a coin on the floor.")).facts == ()
    assert "text game" in generic.brief


def test_a_family_is_one_module_and_one_registry_line(tmp_path, monkeypatch):
    """A test family plugged in as a module of its own: its brief, rules and parser reach the nodes' interface."""
    module = tmp_path / "ariadne_test_family.py"
    module.write_text(textwrap.dedent('''
        from ariadnegraph.envs.families.base import GameFamily, Sighting

        class Puzzle(GameFamily):
            name = "test.puzzle"
            brief = "A puzzle of levers."

            def covers(self, prefix, rest):
                return prefix == "treasure" and rest == "99"

            def ruinous(self, command, standing):
                return "the trap closes" if command == "pull red lever" else None

            def perceive(self, seen):
                return Sighting((("lever", "in", seen.location),), frozenset({seen.location}))

        FAMILY = Puzzle()
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    import ariadne_test_family

    monkeypatch.setattr(families, "FAMILIES", [ariadne_test_family.FAMILY, *families.FAMILIES])
    family = family_of("treasure:99")
    assert family.name == "test.puzzle"
    assert family.brief == "A puzzle of levers."
    assert [c for c in ["pull red lever", "pull blue lever"] if family.ruinous(c, Standing()) is None] == ["pull blue lever"]
    assert family.perceive(Observed("You see levers.", location="Hall")).facts == (("lever", "in", "Hall"),)
    assert families.family_named("test.puzzle") is ariadne_test_family.FAMILY  # as a checkpointed state names it
    assert family_of("treasure:1").name == "textworld"  # the rest is unchanged


# -- rules, wordings, tools (the cooking family owns them) -------------------------------------------------------
@pytest.mark.parametrize("spec, command, inventory, ruled_out", [
    ("cooking:1", "eat red apple", ["red apple"], "loses the game"),
    ("cooking:1", "eat meal", ["meal"], None),
    ("cooking:1", "cook red bell pepper with stove", ["roasted red bell pepper", "red onion"], "cooked already"),
    ("cooking:1", "cook red onion with stove", ["roasted red bell pepper", "red onion"], None),
    # cut, then cooked: the cooking state is not the name's first word (held-out cooking:3@36305 burned it so)
    ("cooking:3", "cook red apple with BBQ", ["knife", "sliced grilled red apple", "diced tomato"], "cooked already"),
    ("cooking:3", "cook tomato with stove", ["sliced grilled red apple", "diced tomato"], None),
    ("twx:cookingworld", "cook yellow bell pepper in oven", ["fried yellow bell pepper"], "cooked already"),
    ("arigraph:cook", "eat carrot", [], "loses the game"),
    ("treasure:1", "eat red apple", ["red apple"], None),  # another family: its rules are not known here
    ("twx:coincollector", "eat coin", [], None),
])
def test_what_the_cooking_rules_rule_out(spec, command, inventory, ruled_out):
    reason = family_of(spec).ruinous(command, Standing(inventory=inventory))
    if ruled_out is None:
        assert reason is None
    else:
        assert ruled_out in reason


RECIPE = "examine cookbook:\nIngredients:\nbanana\nred hot pepper\n\nDirections:\nroast the banana\ndice the red hot pepper\ngrill the red hot pepper\nprepare meal"


@pytest.mark.parametrize("command, ruled_out", [
    ("cook red hot pepper with oven", "with the bbq"),  # a held-out game was lost so: grilled, it said, not roasted
    ("cook red hot pepper with stove", "with the bbq"),
    ("cook red hot pepper with BBQ", None),
    ("cook banana with oven", None),
    ("cook banana with bbq", "with the oven"),
    ("cook red hot pepper in toaster", None),  # an appliance the rules do not know (TextWorldExpress grills there)
    ("cook carrot with oven", None),  # not in what was read
])
def test_cooking_an_ingredient_otherwise_than_the_recipe_read_says_is_ruled_out(command, ruled_out):
    reason = family_of("cooking:3").ruinous(command, Standing(["red hot pepper", "banana"], [RECIPE]))
    assert reason is None if ruled_out is None else ruled_out in reason
    assert family_of("cooking:3").ruinous(command, Standing(["red hot pepper", "banana"])) is None  # nothing read: not known


def test_the_shield_keeps_every_other_command():
    valid = ["cook red bell pepper with stove", "chop red bell pepper with knife", "eat red bell pepper", "prepare meal", "go south"]
    assert within_rules(view_of({"env": "cooking:1", "inventory": ["roasted red bell pepper", "knife"]}), valid) == [
        "chop red bell pepper with knife", "prepare meal", "go south"]
    assert within_rules(view_of({"env": "coin:1", "inventory": ["roasted red bell pepper"]}), valid) == valid


def test_a_cooking_direction_is_worded_as_the_command_that_does_it():
    assert family_of("cooking:1").phrasings("fry the white tuna") == ["cook white tuna stove"]
    assert family_of("twx:cookingworld").phrasings("roast the carrot") == ["cook carrot oven"]
    assert family_of("cooking:1").phrasings("chop the carrot") == []
    assert family_of("coin:1").phrasings("fry the tuna") == []


def test_textworldexpress_grills_on_its_barbeque_or_in_the_toaster_not_on_textworlds_bbq():
    """Held-out twx:cookingworld@0 (TALES's test index 0, one room): the brief said "grill on the BBQ", the model went
    looking for one for 80 steps, and "grill the pork chop" was never followed as 'cook pork chop in toaster'."""
    twx, textworld = family_of("twx:cookingworld"), family_of("cooking:1")
    assert twx.phrasings("grill the pork chop") == ["cook pork chop barbeque", "cook pork chop toaster"]
    valid = ["cook pork chop in oven", "cook pork chop in stove", "cook pork chop in toaster", "look around"]
    assert [twx.ground(c, valid) for c in twx.phrasings("grill the pork chop")] == [None, "cook pork chop in toaster"]
    recipe = ["read cookbook:\nDirections:\n  chop the pork chop\n  grill the pork chop\n  roast the block of cheese"]
    assert "with the barbeque or the toaster" in twx.ruinous("cook pork chop in oven", Standing(["chopped pork chop"], recipe))
    assert twx.ruinous("cook pork chop in toaster", Standing(["chopped pork chop"], recipe)) is None
    assert twx.things_named("grill the pork chop") == ["pork chop", "barbeque", "toaster"]
    assert "toaster" in twx.brief
    assert "BBQ" not in twx.brief
    assert textworld.phrasings("grill the pork chop") == ["cook pork chop bbq"]
    assert "grill on the BBQ" in textworld.brief


def test_the_things_a_step_names_the_tool_and_the_appliance_after_the_thing():
    cooking = family_of("cooking:1")
    assert cooking.things_named("slice the carrot") == ["carrot", "knife"]
    assert cooking.things_named("prepare meal") == []
    assert cooking.things_named("roast the red tuna") == ["red tuna", "oven"]
    assert cooking.things_named("carrot") == ["carrot"]
    assert cooking.things_named("block of cheese") == ["block of cheese"]
    assert family_of("coin:1").things_named("take the coin") == ["coin"]
    assert cooking.tools_needed("fry the white tuna") == []
    assert family_of("treasure:1").tools_needed("chop the tree") == []


def test_a_step_that_says_where_its_thing_is_names_both():
    assert family_of("cooking:1").things_named("Read the recipe in the cookbook") == ["recipe", "cookbook"]
    assert family_of("twx:mapreader").things_named("take the coin that is located in the cubicle") == ["coin", "cubicle"]


def test_a_goal_sentence_names_what_its_verb_acts_on_not_its_preface():
    """TWX coincollector's goal was asked of memory whole ("your task is to search environment and find coin: not seen
    yet") while the coin lay in the room: WHERE told the planner to search elsewhere."""
    coins = family_of("twx:coincollector")
    assert coins.things_named("Your task is to search the environment and find the coin") == ["coin"]
    assert coins.things_named("Once you find the coin") == ["coin"]
    assert coins.things_named("take it") == []  # named by the step before
    assert family_of("cooking:1").things_named("red hot pepper") == ["red hot pepper"]  # no verb: a thing to have


def test_the_cooking_family_reads_enjoy_your_meal_as_eat_meal_and_no_other_does():
    valid = ["eat meal", "drop meal"]
    assert family_of("cooking:1").command_for_item("enjoy your meal", valid) == "eat meal"
    assert family_of("cooking:1").ground("enjoy your meal", valid) == "eat meal"
    assert family_of("coin:1").ground("enjoy your meal", valid) is None


# -- perception on recorded observations ---------------------------------------------------------------------------
def test_textworld_things_seen_and_the_closed_door_of_a_room():
    env, steps = recorded("textworld_cooking.json")
    start = facts_of(env, steps[0])  # the pantry: a shelf, a closed door west, a raw pork chop carried
    assert {("Pantry", "has exit", "west"), ("Pantry", "west door", "frosted-glass door"),
            ("frosted-glass door", "is", "closed"), ("pork chop", "in", "inventory"), ("pork chop", "is", "raw"),
            ("shelf", "in", "Pantry")} <= start
    kitchen = facts_of(env, steps[2])
    assert {("knife", "on", "counter"), ("tomato", "on", "counter"), ("cookbook", "on", "table"),
            ("fridge", "is", "closed"), ("fridge", "in", "Kitchen"), ("screen door", "is", "closed"),
            ("Kitchen", "south door", "screen door"), ("frosted-glass door", "is", "open")} <= kitchen
    assert not any(t[0] in ("block of cheese", "white tuna") for t in kitchen)  # in the closed fridge: not seen


def test_textworld_a_container_holds_what_it_showed_when_opened():
    env, steps = recorded("textworld_cooking.json")
    opened = family_of(env).perceive(steps[3])  # "You open the fridge, revealing a block of cheese and a raw white tuna."
    assert {("block of cheese", "in", "fridge"), ("white tuna", "in", "fridge"), ("fridge", "is", "open")} <= set(opened.facts)
    assert "fridge" in opened.shown
    assert "Kitchen" in opened.shown
    taken = facts_of(env, steps[4])
    assert ("block of cheese", "in", "inventory") in taken
    assert ("white tuna", "in", "fridge") in taken


def test_textworld_a_state_the_text_shows_before_a_name_and_the_inventory_after_the_last_command():
    env, steps = recorded("textworld_cooking.json")  # "You open the fridge, revealing ... a raw white tuna."
    assert {("white tuna", "in", "fridge"), ("white tuna", "is", "raw")} <= facts_of(env, steps[3])
    env, steps = recorded("textworld_treasure.json")  # "You pick up the keycard from the ground. ... *** The End ***"
    assert not steps[1].valid
    assert ("keycard", "in", "inventory") in facts_of(env, steps[1])


def test_textworld_what_a_text_says_a_key_opens():
    env, steps = recorded("textworld_hunt.json")  # "The key 1 lying in room A opens the white locker." / a note
    assert {("key 1", "unlocks", "white locker"), ("golden key", "unlocks", "golden locker")} <= facts_of(env, steps[0])
    assert ("key 2", "unlocks", "red locker") in facts_of(env, steps[9])  # "The key 2 unlocks Red locker."
    assert not any(relation == "unlocks" for _, relation, _ in facts_of(env, steps[8]))
    # what an unlocking names: the lock, then the key (memory is asked where each is)
    assert family_of(env).things_named("unlock red locker with key 2") == ["red locker", "key 2"]


def test_textworld_cleaning_supports_and_an_opened_wardrobe():
    env, steps = recorded("textworld_clean.json")
    first = facts_of(env, steps[0])
    assert {("toothbrush", "on", "dining table"), ("salt and papper shakers", "on", "dining table")} <= first
    assert ("evening dress", "in", "wardrobe") in facts_of(env, steps[3])
    assert ("wardrobe", "is", "open") in facts_of(env, steps[3])


def test_twx_things_on_supports_in_containers_and_the_contents_shown_when_opened():
    env, steps = recorded("twx_cookingworld.json")
    room = facts_of(env, steps[0])
    assert {("knife", "on", "counter"), ("cookbook", "on", "counter"), ("fridge", "is", "closed"),
            ("fridge", "in", "kitchen"), ("dining chair", "in", "kitchen")} <= room
    opened = facts_of(env, steps[2])  # "The fridge contains a yellow bell pepper, a raw chicken wing, ..."
    assert {("yellow bell pepper", "in", "fridge"), ("chicken wing", "in", "fridge"), ("fridge", "is", "open")} <= opened


def test_twx_what_is_carried_goes_by_its_command_name_and_states_show_before_names():
    env, steps = recorded("twx_held.json")  # "The fridge contains a yellow bell pepper, a raw chicken wing, ..."
    assert {("chicken wing", "in", "fridge"), ("chicken wing", "is", "raw"), ("egg", "is", "raw")} <= facts_of(env, steps[1])
    carried = facts_of(env, steps[6])  # inventory: raw chicken wing, roasted sliced yellow bell pepper, knife
    assert {("chicken wing", "in", "inventory"), ("chicken wing", "is", "raw"), ("yellow bell pepper", "in", "inventory"),
            ("yellow bell pepper", "is", "sliced"), ("yellow bell pepper", "is", "roasted")} <= carried
    assert not any(t[0].startswith(("raw ", "roasted ")) for t in carried)


def test_twx_doors_their_states_and_the_rooms_beyond():
    env, steps = recorded("twx_doors.json")
    start = facts_of(env, steps[0])
    assert {("kitchen", "has exit", "south"), ("kitchen", "south door", "frosted-glass door"),
            ("frosted-glass door", "is", "closed"), ("corridor", "east of", "kitchen")} <= start
    pantry = facts_of(env, steps[2])  # "Through an open frosted-glass door, to the North you see the kitchen."
    assert {("pantry", "north door", "frosted-glass door"), ("frosted-glass door", "is", "open"),
            ("kitchen", "north of", "pantry")} <= pantry


def test_twx_closing_a_container_or_a_door_and_opening_a_door_onto_a_room():
    env, steps = recorded("twx_close.json")  # kitchen; open and close the cutlery drawer, then the north door
    assert ("cutlery drawer", "is", "closed") in facts_of(env, steps[2])  # "You close the cutlery drawer."
    assert {("screen door", "is", "open"), ("kitchen", "north door", "screen door"),
            ("backyard", "north of", "kitchen")} <= facts_of(env, steps[3])  # "You open the screen door, revealing ..."
    assert ("screen door", "is", "closed") in facts_of(env, steps[4])  # "You close the screen door to the backyard."


def test_twx_a_thing_put_somewhere_is_where_it_was_put_and_sorting_never_takes_it_back_out():
    """Recorded (sorting dev index 1): "You put the 27g of steel in the box." places the steel in the box. The 1.5B
    later took a thing it had placed back out of the box (dev sorting@1: 0.75 to -1, the game lost): what is in the
    box stays, by the sorting family's rules; a thing still lying about may be taken."""
    env, steps = recorded("twx_sorting.json")
    assert ("27g of steel", "in", "box") in facts_of(env, steps[3])
    sorting = family_of("twx:sorting")
    in_box = Standing(contents=lambda holder: ["27g of steel"] if holder == "box" else [])
    assert sorting.ruinous("take 27g of steel", in_box)
    assert sorting.ruinous("take 41g of acrylic", in_box) is None
    assert sorting.ruinous("put 37g of plastic in box", in_box) is None
    assert family_of("twx:arithmetic").ruinous("take 27g of steel", in_box) is None


def test_scienceworld_a_look_lists_each_thing_what_it_holds_and_the_doors():
    env, steps = recorded("scienceworld.json")
    seen = family_of(env).perceive(steps[0])
    facts = set(seen.facts)
    assert {("counter", "in", "kitchen"), ("bowl", "on", "counter"), ("banana", "in", "bowl"),
            ("fridge", "is", "closed"), ("sodium chloride", "in", "glass jar"), ("glass cup", "on", "table"),
            ("kitchen", "has exit", "bathroom"), ("kitchen door to the bathroom", "is", "open")} <= facts
    assert not any(")" in part for fact in facts for part in fact)
    assert "fridge" not in seen.shown
    assert "bowl" in seen.shown


def test_scienceworld_outdoors_states_after_a_comma_nested_supports_and_opening():
    env, steps = recorded("scienceworld_rooms.json")
    assert ("fridge", "is", "open") in facts_of(env, steps[1])  # "The fridge is now open."
    outside = facts_of(env, steps[3])  # "This outside location is called the outside. Here you see: ..."
    assert {("axe", "in", "outside"), ("water", "in", "fountain"), ("outside", "has exit", "greenhouse")} <= outside
    workshop = facts_of(env, steps[5])  # "a table. On the table is: a battery, a blue light bulb, which is off, ..."
    assert {("blue light bulb", "on", "table"), ("switch", "on", "table"), ("yellow wire", "on", "table")} <= workshop
    assert not any(part.startswith("which") for fact in workshop for part in fact)
    bedroom = facts_of(env, steps[7])  # "a bed. On the bed is: a mattress. On the mattress is: a white pillow.."
    assert {("mattress", "on", "bed"), ("white pillow", "on", "mattress")} <= bedroom
    assert ("fridge", "is", "closed") in facts_of(env, steps[9])  # "The fridge is now closed."


def test_a_step_that_says_where_its_thing_is_is_done_to_the_thing_or_its_holder():
    cooking, mapreader = family_of("cooking:3"), family_of("twx:mapreader")
    assert cooking.command_for_item("Read the recipe in the cookbook", ["examine cookbook", "take cookbook from table"]) == "examine cookbook"
    assert mapreader.command_for_item("take the coin that is located in the cubicle", ["take coin", "move north"]) == "take coin"
    assert cooking.command_for_item("Read the recipe in the cookbook", ["go west", "look"]) is None


def test_a_goal_is_read_as_its_instructions_with_the_thing_a_pronoun_stands_for():
    """TWX mapreader (dev game since it showed this): the goal's second step was read as "and put it into the box found
    in the bar", WHERE looked for a thing named "it into box found" (not seen yet, so search elsewhere) and no command
    was found for it; the 1.5B model walked between the two rooms for 97 steps with `put coin in box` valid."""
    mapreader = family_of("twx:mapreader")
    goal = ("Your task is to take the coin that is located in the shower, and put it into the box found in the bar. "
            "A map is provided, that you may find helpful.")
    take, put = mapreader.goal_steps(goal)  # the remark and its relative clause are no steps
    assert (take, put) == ("Your task is to take the coin that is located in the shower",
                           "put the coin into the box found in the bar")
    assert mapreader.things_named(put) == ["coin", "box", "bar"]  # the thing moved, where it goes, where that is
    valid = ["move west", "put coin in box", "put map in box", "take coin"]
    assert mapreader.command_for_item(put, valid) == "put coin in box"
    assert mapreader.command_for_item(take, valid) == "take coin"  # past the goal's preface
    assert mapreader.command_for_item(put, ["move west", "put map in box"]) is None  # the coin not held: no command
    science = family_of("scienceworld:melt")
    assert science.goal_steps("Your task is to melt ice. First, focus on the substance. Then, take actions that will "
                              "cause it to change its state of matter.") == [
        "focus on ice",
        "heat the ice"]  # bare "First", "Then" are no steps; the task restated is none either; "the substance" is the
    # ice; "take actions that will cause it to change its state of matter" is what does it, no thing to take
    assert science.goal_steps("Your task is to freeze water. First, focus on the substance. Then, take actions that "
                              "will cause it to change its state of matter.")[1] == "cool the water"
    # where code heats it: the oven for ice (the furnace takes it past water to steam; half the variations break the
    # stove), the furnace for a metal
    assert science.things_named("heat the ice") == ["ice", "oven"]
    assert science.phrasings("heat the lead") == ["move lead to blast furnace"]
    assert science.phrasings("cool the water") == ["move water to freezer"]
    assert science.phrasings("focus on ice") == []
    assert science.phrasings("cool the mercury") == ["move mercury to ultra low temperature freezer"]  # -39 degrees
    # what the game's answer leaves to play: a thing on a heat source heats once it is on; a closed holder is opened
    assert science.said_to_play("You move the gallium to the blast furnace.") == "activate blast furnace"
    assert science.said_to_play("You move the tin to the stove.") == "activate stove"
    assert science.said_to_play("You move the gallium to the inventory.") is None
    assert science.said_to_play("(disconnecting tin)You move the tin to the blast furnace.") == "activate blast furnace"
    assert science.said_to_play("You move the tin to the fire pit.") is None  # lit with a lighter, never activated
    assert science.said_to_play("That can't be moved there, because the freezer isn't open.") == "open freezer"
    changed = science.goal_steps("Your task is to change the state of matter of water. First, focus on the substance. "
                                 "Then, take actions that will cause it to change its state of matter.")
    assert changed == ["focus on water", "heat the water"]  # any change counts
    # the dev variations' other tasks: the restatement, the remarks and every guarded branch are no steps for code
    find = "Your task is to find a(n) living thing. First, focus on the thing. Then, move it to the red box in the kitchen."
    assert science.goal_steps(find) == ["focus on the living thing", "move the living thing to the red box in the kitchen"]
    assert science.things_named("move the living thing to the red box in the kitchen") == ["living thing"]  # not the box
    assert science.places_named("move the living thing to the red box in the kitchen", find) == ["kitchen"]
    # "the living thing" is a kind the family knows by ScienceWorld's names: an animal's life stage, a plant
    living = ["adult bee", "baby beaver", "turtle egg", "juvenile chameleon", "pea plant", "apple seed", "tadpole"]
    assert all(science.is_a(name, "living thing") for name in living)
    assert not any(science.is_a(name, "living thing") for name in ["living room", "picture", "air", "bee hive", "table"])
    assert not family_of("cooking:1").is_a("adult bee", "living thing")  # a family that knows no kinds
    assert all(science.is_a(name, "animal") for name in ["blue jay", "baby wolf", "parrot egg"])
    assert not any(science.is_a(name, "animal") for name in ["pea plant", "apple seed", "orange wire terminal 1"])
    # a step naming a kind is carried out by its verb on a thing of that kind: a second focus would undo the first
    assert science.carries_out("focus on the living thing", "focus on adult bee")
    assert science.carries_out("focus on the living thing", "focus on living thing in flower pot 8")  # the game's name
    assert not science.carries_out("focus on the living thing", "pick up adult bee")
    assert science.carries_out("move the living thing to the red box in the kitchen", "move adult bee to red box")
    assert not science.carries_out("move the living thing to the red box in the kitchen", "move adult bee to green box")
    assert not science.carries_out("focus on lead", "focus on adult bee")  # no kind named: by its words only
    assert science.things_named("move it to the red box") == []  # "it": the step before's thing
    conductive = ("Your task is to determine if paper clip is electrically conductive. The paper clip is located around the "
                  "workshop. First, focus on the paper clip. If it is electrically conductive, place it in the red box. If "
                  "it is electrically nonconductive, place it in the green box.")
    assert science.goal_steps(conductive) == ["focus on the paper clip"]  # which box: the model's to find out
    assert science.goal_steps("Your task is to use chemistry to create orange paint. When you are done, focus on the "
                              "orange paint.") == ["focus on the orange paint"]
    measure = ("Your task is to measure the melting point of solid unknown substance O, which is located around the kitchen. "
               "First, focus on the thermometer. Next, focus on the solid unknown substance O. If the melting point of "
               "solid unknown substance O is above -10.0 degrees celsius, focus on the blue box. If the melting point of "
               "solid unknown substance O is below -10.0 degrees celsius, focus on the orange box. The boxes are located "
               "around the kitchen.")
    assert science.goal_steps(measure) == ["focus on the thermometer", "focus on the solid unknown substance O"]
    # a look names a thing in full, the valid commands by a shorter name: memory's command is played as the game's
    valid = ["open cupboard", "open drawer", "open freezer", "go to hallway"]
    assert science.ground("open large cupboard", valid) == "open cupboard"
    assert science.ground("open ultra low temperature freezer", valid) == "open freezer"
    assert science.ground("open red box", ["open box", "open green box"]) == "open box"  # the one with every word
    assert science.ground("open red box", ["open green box"]) is None  # another thing, not a shorter name
    assert science.ground("close large cupboard", valid) is None  # another verb
    assert science.ground("focus on red box", ["focus on box", "look around"]) is None  # the answer: named in full
    inventory = science.perceive(Observed("You move the gallium to the inventory.", inventory=["substance called gallium"]))
    assert ("gallium", "in", "inventory") in inventory.facts  # the inventory lists it with no article: the same gallium
    # a step whose verb the family does not know is a step all the same; a condition that instructs is one clause
    temperature = ("Your task is to measure the temperature of unknown substance B, which is located around the kitchen. "
                   "First, focus on the thermometer. Next, measure the temperature of unknown substance B.")
    assert science.goal_steps(temperature) == ["focus on the thermometer", "measure the temperature of unknown substance B"]
    assert science.goal_steps("Your task is to sort things. If so put it in the red box. Then, focus on the red box.") == [
        "focus on the red box"]
    commonsense = family_of("twx:textworldcommonsense")  # a verb of two words after the preface ("pick up": take)
    pick, place = commonsense.goal_steps("Your task is to pick up objects, then place them in their usual locations "
                                         "in the environment.")
    assert commonsense.things_named(pick) == ["objects"]
    assert place.startswith("place the objects in")
    treasure = family_of("treasure:1")  # "it" is the thing of the last step that instructs, not of a remark
    assert treasure.goal_steps("Take the carrot. Once done, eat it") == ["Take the carrot", "Once done",
                                                                          "eat the carrot"]
    # a step placing a thing is done by that placing only, never by another place for it
    cooking = family_of("cooking:1")
    assert cooking.command_for_item("put the hat on the bed", ["put hat on shelf", "take hat"]) is None
    assert cooking.command_for_item("put the hat on the bed", ["put hat on shelf", "put hat on bed"]) == "put hat on bed"


def test_scienceworld_a_step_is_done_in_the_room_the_task_says_its_thing_is_in():
    """Held-out test-conductivity#68 (2026-11-28): "The sodium chloride is located around the living room" was
    dropped as a remark; the 1.5B tried the kitchen jar's sodium chloride, which no command the game took named, and
    the way forward searched the house for 60 steps."""
    from ariadnegraph.envs.families.scienceworld import told_where

    science = family_of("scienceworld:test-conductivity")
    conductive = ("Your task is to determine if sodium chloride is electrically conductive. The sodium chloride is "
                  "located around the living room. First, focus on the sodium chloride. If it is electrically "
                  "conductive, place it in the orange box.")
    assert told_where(conductive) == [("sodium chloride", "living room")]
    assert science.places_named("focus on the sodium chloride", conductive) == ["living room"]
    assert science.places_named("focus on the orange box", conductive) == []  # the task says nothing of the box
    assert science.places_named("focus on the thermometer", MEASURE) == []
    assert science.places_named("focus on the solid unknown substance C", MEASURE) == ["kitchen"]  # "..., which is"
    assert science.places_named("focus on the animal with the longest life span", LIFESPAN) == ["outside"]  # a kind
    assert science.places_named("focus on lead", MELT) == []
    assert told_where("The paper clip is located around the attic.") == []  # no room of the game's
    boxes = "The boxes are located around the workshop."  # a plural told of, the step naming one
    assert science.places_named("focus on the box", boxes) == ["workshop"]
    assert science.places_named("focus on the glass", "The glass is located around the kitchen.") == ["kitchen"]


def test_a_cooking_goal_that_never_names_the_cookbook_starts_by_reading_the_recipe():
    """AriGraph's cook_hard (first played at 8db9db1, since a dev game): its goal, "Prepare the meal from the recipe
    and eat it", is one step, so no NEXT STEP said to read the recipe; the 1.5B model wandered 52 steps first."""
    cooking = family_of("arigraph:cook_hard")
    assert cooking.goal_steps("Prepare the meal from the recipe and eat it") == [
        "read the recipe in the cookbook", "Prepare the meal from the recipe and eat it"]
    generated = "Check the cookbook in the kitchen for the recipe. Once done, enjoy your meal!"
    assert family_of("cooking:1").goal_steps(generated) == ["Check the cookbook in the kitchen for the recipe", "Once done",
                                                            "enjoy your meal"]  # it says so itself
    assert family_of("treasure:1").goal_steps("Find the treasure") == ["Find the treasure"]  # no recipe to read


def test_scienceworld_shows_a_model_sixty_of_its_valid_commands_the_goal_and_moves_first():
    """ScienceWorld lists every verb on every thing and pair of things (about 1,300 commands, 32,000 characters, in
    its kitchen at 15 steps of melt): a prompt of about 8,000 tokens, two minutes a step for the 1.5B model."""
    things = [f"thing {i}" for i in range(40)] + ["lead", "metal pot"]
    valid = ["look around", "inventory", "go to hallway", "go to workshop"]
    valid += [f"{verb} {t}" for verb in ("look at", "focus on", "mix", "pick up") for t in things]
    valid += [f"move {a} to {b}" for a in things for b in things if a != b]
    science, textworld = family_of("scienceworld:melt"), family_of("treasure:2")
    assert textworld.shown_commands(valid, "melt lead") == valid  # a family that lists few: all of them
    shown = science.shown_commands(valid, "Your task is to melt lead. First, focus on the substance.")
    assert len(shown) == 60
    assert len(valid) > 1600
    assert shown == [c for c in valid if c in shown]  # in the game's order
    assert {"look around", "inventory", "go to hallway", "go to workshop"} <= set(shown)  # moves, one-word commands
    assert {"focus on lead", "pick up lead", "mix lead", "look at lead"} <= set(shown)  # what the goal names
    assert {"look at thing 0", "focus on thing 0", "mix thing 0", "pick up thing 0"} <= set(shown)  # every verb at work
    assert any(c.startswith("move ") and "lead" in c for c in shown)
    # what must be shown whatever its rank (a plan's step, a fallback) is, and a command listed twice is shown once
    kept = science.shown_commands(valid + ["look around"], "melt lead", keep=["Move thing 3 to thing 7"])
    assert "move thing 3 to thing 7" in kept
    assert kept.count("look around") == 1


# ScienceWorld's own task descriptions (variation 0, `easy`), as the env states them
MELT = ("Your task is to melt lead. First, focus on the substance. Then, take actions that will cause it to change its "
        "state of matter.")
MEASURE = ("Your task is to measure the melting point of solid unknown substance C, which is located around the kitchen. "
           "First, focus on the thermometer. Next, focus on the solid unknown substance C. If the melting point of solid "
           "unknown substance C is above 150.0 degrees celsius, focus on the orange box. If the melting point of solid "
           "unknown substance C is below 150.0 degrees celsius, focus on the yellow box.")
FIND = ("Your task is to find a(n) living thing. First, focus on the thing. Then, move it to the red box in the "
        "kitchen.")
LIFESPAN = ("Your task is to find the animal with the longest life span.  The animals are in the 'outside' location.  "
            "Focus on the animal with the longest life span.")
# a focus naming neither a thing nor a kind the family knows: which thing is meant is the model's to find
STAGES = ("Your task is to focus on the life stages of the frog, starting from earliest to latest. The frog is in the "
          "'outside' location.")
MIX = ("Your task is to use chemistry to create the substance 'smores'. A recipe and some of the ingredients might be "
       "found near the kitchen. When you are done, focus on the smores.")


@pytest.mark.parametrize("goal, command, ruled_out", [
    (MELT, "focus on substance in toilet", True),  # the 1.5B's first command on melt (the water): the task failed
    (MELT, "focus on lead", False),
    (MELT, "focus on lead in crucible", False),
    (MELT, "focus on cup containing lead", True),  # melt#2's dev replay: "focus on tin" grounded to it, the cup
    (MELT, "look at substance in toilet", False),  # only a focus is an answer
    (MEASURE, "focus on thermometer", False),
    (MEASURE, "focus on unknown substance c", False),
    (MEASURE, "focus on orange box", False),
    (MEASURE, "focus on red box", True),
    (MEASURE, "focus on unknown substance b", True),
    (FIND, "focus on baby chicken", False),  # "the thing": a kind to find; which one is the model's
    (LIFESPAN, "focus on elephant", False),
    (FIND, "focus on living room", True),  # held-out find-living-thing#9's step 5: "a living thing" is no room
    (FIND, "focus on door to kitchen", True),
    (FIND, "focus on air", True),
    (LIFESPAN, "focus on outside", True),
    (MELT, "focus on kitchen", True),
    (FIND, "focus on living thing", False),  # a thing may be called so
    (FIND, "focus on living thing in flower pot 5", False),  # the game's own name for one
    (FIND, "focus on table", True),  # no living thing
    (LIFESPAN, "focus on orange wire terminal 1", True),  # held-out lifespan#17's step 53: the task failed
    (LIFESPAN, "focus on parrot egg", False),
    (LIFESPAN, "reset task", True),  # held-out measure-melting-point#0: 76 points to 2 at step 71
    (LIFESPAN, "task", False),
    (LIFESPAN, "focus on adult pea plant", True),  # alive, no animal
    (STAGES, "focus on frog egg", False),  # neither a target nor a kind: any thing may be the task's
    (STAGES, "focus on outside", True),  # but never a room, a door or the air
    (STAGES, "focus on door to kitchen", True),
    (STAGES, "focus on air", True),
    (MIX, "focus on smores", False),
    (MIX, "focus on instructions to make smores", True),  # dev chemistry-mix#0: the recipe, grounded for the smores
])
def test_scienceworld_a_focus_on_what_the_task_does_not_name_is_ruled_out(goal, command, ruled_out):
    family = family_of("scienceworld:melt")
    why = family.ruinous(command, Standing(goal=goal))
    assert (why is not None) == ruled_out
    assert why is None or "fails the task" in why or "resets the task" in why
    state = {"env": "scienceworld:melt", "goal": goal, "inventory": []}
    assert within_rules(view_of(state), [command, "look around"]) == (["look around"] if ruled_out else [command, "look around"])


def test_scienceworld_a_focus_on_an_animal_outside_the_room_the_task_names_is_ruled_out():
    """Reproduced on dev lifespan-longest-lived#0: the bee hive opened in the greenhouse, an adult bee flew into the
    hallway, and 'focus on adult bee' there failed the task (score 0, lost). "The animals are in the 'outside'
    location": a focus on one elsewhere is ruled out; outside, and where the room is not known, the focus stands."""
    family = family_of("scienceworld:lifespan-longest-lived")
    goal = (
        "Your task is to find the animal with the longest life span.  The animals are in the 'outside' location.  "
        "Focus on the animal with the longest life span."
    )
    why = family.ruinous("focus on adult bee", Standing(goal=goal, location="hallway"))
    assert why is not None
    assert "outside" in why
    assert "fails the task" in why
    assert family.ruinous("focus on adult bee", Standing(goal=goal, location="outside")) is None
    assert family.ruinous("focus on adult bee", Standing(goal=goal)) is None
    state = {"env": "scienceworld:lifespan-longest-lived", "goal": goal, "inventory": [], "location": "hallway"}
    assert within_rules(view_of(state), ["focus on adult bee", "look around"]) == ["look around"]


def test_scienceworld_a_focus_on_a_substance_in_a_holder_is_the_tasks_when_memory_saw_it_there():
    """Dev test-conductivity#110: 'focus on substance in fountain' is "You focus on the water." (it scores); on melt#0
    the toilet's was water where the task named lead. Memory's word on what the holder holds decides; without it, no."""
    family = family_of("scienceworld:test-conductivity")
    goal = "Your task is to determine if water is electrically conductive. First, focus on the water."
    seen = {"fountain": ["water"], "toilet": ["soap"]}
    assert family.ruinous("focus on substance in fountain", Standing(goal=goal, contents=lambda holder: seen.get(holder, []))) is None
    assert family.ruinous("focus on substance in toilet", Standing(goal=goal, contents=lambda holder: seen.get(holder, [])))
    assert family.ruinous("focus on substance in fountain", Standing(goal=goal))  # memory not asked: ruled out
    two = {"flower pot 1": ["soil", "water"], "inventory": ["water"]}  # of two, which one the game means is not known
    assert family.ruinous("focus on substance in flower pot 1", Standing(goal=goal, contents=lambda holder: two.get(holder, [])))
    assert family.ruinous("focus on substance in inventory", Standing(goal=goal, contents=lambda holder: two.get(holder, [])))
    from ariadnegraph.memory import WorldMemory

    memory = WorldMemory()
    memory.observe(0, "", [("player", "in", "outside"), ("fountain", "in", "outside"), ("water", "in", "fountain")], [])
    state = {"env": "scienceworld:test-conductivity", "goal": goal, "inventory": []}
    assert within_rules(view_of(state, session=fake_session(memory)), ["focus on substance in fountain"]) == ["focus on substance in fountain"]
    assert within_rules(view_of(state), ["focus on substance in fountain"]) == []


def test_scienceworld_a_kind_picked_by_a_criterion_is_not_any_one_of_the_kind():
    """lifespan-longest-lived-then-shortest-lived: one focus on an animal carries out "focus on the animal with the
    longest life span" no more than the shortest; "focus on the living thing" any living thing does. The game's name
    for one of a kind ("living thing in X") is an animal for the shield (find-animal)."""
    family = family_of("scienceworld:lifespan-longest-lived")
    assert not family.carries_out("focus on the animal with the longest life span", "focus on adult elephant")
    assert family.carries_out("focus on the living thing", "focus on adult bee")
    find_animal = "Your task is to find a(n) animal. First, focus on the thing. Then, move it to the red box."
    assert family.ruinous("focus on living thing in flower pot 5", Standing(goal=find_animal)) is None
    assert family.ruinous("focus on table", Standing(goal=find_animal))


def test_scienceworld_a_focus_is_done_to_what_the_game_says_it_focused_on():
    family = family_of("scienceworld:test-conductivity")
    assert family.what_was_done("focus on substance in fountain", "You focus on the water.") == "focus on water"
    assert family.what_was_done("move cup to sink", "You move the glass cup to the sink.") == "move cup to sink"
    assert family.what_was_done("focus on lead", "No known action matches that input.") == "focus on lead"
    assert family_of("cooking:1").what_was_done("take carrot", "You focus on the carrot.") == "take carrot"


def test_scienceworld_reads_the_substance_of_a_change_of_state_as_the_one_the_task_names():
    family = family_of("scienceworld:melt")
    assert family.goal_steps(MELT)[0] == "focus on lead"
    assert family.things_named("focus on lead") == ["lead"]
    assert family.goal_steps(MEASURE)[0] == "focus on the thermometer"  # every task restated is dropped, not only a change of state
    assert family.command_for_item("focus on lead", ["look at lead", "focus on lead"]) == "focus on lead"


def test_scienceworld_the_brief_says_how_the_goals_task_is_done():
    """Dev test-conductivity#68 and #110: the 1.5B focused on the substance, then never built a circuit; the brief said
    only how heat changes things. The episode's brief adds what its task needs (from the goal's words), nothing else."""
    from ariadnegraph.nodes.common import environment_section

    science = family_of("scienceworld:test-conductivity")
    conduct = "Your task is to determine if water is electrically conductive. First, focus on the water."
    melt = "Your task is to melt lead. First, focus on the substance."
    paint = "Your task is to use chemistry to create orange paint. When you are done, focus on the orange paint."
    assert "battery's anode" in science.brief_for(conduct)
    assert "Red and yellow" not in science.brief_for(conduct)
    assert science.brief_for(melt) == science.brief
    assert "Red and yellow make orange" in science.brief_for(paint)
    assert "battery" not in science.brief_for(paint)
    assert family_of("cooking:1").brief_for(conduct) == family_of("cooking:1").brief
    state = {"env": "scienceworld:test-conductivity", "goal": conduct}
    assert environment_section(state) == science.brief_for(conduct)


@pytest.mark.parametrize("spec", ["cooking:1", "arigraph:cook", "twx:cookingworld"])
def test_a_cooking_familys_brief_is_rendered_from_its_table_of_appliances(spec):
    """Where each way of cooking is done is declared once, as data (textworld_cooking.TEXTWORLD_WAYS, TWX_WAYS): the
    rules, the grounding and the brief read it, so prose and rule cannot disagree (a brief that said to grill on the
    BBQ in a game whose commands grill on the barbeque sent a model hunting for it)."""
    from ariadnegraph.envs.families.textworld_cooking import TEXTWORLD_WAYS, appliance_names
    from ariadnegraph.envs.families.twx_cookingworld import TWX_WAYS
    from ariadnegraph.envs.textworld_env import COOKING_TASK

    family = family_of(spec)
    ways = TWX_WAYS if spec.startswith("twx") else TEXTWORLD_WAYS
    assert family.appliances == appliance_names(ways)
    brief = family.brief_for("")
    for way, appliances in ways.items():
        for appliance in appliances:
            assert f"{appliance.at} the {appliance.shown}" in brief
        assert f"cook carrot {appliances[0].name}" in family.phrasings(f"{way} the carrot")  # the rule reads the table
    others = {a.shown for w in (TEXTWORLD_WAYS, TWX_WAYS) for appliances in w.values() for a in appliances}
    named = {a.shown for appliances in ways.values() for a in appliances}
    assert not [shown for shown in others - named if f"the {shown}" in brief]  # no appliance of another family's
    if not spec.startswith("twx"):
        assert "Frying needs the stove, roasting needs the oven, grilling needs the BBQ;" in COOKING_TASK


def test_what_a_twx_tasks_words_mean_is_declared_per_family():
    """TextWorldExpress's arithmetic game is solved by reading its math problem (the answer, and which thing has that
    quantity, are the player's); its peckingorder game is followed by reading its book again and again."""
    arithmetic = family_of("twx:arithmetic")
    goal = ("Your first task is to solve the math problem. Then, pick up the item with the same quantity as the math "
            "problem answer, and place it in the box.")
    assert arithmetic.goal_steps(goal)[0] == "read the math problem"
    assert family_of("twx:sorting").meanings == {}  # (a family declares none unless its games need it)
    # recorded (dev indices 1 and 2): 'put math problem in box' ends the game lost; the thing of the answer's quantity
    assert arithmetic.ruinous("put math problem in box", Standing())
    assert arithmetic.ruinous("put 3 pears in box", Standing()) is None
    assert family_of("twx:sorting").ruinous("put math problem in box", Standing()) is None


def test_twx_peckingorder_takes_what_its_book_says_and_reads_it_again():
    """Recorded (dev index 1): 'read instructions book' answers "The current task is to take the watermelon.", a take
    of anything else ends the game, and the next reading says the next thing."""
    pecking = family_of("twx:peckingorder")
    goal = "Your task is to read and follow the instructions book found in the environment. Repeat this until the game is completed."
    assert pecking.goal_steps(goal) == ["read the instructions book"]
    assert pecking.said_to_play("The current task is to take the watermelon.") == "take the watermelon"
    read = ["read instructions book:\nThe current task is to take the watermelon."]
    assert pecking.ruinous("take watermelon", Standing(readings=read)) is None
    assert pecking.ruinous("take pear", Standing(readings=read))
    assert pecking.ruinous("take pear", Standing())  # nothing read yet: no take is the book's
    assert pecking.rereads("read instructions book")
    assert not family_of("twx:arithmetic").rereads("read math problem")


def test_scienceworlds_brief_names_the_heat_sources_and_the_cold_its_rules_use():
    """The heat sources code heats with (and the fire pit, lit) and where it freezes are the brief's: one table."""
    from ariadnegraph.envs.families.scienceworld import COLD, HEAT_SOURCES, LIT

    brief = family_of("scienceworld:melt").brief
    assert all(source in brief for source in (*HEAT_SOURCES, *LIT))
    assert f"put it in a {COLD}" in brief


# recorded (use-thermometer and test-conductivity-of-unknown-substances, dev variation 0): the room lists "unknown
# substance B", the task says "focus on the unknown substance B", and the game's commands name it without its letter
THERMOMETER = ("Your task is to measure the temperature of unknown substance B, which is located around the bathroom. "
               "First, focus on the thermometer. Next, focus on the unknown substance B.")
THERMOMETER_VALID = ["look at unknown substance", "focus on unknown substance", "focus on thermometer", "look around"]


def test_scienceworld_a_lettered_unknown_substance_is_focused_on_as_the_games_commands_name_it():
    """Dev use-thermometer#0-2 by code alone: the walk took the agent to the bathroom and the way forward away from
    it, 23 times, because no valid command did "focus on the unknown substance B" (46 points; 79 with this)."""
    family = family_of("scienceworld:use-thermometer")
    step = "focus on the unknown substance B"
    assert family.command_for_item(step, THERMOMETER_VALID) == "focus on unknown substance"
    assert family.ground(step, THERMOMETER_VALID) == "focus on unknown substance"
    assert family.ruinous("focus on unknown substance", Standing(goal=THERMOMETER)) is None
    # where the game keeps the letter ("solid unknown substance o"), the focus names it in full
    assert family.ground("focus on the solid unknown substance O", ["focus on solid unknown substance o"])
    assert family.ground("focus on the unknown substance", THERMOMETER_VALID) == "focus on unknown substance"
    assert family.ground("focus on the substance B", ["focus on substance"]) is None  # (a name of three words or more)


# recorded (identify-life-stages-1 and -2, dev variations 0-1, outside): the game's names for the things a focus may
# name there, each stage naming its organism
STAGES_SEEN = {
    "Your task is to focus on the 3 life stages of the frog, starting from earliest to latest.": (
        ["egg frog"],
        ["egg turtle", "baby baby elephant", "butterfly", "orange", "substance in fountain", "egg giant tortoise"],
    ),
    "Your task is to focus on the life stages of the cherry plant, starting from earliest to latest.": (
        ["cherry seed", "adult cherry tree", "cherry tree in self watering flower pot 1"],
        ["blue jay egg", "hatchling blue jay", "self watering flower pot 4", "orange", "dead blue jay"],
    ),
}


@pytest.mark.parametrize("goal", list(STAGES_SEEN))
def test_scienceworld_a_life_stages_focus_is_on_a_stage_of_the_organism_the_task_names(goal):
    """The 1.5B focused on the orange it carried (and once on the water in a toilet) in a life-stages task: the task
    failed. Every stage the game shows names its organism ("egg frog", "adult cherry tree"); a focus on anything
    else is ruled out."""
    family = family_of("scienceworld:identify-life-stages-1")
    stages, others = STAGES_SEEN[goal]
    assert all(family.ruinous(f"focus on {thing}", Standing(goal=goal)) is None for thing in stages)
    assert all("fails the task" in (family.ruinous(f"focus on {thing}", Standing(goal=goal)) or "") for thing in others)
