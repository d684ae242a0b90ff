"""The scripted roles as pure functions on hand-built sections."""

from __future__ import annotations

from ariadnegraph import prompting as p
from ariadnegraph.nodes.prompts import GO_TO_COMMAND
from ariadnegraph.testing.scripted import beliefs, brain, policy, qa
from ariadnegraph.testing.scripted.sections import facts, parse_belief, parse_fact, render_belief

COOK_GOAL = "Prepare the meal from the recipe and eat it"
COOKBOOK = """You open the copy of "Cooking: A Modern Approach (3rd Ed.)" and start reading:

Ingredients:
red potato

Directions:
slice the red potato
fry the red potato
prepare meal"""
BELIEF = (
    "Recipe: red potato\nDirections: slice the red potato; fry the red potato; prepare meal\n"
    "Location: Kitchen\nVisited: Bedroom, Livingroom, Kitchen\nSeen: knife @ Kitchen (on counter); stove @ Kitchen"
)


def sections(**kw: object) -> dict[str, str]:
    """Sections as a node renders them, parsed back (what the model sees); 'go to' is offered unless
    ``commands=None``."""
    commands = kw.pop("commands", [GO_TO_COMMAND])
    names = {"goal": p.GOAL, "obs": p.OBSERVATION, "loc": p.LOCATION, "inv": p.INVENTORY, "adm": p.ADMISSIBLE,
             "belief": p.BELIEF, "memory": p.MEMORY, "unexplored": p.EXPLORATION, "notes": p.NOTES, "history": p.HISTORY,
             "prev": p.PREVIOUS_BELIEF, "last": p.LAST_ACTION, "expected": p.EXPECTED, "actual": p.ACTUAL,
             "proposed": p.PROPOSED_ACTION, "question": p.QUESTION, "plan": p.PLAN, "feedback": p.FEEDBACK}
    return p.parse_sections(p.render_sections({p.COMMANDS: commands, **{names[k]: v for k, v in kw.items()}}))


# -- summarizer ----------------------------------------------------------------------------------
def test_belief_keeps_recipe_rooms_and_seen_things():
    first = beliefs.believe(sections(goal=COOK_GOAL, prev="", last="(none: the episode starts)",
                                   obs="-= Kitchen =-\nYou see a counter. On the counter you make out a knife.\n\nThere is an exit to the east."))
    b = parse_belief(first.belief)
    assert b["Location"] == "Kitchen"
    assert b["Visited"] == "Kitchen"
    assert "knife @ Kitchen (on counter)" in b["Seen"]
    second = parse_belief(beliefs.believe(sections(goal=COOK_GOAL, prev=first.belief, last="examine cookbook", obs=COOKBOOK)).belief)
    assert second["Recipe"] == "red potato"
    assert second["Directions"] == "slice the red potato; fry the red potato; prepare meal"
    third = parse_belief(beliefs.believe(sections(goal=COOK_GOAL, prev=render_belief(second), last="take knife from counter",
                                                obs="You take the knife from the counter.")).belief)
    assert "knife" not in third.get("Seen", "")
    fourth = parse_belief(beliefs.believe(sections(goal=COOK_GOAL, prev=render_belief(third), last="cook red potato with stove",
                                                 obs="You fried the red potato.")).belief)
    assert "red potato fried" in fourth["Done"]
    failed = parse_belief(beliefs.believe(sections(goal=COOK_GOAL, prev=render_belief(fourth), last="go north", obs="You can't go that way.")).belief)
    assert failed["Last failure"].startswith("go north")


def test_belief_keeps_notes():
    b = parse_belief(beliefs.believe(sections(goal="Find the treasure", prev="", last="examine Note 2", obs="The key 2 unlocks Red locker.")).belief)
    assert b["Notes"] == "key 2 unlocks Red locker"
    assert b["Notes read"] == "Note 2"


# -- planner -------------------------------------------------------------------------------------
def test_plan_reads_the_cookbook_first():
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="(unknown)", adm=["examine cookbook", "go east", "take knife from counter"], belief=""))
    assert plan.steps[0].action == "examine cookbook"


