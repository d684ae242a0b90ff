"""Per-role diagnostics count each role's mistakes on a recorded run that has them: a run written by hand
(trajectory with the roles' decisions, the game's truth beside it), so every count is known in advance."""

from __future__ import annotations

import json
from pathlib import Path

from ariadnegraph.evals.diagnostics import diagnose, impossible, mistakes, recipe_of, remaining_gold, render_diagnosis
from ariadnegraph.runs import RunDir

KITCHEN = [["at", "P", "kitchen"], ["on", "knife", "counter"], ["in", "red apple", "fridge"], ["closed", "fridge"],
           ["north_of", "pantry", "kitchen"], ["base", "red apple", "ingredient_0"], ["in", "ingredient_0", "RECIPE"]]
HOLDING = [f for f in KITCHEN if f[:2] != ["on", "knife"]] + [["in", "knife", "I"]]
VALID = ["take knife from counter", "open fridge", "look", "go north"]


def write_run(root: Path, steps: list[tuple[dict, dict]]) -> RunDir:
    run = RunDir.create(root, "hand", {"run_id": "hand", "env": "cooking:1", "seed": 1, "max_steps": 10, "context": {"model": "scripted"}})
    for n, (line, truth) in enumerate(steps):
        run.append_step({"step": n, "valid": VALID, "score": truth.get("score", 0), **line}, truth)
    return run


def test_each_role_is_charged_with_its_own_mistakes(tmp_path):
    policy = ["take knife from counter", "open fridge", "take red apple from fridge"]
    run = write_run(tmp_path, [
        ({"action": None, "observation": "-= Kitchen =- A fridge, a counter. A knife is on the counter."},
         {"facts": KITCHEN, "location": "kitchen", "inventory": [], "walkthrough": policy}),
        # step 1: the planner wrote one valid command on the winning path and one that is neither; the critic
        # rejected the winning command; the actor drifted to another command; extraction wrote an exit to a thing
        ({"action": "look", "observation": "-= Kitchen =- ...", "decided": {
            "plans": [{"subgoal": "get the knife", "steps": ["take knife from counter", "fly to the moon"]},
                      {"subgoal": "leave", "steps": ["fly to the moon"]}],
            "verdicts": [{"proposed": "take knife from counter", "judged": True, "approved": False, "outcome_matches": None}],
            "actor": {"planned": "take knife from counter", "played": "look", "how": "model"},
            "extracted": [["kitchen", "has exit", "knife"], ["knife", "on", "counter"]],
            "notes": ["where is the knife? -> on the counter", "unexplored exits? -> one line per finding"],
            "unsupported_notes": 1}},
         {"facts": KITCHEN, "location": "kitchen", "inventory": [], "policy": policy}),
        # step 2: the same command at the same place with the same inventory: a loop; the critic approved it
        ({"action": "look", "observation": "-= Kitchen =- ...", "decided": {
            "verdicts": [{"proposed": "look", "judged": True, "approved": True, "outcome_matches": None}],
            "actor": {"planned": "look", "played": "look", "how": "grounded"}}},
         {"facts": KITCHEN, "location": "kitchen", "inventory": [], "policy": policy}),
        # step 3: a command that failed (nothing changed) though approved; the outcome of the last 'look' judged
        ({"action": "open fridge", "observation": "You can't.", "decided": {
            "verdicts": [{"proposed": "open fridge", "judged": True, "approved": True, "outcome_matches": True, "last_action": "look"}],
            "actor": {"planned": "open fridge", "played": "open fridge", "how": "grounded"}}},
         {"facts": KITCHEN, "location": "kitchen", "inventory": [], "policy": policy}),
        # step 4: it worked (the world changed, the score rose), yet the outcome was judged a mismatch
        ({"action": "take knife from counter", "observation": "You take the knife.", "decided": {
            "verdicts": [{"proposed": "take knife from counter", "judged": True, "approved": True, "outcome_matches": True,
                          "last_action": "open fridge"}]}},
         {"facts": HOLDING, "location": "kitchen", "inventory": ["knife"], "score": 1, "policy": policy[1:]}),
        ({"action": "open fridge", "observation": "You open the fridge.", "decided": {
            "verdicts": [{"proposed": "open fridge", "judged": True, "approved": True, "outcome_matches": False,
                          "last_action": "take knife from counter"}]}},
         {"facts": [f for f in HOLDING if f != ["closed", "fridge"]] + [["open", "fridge"]], "location": "kitchen",
          "inventory": ["knife"], "score": 1, "policy": policy[2:]}),
    ])
    result = diagnose(run)
    steps = {s.step: s for s in result.steps}
    assert (steps[1].plans, steps[1].plans_valid, steps[1].plan_steps, steps[1].plan_on_path) == (2, 1, 3, 1)
    assert steps[1].drift
    assert not steps[2].drift
    assert steps[1].false_rejections == 1
    assert sum(s.false_rejections for s in result.steps) == 1
    assert steps[1].impossible_facts == [["kitchen", "has exit", "knife"]]
    assert steps[1].unsupported_notes == 1
    assert steps[1].notes == 2
    assert steps[2].repeated
    assert not steps[1].repeated
    assert steps[3].failed_approvals == 1
    assert steps[2].failed_approvals == 0
    # step 4 judged 'open fridge' (step 3: nothing changed) a match; step 5 judged the knife (it worked) a mismatch
    assert steps[4].wrong_outcome_verdicts == 1
    assert steps[5].wrong_outcome_verdicts == 1
    assert [s.since_score for s in result.steps] == [1, 2, 3, 0, 1]
    totals = result.totals
    assert totals["critic"] == {"verdicts": 5, "false_rejections": 1, "failed_approvals": 1, "wrong_outcome_verdicts": 2}
    assert totals["actor"]["drift"] == 1
    assert totals["loops"]["repeats"] == 1
    assert totals["extraction"]["impossible_facts"] == 1
    assert totals["planner"]["valid"] == 0.5
    assert totals["planner"]["on_winning_path"] == 0.333
    assert totals["monologue"] == {"notes": 2, "unsupported": 1}
    assert "the actor played another command" in "; ".join(mistakes(steps[1]))
    assert "rejection of the winning command" in render_diagnosis(result)
    assert "critic fr/fa/wo: rejections of the winning command / approvals of commands that failed" in render_diagnosis(result)  # the columns explained
    json.dumps(result.to_dict())  # the --json form


