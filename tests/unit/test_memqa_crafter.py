"""EMemBench's Crafter templates (table 15) on a small recorded Crafter run: 38 steps of seed 1 played by
tests/fixtures/memqa_crafter/record.py (real oracle lines, a reason logged with every command)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from ariadnegraph.envs.crafter_env import decode_view, encode_view
from ariadnegraph.evals.memqa.crafter_index import CrafterTimeline
from ariadnegraph.evals.memqa.crafter_templates import CRAFTER_BY_ID, CRAFTER_TEMPLATES
from ariadnegraph.evals.memqa.episodes import load_episode
from ariadnegraph.evals.memqa.generate import candidates, generate
from ariadnegraph.evals.memqa.questions import ABILITIES, NOT_ANSWERABLE, Vocabulary
from ariadnegraph.evals.memqa.templates import TEMPLATES

RUNS = Path(__file__).parents[1] / "fixtures" / "memqa_crafter"
RUN = "crafter-rec"
TABLE_15 = {"A_action", "A_reason", "A_stat", "A_terrain", "A_inventory", "A_occ_action", "A_occ_keyword", "A_occ_terrain",
            "B_action", "B_keyword", "B_terrain", "C_keyword_count", "C_most_move", "C_longest_run", "C_collect_res",
            "C_resource_peak", "C_resource_change", "C_visible_count", "C_adjacent_count", "C_distinct_trees", "D_displacement",
            "D_path_length", "D_predict_terrain", "D_nearest_dir", "D_nav_to_target", "D_min_dist", "D_max_dist", "E_event_order",
            "E_event_interval", "E_state_after_event", "F_craft_feasibility", "F_event_loc", "F_attack_count", "F_death_reason",
            "F_first_attack_step", "F_last_attack_step", "F_inventory_contents"}
ATTACKS = {"F_death_reason", "F_first_attack_step", "F_last_attack_step"}  # nothing hurt the player in this run

# Worked out from the recorded oracle: the player walks 3 east (steps 1-3), chops (wood at 4), gets saplings
# from the grass at 10, 27 and 29, and walks north, west and south after step 18.
HAND = [
    ("A_action", {"step": 19}, "move up"),
    ("A_inventory", {"resource": "wood", "step": 4}, 1),
    ("A_occ_action", {"ordinal": "first", "action": "do"}, 4),
    ("A_occ_keyword", {"ordinal": "first", "keyword": "table"}, 5),  # "More wood for a table."
    ("B_action", {"offset": 1, "side": "before", "ordinal": "first", "action": "do"}, "move right"),
    ("C_resource_peak", {"resource": "sapling"}, 29),
    ("C_collect_res", {"L": 1, "R": 10, "resource": "sapling"}, 1),
    ("C_resource_change", {"L": 5, "R": 29, "resource": "sapling"}, 3),
    ("C_most_move", {"L": 1, "R": 5}, "right"),
    ("D_displacement", {"L": 1, "R": 5}, "3 steps right"),
    ("D_path_length", {"L": 1, "R": 5}, 3),
    ("D_nearest_dir", {"step": 1, "terrain": "tree"}, "right"),
    ("E_event_order", {"eventA": "collect wood", "eventB": "collect sapling"}, "yes"),
    ("E_event_interval", {"eventA": "collect wood", "eventB": "collect sapling"}, 6),
    ("F_event_loc", {"event": "collect sapling"}, "10, 27, 29"),
    ("F_attack_count", {}, 0),
    ("F_inventory_contents", {"step": 11}, "sapling, wood"),
    ("F_craft_feasibility", {"step": 11, "craft": "wood pickaxe"}, "yes"),
    ("F_craft_feasibility", {"step": 11, "craft": "table"}, "no"),
]


@pytest.fixture(scope="module")
def episode():
    return load_episode(RUNS, RUN)


def test_the_templates_are_table_15(episode) -> None:
    assert {t.id for t in CRAFTER_TEMPLATES} == TABLE_15
    assert len(CRAFTER_TEMPLATES) == len(TABLE_15)
    assert isinstance(episode.timeline, CrafterTimeline)
    assert episode.env == "crafter"


def test_every_template_instantiates_on_the_recorded_run(episode) -> None:
    vocab = Vocabulary(episode.items, episode.locations)
    made = {t.id for t in CRAFTER_TEMPLATES if candidates(t, episode.timeline, vocab)}
    assert made == TABLE_15 - ATTACKS
    for template in CRAFTER_TEMPLATES:  # every question reads back to its slots
        for slots, _, _ in candidates(template, episode.timeline, vocab)[:3]:
            assert template.parse(template.question(slots)) == slots, template.id


@pytest.mark.parametrize(("template_id", "slots", "expected"), HAND)
def test_answers_match_the_recorded_run(episode, template_id: str, slots: dict, expected: object) -> None:
    solved = CRAFTER_BY_ID[template_id].solve(episode.timeline, **slots)
    assert solved is not None
    assert solved[0] == expected


def test_generation_uses_table_15_for_a_crafter_run(episode) -> None:
    items = generate(episode, per_type=3, seed=1)
    assert Counter(i.ability for i in items) == {a: 3 for a in ABILITIES}
    assert {i.template for i in items} <= TABLE_15
    assert not {i.question for i in items} & {t.text for t in TEMPLATES}
    for item in (i for i in items if i.adversarial):  # false premises: a value that never occurred
        assert item.answer == NOT_ANSWERABLE
        assert CRAFTER_BY_ID[item.template].solve(episode.timeline, **item.slots) is None


def test_attacks_and_death_come_from_the_logged_damage(tmp_path: Path) -> None:
    shutil.copytree(RUNS / RUN, tmp_path / RUN)
    path = tmp_path / RUN / "oracle.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[12]["attack"] = "zombie"
    lines[20]["attack"] = "arrow"
    lines[-1].update(attack="zombie", health=0)
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    tl = load_episode(tmp_path, RUN).timeline
    last = tl.last
    assert CRAFTER_BY_ID["F_attack_count"].solve(tl)[0] == 3
    assert CRAFTER_BY_ID["F_first_attack_step"].solve(tl)[0] == 12
    assert CRAFTER_BY_ID["F_last_attack_step"].solve(tl)[0] == last
    assert CRAFTER_BY_ID["F_death_reason"].solve(tl)[0] == "zombie"
    assert CRAFTER_BY_ID["F_first_attack_step"].solve(tl.upto(11)) is None  # none yet by step 11


def test_the_logged_view_round_trips() -> None:
    world = {(x, y): "tree" if (x, y) == (6, 5) else "water" if x < 3 else "grass" for x in range(10) for y in range(10)}
    view = encode_view(lambda x, y: world.get((x, y)), (5, 5))
    assert view.count("/") == 6
    assert len(view.split("/")[0]) == 9
    cells = decode_view(view, (5, 5))
    assert cells[(6, 5)] == "tree"
    assert cells[(1, 5)] == "water"
    assert cells[(9, 8)] == "grass"
    assert all(world[c] == name for c, name in cells.items())