def test_plan_follows_the_recipe():
    adm = ["take knife from counter", "cook red potato with stove", "cook red potato with oven", "go east", "prepare meal"]
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="raw red potato", adm=adm, belief=BELIEF))
    assert plan.steps[0].action == "take knife from counter"
    adm2 = ["slice red potato with knife", "cook red potato with stove", "prepare meal"]
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="knife, raw red potato", adm=adm2, belief=BELIEF))
    assert plan.steps[0].action in ("slice red potato with knife", "cook red potato with stove")
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="knife, sliced red potato", adm=adm2, belief=BELIEF))
    assert plan.steps[0].action == "cook red potato with stove"
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="knife, sliced fried red potato", adm=adm2, belief=BELIEF))
    assert plan.steps[0].action == "prepare meal"
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="meal, knife", adm=["eat meal", "go east"], belief=BELIEF))
    assert plan.steps[0].action == "eat meal"


def test_plan_goes_to_a_known_place_and_explores_otherwise():
    belief = BELIEF.replace("Seen: knife @ Kitchen (on counter); stove @ Kitchen", "Seen: red potato @ Garden; stove @ Kitchen")
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="knife", adm=["go east", "go north"], belief=belief))
    assert plan.steps[0].action == "go to Garden"
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="knife", adm=["go east", "go north", "open frosted-glass door"],
                               belief=BELIEF, unexplored=["Kitchen: north, east"]))
    assert plan.steps[0].action == "open frosted-glass door"
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="knife", adm=["go east", "go north"],
                               belief=BELIEF, unexplored=["Kitchen: east"]))
    assert plan.steps[0].action == "go east"
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="knife", adm=["go east"], belief=BELIEF,
                               unexplored=["Bedroom: west"]))
    assert plan.steps[0].action == "go to Bedroom"


def test_plan_uses_world_model_notes_and_memory_for_locations():
    belief = BELIEF.replace("; stove @ Kitchen", "").replace("knife @ Kitchen (on counter)", "stove @ Kitchen")
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="knife", adm=["go east"], belief=belief,
                               notes=["where is red potato -> Bedroom (on bed)"]))
    assert plan.steps[0].action == "go to Bedroom"
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="knife", adm=["go east"], belief=belief,
                               memory=["red potato, on, bed [from step 1 until now]", "bed, in, Livingroom [from step 1 until now]"]))
    assert plan.steps[0].action == "go to Livingroom"


def test_hunt_plan_unlocks_opens_takes_and_follows_notes():
    goal = "Find the treasure"
    assert policy.plan(sections(goal=goal, loc="Room G", inv="Key 1", adm=["unlock White locker with Key 1", "go west"], belief="")).steps[0].action == "unlock White locker with Key 1"
    assert policy.plan(sections(goal=goal, loc="Room G", inv="Key 1", adm=["open White locker", "go west"], belief="")).steps[0].action == "open White locker"
    assert policy.plan(sections(goal=goal, loc="Room G", inv="Key 1", adm=["take Key 2 from White locker", "examine Note 2"], belief="")).steps[0].action == "take Key 2 from White locker"
    assert policy.plan(sections(goal=goal, loc="Room G", inv="Key 2", adm=["examine Note 2", "go west"], belief="")).steps[0].action == "examine Note 2"
    belief = "Notes: key 2 unlocks Red locker\nVisited: Room C, Room G\nSeen: Red locker @ Room C"
    assert policy.plan(sections(goal=goal, loc="Room G", inv="Key 2", adm=["go west"], belief=belief)).steps[0].action == "go to Room C"
    assert policy.plan(sections(goal=goal, loc="Room A", inv="Golden key", adm=["take treasure from Golden locker"], belief="")).steps[0].action == "take treasure from Golden locker"


def test_plan_avoids_repeating_a_failure():
    belief = "Visited: Kitchen\nLast failure: go north (You can't go that way.)"
    plan = policy.plan(sections(goal="Find the coin", loc="Kitchen", inv="(unknown)", adm=["go north", "go south"], belief=belief,
                               unexplored=["Kitchen: north, south"]))
    assert plan.steps[0].action == "go south"


