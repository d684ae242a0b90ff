"""EMemBench's question templates for text games (table 14), as small programs over a :class:`Timeline`.

Each template has its ability type, answer type, question text, a ``solve`` that computes the answer
and the evidence steps from a timeline (None when the answerability precondition fails), and a
``slots`` enumerator of candidate values. ``solve`` is the single definition of a template's meaning:
the generator uses it on the true timeline for ground truth, and the scripted answerer uses it on the
timeline it could rebuild from its own context.

Step convention: step 0 is the start; "at step t" means after the action of step t. Table 14's
"before performing the action at step t" is kept where the table says it (A_location, A_obs_before).
A_reason and C_keyword_count_reason read the reasoning the agent logged with each command (the
planner's or the chooser's); A_valid_action the valid commands it was shown when it chose the command
of step t (logged with step t-1, when there were few enough to log). As in table 14,
A_keyword_occurrence and the four ``B_keyword_*`` key on the reason too: the steps whose logged reason
mentions the keyword (a run that logged no reasons gets none of them); C_keyword_count_obs alone counts
in observations.
"""

from __future__ import annotations

import re
from typing import Any

from . import solvers as sv
from .questions import Template, timeline_items, timeline_reason_keywords

T = Template  # the table below reads best with a short name

TEMPLATES: tuple[Template, ...] = (
    T("A_action", "Single-Hop", "string", "At step {step}, what action did you execute?", sv.a_action, sv.step_slots),
    T(
        "A_location",
        "Single-Hop",
        "string",
        "Before performing the action at step {step}, what was your location?",
        sv.a_location,
        sv.step_slots,
    ),
    T(
        "A_obs_before",
        "Single-Hop",
        "string",
        "Before performing the action at step {step}, what was the observation?",
        sv.a_obs_before,
        sv.step_slots,
    ),
    T(
        "A_obs_after",
        "Single-Hop",
        "string",
        "After performing the action at step {step}, what was the resulting observation?",
        sv.a_obs_after,
        sv.step_slots,
    ),
    T(
        "A_reward",
        "Single-Hop",
        "integer",
        "After performing the action at step {step}, what was the cumulative reward so far?",
        sv.a_reward,
        sv.step_slots,
    ),
    T(
        "A_reason",
        "Single-Hop",
        "string",
        "At step {step}, what is the first sentence of your reasoning?",
        sv.a_reason,
        sv.reason_slots,
    ),
    T(
        "A_valid_action",
        "Single-Hop",
        "string",
        "At step {step}, is '{action}' a valid action? Answer in 'yes' or 'no'.",
        sv.a_valid_action,
        sv.valid_slots,
    ),
    T(
        "A_gain_item",
        "Single-Hop",
        "integer",
        "At which step did you {ordinal} gain '{item}'?",
        sv.a_gain_item,
        sv.gain_slots,
        ("item", "item"),
    ),
    T(
        "A_enter_leave",
        "Single-Hop",
        "integer",
        "At which step did you {event} '{location}'?",
        sv.a_enter_leave,
        sv.enter_slots,
        ("location", "location"),
    ),
    T(
        "A_keyword_occurrence",
        "Single-Hop",
        "integer",
        "Which step is the {ordinal} step whose reason mentions '{keyword}'?",
        sv.a_keyword_occurrence,
        sv.keyword_slots,
        ("keyword", "keyword"),
    ),
    T(
        "B_gain_after_action",
        "Multi-Hop",
        "string",
        "After first obtaining '{value}', what action was executed {delta} step(s) later?",
        sv.after(sv.first_gain, "action"),
        sv.after_slots(sv.first_gain, lambda tl, v: timeline_items(tl)),
        ("value", "item"),
    ),
    T(
        "B_gain_after_location",
        "Multi-Hop",
        "string",
        "After first obtaining '{value}', what was your location {delta} step(s) later?",
        sv.after(sv.first_gain, "location"),
        sv.after_slots(sv.first_gain, lambda tl, v: timeline_items(tl)),
        ("value", "item"),
    ),
    T(
        "B_gain_after_observation",
        "Multi-Hop",
        "string",
        "After first obtaining '{value}', what was the observation {delta} step(s) later?",
        sv.after(sv.first_gain, "observation"),
        sv.after_slots(sv.first_gain, lambda tl, v: timeline_items(tl)),
        ("value", "item"),
    ),
    T(
        "B_gain_after_reward",
        "Multi-Hop",
        "integer",
        "After first obtaining '{value}', what was the cumulative reward {delta} step(s) later?",
        sv.after(sv.first_gain, "reward"),
        sv.after_slots(sv.first_gain, lambda tl, v: timeline_items(tl)),
        ("value", "item"),
    ),
    T(
        "B_keyword_after_action",
        "Multi-Hop",
        "string",
        "After the first step whose reason mentions '{value}', what action was executed {delta} step(s) later?",
        sv.after(sv.first_reason_mention, "action"),
        sv.after_slots(sv.first_reason_mention, timeline_reason_keywords),
        ("value", "keyword"),
    ),
    T(
        "B_keyword_after_location",
        "Multi-Hop",
        "string",
        "After the first step whose reason mentions '{value}', what was your location {delta} step(s) later?",
        sv.after(sv.first_reason_mention, "location"),
        sv.after_slots(sv.first_reason_mention, timeline_reason_keywords),
        ("value", "keyword"),
    ),
    T(
        "B_keyword_after_observation",
        "Multi-Hop",
        "string",
        "After the first step whose reason mentions '{value}', what was the observation {delta} step(s) later?",
        sv.after(sv.first_reason_mention, "observation"),
        sv.after_slots(sv.first_reason_mention, timeline_reason_keywords),
        ("value", "keyword"),
    ),
    T(
        "B_keyword_after_reward",
        "Multi-Hop",
        "integer",
        "After the first step whose reason mentions '{value}', what was the cumulative reward {delta} step(s) later?",
        sv.after(sv.first_reason_mention, "reward"),
        sv.after_slots(sv.first_reason_mention, timeline_reason_keywords),
        ("value", "keyword"),
    ),
    T(
        "C_action_mode",
        "Inducing",
        "list",
        "What is the most frequent action executed?",
        sv.c_action_mode,
        sv.none_slots,
    ),
    T(
        "C_distinct_locations",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many distinct locations were visited?",
        sv.c_distinct_locations,
        sv.range_slots,
    ),
    T(
        "C_most_frequent_location",
        "Inducing",
        "list",
        "From steps {L} to {R}, what is the most frequently visited location?",
        sv.c_most_frequent_location,
        sv.range_slots,
    ),
    T(
        "C_total_dwell",
        "Inducing",
        "list",
        "Which is the location with the longest duration of stay in total (within steps {L}-{R})?",
        sv.c_total_dwell,
        sv.range_slots,
    ),
    T(
        "C_keyword_count_obs",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many times does '{keyword}' appear in observations?",
        sv.c_keyword_count_obs,
        sv.range_keyword_slots,
    ),
    T(
        "C_keyword_count_reason",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many times does '{keyword}' appear in reasons?",
        sv.c_keyword_count_reason,
        sv.reason_keyword_slots,
    ),
    T(
        "D_compare_distances",
        "Spatial",
        "string",
        "Which is closer (fewer moves to reach), '{A}' or '{B}', from your location at step {anchor}?",
        sv.d_compare_distances,
        sv.compare_slots,
    ),
    T(
        "D_direction_count",
        "Spatial",
        "integer",
        "From steps {L} to {R}, how many times did you move {direction}?",
        sv.d_direction_count,
        sv.direction_slots,
    ),
    T(
        "D_reachable_locations_count",
        "Spatial",
        "integer",
        "How many distinct locations are reachable from '{location}' within {k} moves?",
        sv.d_reachable_locations_count,
        sv.reach_count_slots,
    ),
    T(
        "D_reachable_within",
        "Spatial",
        "string",
        "Is '{target}' reachable from '{source}' within {k} moves? Answer in 'yes' or 'no'.",
        sv.d_reachable_within,
        sv.reach_within_slots,
    ),
    T(
        "D_sequence_moves",
        "Spatial",
        "string",
        "At step {step}, if you moved {sequence}, which location would you reach?",
        sv.d_sequence_moves,
        sv.sequence_slots,
    ),
    T(
        "D_shortest_path",
        "Spatial",
        "integer",
        "What is the shortest path length (in moves) between your locations at steps {i} and {j}?",
        sv.d_shortest_path,
        sv.path_slots,
    ),
    T(
        "E_gain_delay",
        "Temporal",
        "integer",
        "After first obtaining '{item}', how many steps later was '{item}' obtained again?",
        sv.e_gain_delay,
        sv.item_slots,
    ),
    T(
        "E_item_before_leave",
        "Temporal",
        "string",
        "Before first leaving '{location}', did you ever obtain '{item}'? Answer in 'yes' or 'no'.",
        sv.e_item_before_leave,
        sv.leave_slots,
        ("item", "item"),
    ),
    T(
        "E_item_order",
        "Temporal",
        "string",
        "Before first obtaining '{A}', had you ever obtained '{B}'? Answer in 'yes' or 'no'.",
        sv.e_item_order,
        sv.item_pair_slots,
        ("B", "item"),
    ),
    T(
        "E_region_stay",
        "Temporal",
        "integer",
        "After first entering '{location}', for how many consecutive steps did you stay in '{location}'?",
        sv.e_region_stay,
        sv.room_slots,
        ("location", "location"),
    ),
    T(
        "E_scene_order",
        "Temporal",
        "string",
        "Before first entering '{A}', had you ever been to '{B}'? Answer in 'yes' or 'no'.",
        sv.e_scene_order,
        sv.room_pair_slots,
        ("A", "location"),
    ),
    T(
        "F_has_item",
        "Logical",
        "string",
        "At step {step}, did you have '{item}' in your inventory? Answer in 'yes' or 'no'.",
        sv.f_has_item,
        sv.has_item_slots,
    ),
    T(
        "F_list_inventory",
        "Logical",
        "string",
        "After performing the action at step {step}, what are all the items you carry?",
        sv.f_list_inventory,
        sv.step_slots,
    ),
    T(
        "F_max_inventory_step",
        "Logical",
        "integer",
        "After completing which step did the inventory contain the most items (the first, if tied)?",
        sv.f_max_inventory_step,
        sv.none_slots,
    ),
    T(
        "F_location_most_item_gain",
        "Logical",
        "list",
        "At which location did you gain the most distinct items?",
        sv.f_location_most_item_gain,
        sv.none_slots,
    ),
)


BY_ID = {t.id: t for t in TEMPLATES}


HORIZON_PREFIX = "Considering only steps 0 to {horizon}: "


_HORIZON = re.compile(r"^Considering only steps 0 to (\d+):\s*", re.IGNORECASE)


def match_question(question: str) -> tuple[Template, dict[str, Any], int | None] | None:
    """A question back to (template, slots, horizon): what the scripted answerer reads."""
    line = next((l.strip() for l in question.strip().splitlines() if l.strip()), "")
    horizon = None
    m = _HORIZON.match(line)
    if m:
        horizon, line = int(m.group(1)), line[m.end() :]
    for template in TEMPLATES:
        slots = template.parse(line)
        if slots is not None:
            return template, slots, horizon
    return None
