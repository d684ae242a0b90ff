"""EMemBench's question templates for the visual game, Crafter (table 15), over a :class:`CrafterTimeline`.

Same contract as ``templates`` (table 14): a ``solve`` computes the answer and its evidence steps (None
when the answerability precondition fails) and a ``slots`` enumerator proposes values. Step t means
after the action of step t. Choices where table 15 leaves room:

- "From steps L to R": what happened in the actions of steps L..R (moves, runs, collections, events);
  quantities compare the state after step R with the state after step L-1 (C_resource_change,
  D_displacement).
- The seen map (``CrafterTimeline.seen_map``) stands in for EMemBench's world map: D_nearest_dir,
  D_nav_to_target (BFS over walkable seen cells, algorithm 2-3), D_min_dist / D_max_dist (distance
  |dx| + |dy| to the nearest seen cell) and D_predict_terrain read it as it was at the step asked.
- Events are the achievements earned ("collect wood", "place table", "eat cow"), each time one is.
- An attack is a step a zombie struck or an arrow hit (``envs.crafter_env`` tells them apart).
"""

from __future__ import annotations

from . import crafter_solvers as cs
from .questions import Template
from .solvers import a_action

T = Template


CRAFTER_TEMPLATES: tuple[Template, ...] = (
    T("A_action", "Single-Hop", "string", "What is the action at step {step}?", a_action, cs.steps),
    T("A_reason", "Single-Hop", "string", "What was the reasoning at step {step}?", cs.a_reason, cs.reason_step_slots),
    T("A_stat", "Single-Hop", "integer", "What was your {stat} value at step {step}?", cs.a_stat, cs.stat_slots),
    T("A_terrain", "Single-Hop", "string", "What terrain was under you at step {step}?", cs.a_terrain, cs.steps),
    T(
        "A_inventory",
        "Single-Hop",
        "integer",
        "How many {resource} did you have at step {step}?",
        cs.a_inventory,
        cs.resource_step_slots,
    ),
    T(
        "A_occ_action",
        "Single-Hop",
        "integer",
        "Which step is the {ordinal} step whose action is '{action}'?",
        cs.occurrence("action"),
        cs.occurrence_slots("action"),
        ("action", "action"),
    ),
    T(
        "A_occ_keyword",
        "Single-Hop",
        "integer",
        "Which step is the {ordinal} step whose reason mentions '{keyword}'?",
        cs.occurrence("keyword"),
        cs.occurrence_slots("keyword"),
        ("keyword", "keyword"),
    ),
    T(
        "A_occ_terrain",
        "Single-Hop",
        "integer",
        "Which step is the {ordinal} step which you stood on {terrain} terrain?",
        cs.occurrence("terrain"),
        cs.occurrence_slots("terrain"),
        ("terrain", "terrain"),
    ),
    T(
        "B_action",
        "Multi-Hop",
        "string",
        "What is the action {offset} step(s) {side} the {ordinal} step whose action is '{action}'?",
        cs.around("action"),
        cs.around_slots("action"),
        ("action", "action"),
    ),
    T(
        "B_keyword",
        "Multi-Hop",
        "string",
        "What is the action {offset} step(s) {side} the {ordinal} step whose reason mentions '{keyword}'?",
        cs.around("keyword"),
        cs.around_slots("keyword"),
        ("keyword", "keyword"),
    ),
    T(
        "B_terrain",
        "Multi-Hop",
        "string",
        "What is the action {offset} step(s) {side} the {ordinal} step which you stood on {terrain} terrain?",
        cs.around("terrain"),
        cs.around_slots("terrain"),
        ("terrain", "terrain"),
    ),
    T(
        "C_keyword_count",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many steps have reasons that mention '{keyword}'?",
        cs.c_keyword_count,
        cs.range_value_slots("keyword", lambda tl: tl.reason_keywords()),
    ),
    T(
        "C_most_move",
        "Inducing",
        "list",
        "From steps {L} to {R}, what was the most common movement direction?",
        cs.c_most_move,
        cs.range_slots,
    ),
    T(
        "C_longest_run",
        "Inducing",
        "integer",
        "From steps {L} to {R}, what was the longest consecutive run of {action}?",
        cs.c_longest_run,
        cs.range_value_slots("action", lambda tl: tl.taken_actions()),
    ),
    T(
        "C_collect_res",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many times did you successfully collect {resource}?",
        cs.c_collect_res,
        cs.range_value_slots("resource", lambda tl: tl.held_items()),
    ),
    T(
        "C_resource_peak",
        "Inducing",
        "integer",
        "After completing which step does {resource} reach its maximum quantity (at least 1)?",
        cs.c_resource_peak,
        cs.resource_slots,
        ("resource", "resource"),
    ),
    T(
        "C_resource_change",
        "Inducing",
        "integer",
        "From steps {L} to {R}, what was the change in {resource} quantity?",
        cs.c_resource_change,
        cs.range_value_slots("resource", lambda tl: tl.held_items()),
    ),
    T(
        "C_visible_count",
        "Inducing",
        "integer",
        "From steps {L} to {R}, in how many steps could you see any {terrain} in the frame?",
        cs.c_visible_count,
        cs.range_value_slots("terrain", lambda tl: tl.seen_terrains()),
    ),
    T(
        "C_adjacent_count",
        "Inducing",
        "integer",
        "From steps {L} to {R}, in how many steps were you adjacent to any {terrain}?",
        cs.c_adjacent_count,
        cs.range_value_slots("terrain", lambda tl: tl.seen_terrains()),
    ),
    T(
        "C_distinct_trees",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many distinct trees did you see in total?",
        cs.c_distinct_trees,
        cs.range_slots,
    ),
    T(
        "D_displacement",
        "Spatial",
        "string",
        "From steps {L} to {R}, what was the total displacement of you? "
        "Answer in 'X step(s) left/right and Y step(s) up/down'.",
        cs.d_displacement,
        cs.range_slots,
    ),
    T(
        "D_path_length",
        "Spatial",
        "integer",
        "From steps {L} to {R}, how many movement steps did you successfully take?",
        cs.d_path_length,
        cs.range_slots,
    ),
    T(
        "D_predict_terrain",
        "Spatial",
        "string",
        "At step {step}, if you walked {direction} {K} step(s), what terrain would be underfoot?",
        cs.d_predict_terrain,
        cs.predict_slots,
    ),
    T(
        "D_nearest_dir",
        "Spatial",
        "list",
        "At step {step}, in which direction is the nearest {terrain} relative to you?",
        cs.d_nearest_dir,
        cs.step_terrain_slots,
        ("terrain", "terrain"),
    ),
    T(
        "D_nav_to_target",
        "Spatial",
        "list",
        "At step {step}, how should you move to reach the nearest {terrain}? "
        "Answer in displacement format (or '0' if already on target).",
        cs.d_nav_to_target,
        cs.step_terrain_slots,
        ("terrain", "terrain"),
    ),
    T(
        "D_min_dist",
        "Spatial",
        "integer",
        "From steps {L} to {R}, at which step were you closest to the nearest {terrain}? (If ties, answer the first.)",
        cs.extreme_dist(min),
        cs.range_value_slots("terrain", lambda tl: tl.seen_terrains()),
    ),
    T(
        "D_max_dist",
        "Spatial",
        "integer",
        "From steps {L} to {R}, at which step were you furthest from the nearest {terrain}? "
        "(If ties, answer the first.)",
        cs.extreme_dist(max),
        cs.range_value_slots("terrain", lambda tl: tl.seen_terrains()),
    ),
    T(
        "E_event_order",
        "Temporal",
        "string",
        "Did {eventA} happen before {eventB}? Answer in 'yes' or 'no'.",
        cs.e_event_order,
        cs.event_pair_slots,
    ),
    T(
        "E_event_interval",
        "Temporal",
        "integer",
        "After {eventA}, after how many steps did {eventB} occur?",
        cs.e_event_interval,
        cs.event_pair_slots,
    ),
    T(
        "E_state_after_event",
        "Temporal",
        "integer",
        "Immediately after {event}, what was your {stat} value?",
        cs.e_state_after_event,
        cs.event_stat_slots,
    ),
    T(
        "F_craft_feasibility",
        "Logical",
        "string",
        "At step {step}, are the collected resources enough to craft {craft}? Answer in 'yes' or 'no'.",
        cs.f_craft_feasibility,
        cs.craft_slots,
    ),
    T(
        "F_event_loc",
        "Logical",
        "string",
        "At which step(s) did you {event}? (Answer as a list of step numbers.)",
        cs.f_event_loc,
        cs.event_slots,
    ),
    T("F_attack_count", "Logical", "integer", "How many times were you attacked?", cs.f_attack_count, cs.none),
    T(
        "F_death_reason",
        "Logical",
        "list",
        "What was the cause of your death at the end of the episode?",
        cs.f_death_reason,
        cs.none,
    ),
    T(
        "F_first_attack_step",
        "Logical",
        "integer",
        "At which step were you attacked for the first time?",
        cs.f_first_attack_step,
        cs.none,
    ),
    T(
        "F_last_attack_step",
        "Logical",
        "integer",
        "At which step were you attacked for the last time?",
        cs.f_last_attack_step,
        cs.none,
    ),
    T(
        "F_inventory_contents",
        "Logical",
        "string",
        "At step {step}, what are all the items you carry?",
        cs.f_inventory_contents,
        cs.steps,
    ),
)


CRAFTER_BY_ID = {t.id: t for t in CRAFTER_TEMPLATES}