# -- critic and actor ----------------------------------------------------------------------------
def test_critic_outcomes_and_approvals():
    c = brain.critique(sections(goal=COOK_GOAL, adm=["go east"], belief=BELIEF, last="go west", expected="Garden",
                                actual="You can't go that way.", proposed="go east"))
    assert not c.outcome_matches
    assert c.action_approved
    assert c.feedback
    c = brain.critique(sections(goal=COOK_GOAL, adm=["go east"], belief=BELIEF, last="go west", expected="Kitchen",
                                actual="-= Kitchen =-\nYou are in a kitchen.", proposed="go to Bedroom"))
    assert c.outcome_matches
    assert c.action_approved
    c = brain.critique(sections(goal=COOK_GOAL, adm=["go east"], belief=BELIEF, last="look", expected="(nothing expected)",
                                actual="(not checked)", proposed="dance"))
    assert c.outcome_matches
    assert not c.action_approved
    assert "go east" in c.feedback
    c = brain.critique(sections(goal=COOK_GOAL, adm=["cook red potato with stove"], belief=BELIEF + "\nDone: red potato fried",
                                last="look", expected="(nothing expected)", actual="(not checked)", proposed="cook red potato with stove"))
    assert not c.action_approved
    assert "burn" in c.feedback
    c = brain.critique(sections(goal=COOK_GOAL, adm=["go east"], belief=BELIEF, last="look", expected="(nothing expected)",
                                actual="(not checked)", proposed="go to Atlantis"))
    assert not c.action_approved


def test_actor_choice_by_word_overlap():
    choice = policy.choose(sections(proposed="take the knife", adm=["take knife from counter", "go east", "look"], obs="-= Kitchen =-"))
    assert choice.action == "take knife from counter"


# -- extraction, aggregator, QA ------------------------------------------------------------------
def test_extraction_role_uses_sections():
    out = beliefs.extraction(sections(goal=COOK_GOAL, loc="Livingroom", last="go west", obs="-= Kitchen =-\nYou see a stove.\n\nThere is an exit to the east.",
                                    inv="knife", belief=""))
    t = {tuple(x) for x in out.triplets}
    assert {("player", "in", "Kitchen"), ("Kitchen", "west of", "Livingroom"), ("knife", "in", "inventory"), ("stove", "in", "Kitchen")} <= t


def test_spatial_belief_groups_by_room():
    text = beliefs.spatial(sections(memory=["player, in, Kitchen [from step 2 until now]", "Kitchen, west of, Livingroom [from step 2 until now]",
                                          "stove, in, Kitchen [from step 2 until now]"])).text
    assert "Kitchen is west of Livingroom." in text
    assert "In Kitchen: stove." in text


def test_fact_lines_keep_names_with_commas():
    assert parse_fact("salt, pepper mix, in, cupboard [from step 3 until now]") == ("salt, pepper mix", "in", "cupboard")
    assert facts("- a, b, c\n- bad line") == [("a", "b", "c")]


def test_qa_asks_for_what_the_plan_needs_and_answers_in_lines():
    s = sections(goal=COOK_GOAL, belief=BELIEF.replace("Seen: knife @ Kitchen (on counter); stove @ Kitchen", ""), loc="Kitchen", inv="(unknown)")
    calls = qa.first_calls(s, {"where_is", "unexplored_exits"})
    assert ("unexplored_exits", {"location": ""}) in calls
    assert ("where_is", {"entity": "red potato"}) in calls
    assert ("where_is", {"entity": "knife"}) in calls
    results = [qa.ToolResult("unexplored_exits", {"location": ""}, "Kitchen: north\nGarden: east"),
               qa.ToolResult("where_is", {"entity": "red potato"}, "red potato is on bed (since step 1)"),
               qa.ToolResult("where_is", {"entity": "knife"}, "knife: location unknown")]
    follow = qa.follow_up_calls(s, results, {"where_is", "unexplored_exits"})
    assert follow == [("where_is", {"entity": "bed"})]
    results.append(qa.ToolResult("where_is", {"entity": "bed"}, "bed is in Bedroom (since step 0)"))
    answer = qa.final_answer(s, results)
    assert "unexplored exits -> Kitchen: north; Garden: east" in answer
    assert "where is red potato -> Bedroom (on bed)" in answer
    assert "where is knife -> unknown" in answer