def test_a_belief_is_checked_for_the_recipe_once_the_recipe_is_seen(tmp_path):
    recipe_text = "Ingredients: red apple. Directions: slice the red apple, prepare meal."
    run = write_run(tmp_path, [
        ({"action": None, "observation": "-= Kitchen =-"}, {"facts": KITCHEN, "location": "kitchen", "inventory": []}),
        ({"action": "examine cookbook", "observation": recipe_text, "decided": {"belief": "Find the kitchen."}},
         {"facts": KITCHEN, "location": "kitchen", "inventory": []}),
        ({"action": "look", "observation": "-= Kitchen =-", "decided": {"belief": "Find the kitchen."}},
         {"facts": KITCHEN, "location": "kitchen", "inventory": []}),
        ({"action": "look", "observation": "-= Kitchen =-", "decided": {"belief": "Recipe: red apple, sliced."}},
         {"facts": KITCHEN, "location": "kitchen", "inventory": []}),
    ])
    steps = diagnose(run).steps
    assert recipe_of(KITCHEN) == {"red apple"}
    # step 1's belief was written before the recipe was read: not judged; step 2's lacks it; step 3's holds it
    assert [s.belief_holds_recipe for s in steps] == [None, False, True]


def test_what_cannot_hold():
    assert impossible(["kitchen", "has exit", "cookbook"], set())
    assert not impossible(["kitchen", "has exit", "north"], set())
    assert impossible(["oven", "north of", "kitchen"], {"kitchen", "pantry"})
    assert not impossible(["pantry", "north of", "kitchen"], {"kitchen", "pantry"})
    assert impossible(["knife", "in", "east"], set())
    assert impossible(["player", "took"], set())