def test_qa_question_mode():
    calls = qa.question_calls("Where is the knife?", "Kitchen", {"where_is", "path_between", "search_facts"})
    assert calls == [("where_is", {"entity": "knife"})]
    calls = qa.question_calls("How do I get to the Garden?", "Kitchen", {"where_is", "path_between"})
    assert calls[0] == ("path_between", {"start": "Kitchen", "goal": "garden"})
    assert qa.question_calls("What happened?", None, {"search_facts"}) == [("search_facts", {"query": "What happened"})]


def test_extraction_closes_what_the_inventory_listing_no_longer_shows():
    known = "- red potato, in, inventory\n- knife, in, inventory\n- meal, in, inventory"
    base = {p.OBSERVATION: "Adding the meal to your inventory.", p.LAST_ACTION: "prepare meal", p.LOCATION: "Kitchen",
            p.KNOWN_FACTS: known}
    gone = beliefs.extraction({**base, p.INVENTORY: "a meal"}).outdated
    assert {tuple(t) for t in gone} == {("red potato", "in", "inventory"), ("knife", "in", "inventory")}
    assert [t[0] for t in beliefs.extraction({**base, p.INVENTORY: "(nothing)"}).outdated] == ["red potato", "knife", "meal"]
    assert beliefs.extraction({**base, p.INVENTORY: "(unknown)"}).outdated == []  # an env that does not list it says nothing


def test_extraction_keeps_carried_things_whose_listing_names_a_state():
    """'a raw red potato' in the listing is the known 'red potato': still carried, never closed and
    reopened step after step."""
    known = "- red potato, in, inventory\n- yellow onion, in, inventory\n- knife, in, inventory"
    sections = {p.OBSERVATION: "-= Kitchen =-\nYou are in a kitchen.", p.LAST_ACTION: "go west", p.LOCATION: "Kitchen",
                p.KNOWN_FACTS: known, p.INVENTORY: "a raw red potato, a sliced yellow onion, a knife"}
    assert beliefs.extraction(sections).outdated == []


def test_an_ingredient_found_already_cooked_is_not_cooked_again():
    """cook_1_1_cut_2: "a roasted banana" lies on the counter and the recipe says roast it: roasting it
    again burns it and loses the game. Neither the plan nor the critic may do that."""
    belief = ("Recipe: red potato\nDirections: slice the red potato; fry the red potato; prepare meal\n"
              "Location: Kitchen\nVisited: Kitchen\nSeen: red potato @ Kitchen (on counter); knife @ Kitchen (on counter); stove @ Kitchen")
    adm = ["take red potato from counter", "take knife from counter", "slice red potato with knife", "cook red potato with stove",
           "prepare meal"]
    memory = "- red potato, on, counter\n- red potato, is, fried\n- knife, on, counter"
    plan = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="(nothing)", adm=adm, belief=belief, memory=memory))
    actions = [step.action for step in plan.steps]
    assert "take red potato from counter" in actions
    assert "slice red potato with knife" in actions
    assert not any(a.startswith("cook ") for a in actions), actions
    fresh = policy.plan(sections(goal=COOK_GOAL, loc="Kitchen", inv="(nothing)", adm=adm, belief=belief,
                                memory="- red potato, on, counter\n- knife, on, counter"))
    assert "cook red potato with stove" in [step.action for step in fresh.steps]  # unknown state: cooked as the recipe says

    critique = brain.critique(sections(goal=COOK_GOAL, adm=adm, belief=belief, inv="knife, sliced fried red potato", last="slice red potato with knife",
                                       expected="You slice", actual="You slice the red potato.", proposed="cook red potato with stove"))
    assert not critique.action_approved
    assert "burn" in critique.feedback