def test_without_a_policy_the_gold_path_not_yet_played_is_the_winning_path(tmp_path):
    """TextWorldExpress and ScienceWorld give a gold path from the start only: a plan step is on the winning
    path when it is among the gold commands not yet played, and the critic's 'next winning command' is the
    first of them."""
    gold = ["open fridge", "take red apple from fridge", "eat red apple"]
    run = write_run(tmp_path, [
        ({"action": None, "observation": "-= Kitchen =-"}, {"facts": KITCHEN, "location": "kitchen", "inventory": [], "walkthrough": gold}),
        ({"action": "open fridge", "observation": "You open the fridge.",
          "decided": {"plans": [{"subgoal": "s", "steps": ["open fridge", "look"]}]}},
         {"facts": KITCHEN, "location": "kitchen", "inventory": []}),
        ({"action": "look", "observation": "-= Kitchen =-",
          "decided": {"plans": [{"subgoal": "s", "steps": ["open fridge", "take red apple from fridge"]}],
                      "verdicts": [{"proposed": "take red apple from fridge", "judged": True, "approved": False}]}},
         {"facts": KITCHEN, "location": "kitchen", "inventory": []}),
    ])
    assert remaining_gold(gold, ["open fridge", "look"]) == gold[1:]
    steps = diagnose(run).steps
    # step 2's plan: 'open fridge' was played already, the apple is next on the gold path (and rejected)
    assert (steps[0].plan_on_path, steps[1].plan_on_path) == (1, 1)
    assert steps[1].false_rejections == 1


def test_what_the_actor_played_instead_of_the_plan_is_counted(tmp_path):
    run = write_run(tmp_path, [
        ({"action": None, "observation": "-= Kitchen =-"}, {"facts": KITCHEN, "location": "kitchen", "inventory": []}),
        ({"action": "look", "observation": "-= Kitchen =-", "decided": {"actor": [
            {"planned": "eat red apple", "played": None, "how": "sent back", "why": "'eat red apple' is ruled out: eating loses"},
            {"planned": "eat red apple", "played": "look", "how": "fallback"}]}},
         {"facts": KITCHEN, "location": "kitchen", "inventory": []}),
        ({"action": "go north", "observation": "-= Pantry =-", "decided": {"actor": [{"planned": "go south", "played": "go north", "how": "explore"}]}},
         {"facts": KITCHEN, "location": "pantry", "inventory": []}),
    ])
    actor = diagnose(run).totals["actor"]
    assert (actor["sent_back"], actor["ruled_out"], actor["fallbacks"], actor["explored_instead"], actor["drift"]) == (1, 1, 1, 1, 0)


def test_every_guard_that_takes_a_thing_before_the_plan_counts_as_took_first(tmp_path):
    took = [("take key from ground", "keys first"), ("take treasure", "goal in reach"), ("take knife from counter", "take first")]
    run = write_run(tmp_path, [
        ({"action": None, "observation": "-= Kitchen =-"}, {"facts": KITCHEN, "location": "kitchen", "inventory": []}),
        *(({"action": played, "observation": "Taken.", "decided": {"actor": [{"planned": "go north", "played": played, "how": how}]}},
           {"facts": KITCHEN, "location": "kitchen", "inventory": []}) for played, how in took),
    ])
    actor = diagnose(run).totals["actor"]
    assert (actor["took_first"], actor["explored_instead"], actor["fallbacks"]) == (3, 0, 0)


def test_a_belief_that_copies_the_tasks_brief_is_counted_as_copied(tmp_path):
    """The brief the roles were shown is the family's with the task's part (ScienceWorld's life span note): a belief
    that copies that part is a copied brief line."""
    from ariadnegraph.envs.families.prompts import SCIENCEWORLD_TASKS

    goal = "Your task is to find the animal with the longest life span. Focus on the animal with the longest life span."
    run = RunDir.create(tmp_path, "sw", {"run_id": "sw", "env": "scienceworld:lifespan-longest-lived", "goal": goal,
                                         "max_steps": 10, "context": {"model": "scripted"}})  # fmt: skip
    copied = {"belief": SCIENCEWORLD_TASKS["life span"]}
    for n, line in enumerate([{"action": None}, {"action": "look around", "decided": copied}]):
        run.append_step({"step": n, "valid": ["look around"], "score": 0, "observation": "outside", **line},
                        {"facts": [], "location": "outside", "inventory": []})  # fmt: skip
    assert diagnose(run).totals["summarizer"]["copied_brief_lines"] == 1.0
