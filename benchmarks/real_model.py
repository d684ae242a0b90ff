"""The agent with real local models: outcome, speed, tokens and reply failures per model and preset.

Plays each (model, preset, game) with ``local:MODEL`` (llama.cpp's server on loopback, started once
per model and reused) for 50 steps (STMA's limit) and prints one row per episode and a mean row per
model and preset.

The games are fixed here, chosen on 2026-11-25 before any change to how the agent decides, and no prompt
or design choice is tuned on them (``HELD_OUT``): five seeds of cooking:1, three of cooking:2,
arigraph:hunt, and four of TALES's TextWorldExpress settings at its test seed index 0. Design work uses
``--dev`` (``DEV``: other seeds, and TWX's dev split).

- won, score, steps played; seconds per step (from the first model call to the end of the last, over
  the steps: game generation, server start-up and the pause of a killed and resumed run are not counted);
- model calls, prompt tokens, of which served from the server's prompt cache, and completion tokens,
  per step (provider counts from ``calls.jsonl``);
- uncached prompt tokens per step around step 20 (steps 16-20, or the last five of an episode that ended
  sooner);
- per role (node): reply failures (replies not parsed as written: repaired, re-asked or fallen back)
  and fallbacks, as ``node failures/fallbacks`` over the node's calls;
- of the chooser's sentences (``plan_choice``), how many reached the length its schema bounds them to: cut there.

Episodes are saved under ``--out`` (run directories and ``episodes.jsonl``); a rerun with the same
``--out`` skips finished ones and resumes a killed one, so a killed benchmark continues where it stopped.
Each row is one episode: a preset that plays trials (``reflexion``) is measured on its first.
The weights are pulled on first use (``ariadne models pull NAME`` ahead of time); the engine comes with the
install (``ariadne models list`` names it).

    python benchmarks/real_model.py [--models qwen2.5-coder-1.5b] [--presets ariadne react full_history]
                                    [--dev | --games cooking:1@5101 twx:mapreader@0/dev ...] [--max-steps 50] [--out
                                    DIR]

A game is ``SPEC[@SEED][/SPLIT]``. On 2 cores the 1.5b model takes seconds per step: run it in the background.

To play a *before* (an older commit) on the same games: this script from a worktree of that commit, with
``PYTHONPATH`` set to it. A commit from before the ``xllamacpp`` wheel served models (2026-11-26's ``fc10fc1``, say)
looks only for a built llama-server; point ``ARIADNE_LLAMA_SERVER`` at a two-line script that runs today's wheel
server (``cd`` to today's checkout, then ``python -m ariadnegraph.models.local.wheel_server "$@"``): the same
weights and flags.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from pool import (
    DEV_POOL,
    FIFTH_POOL,
    FOURTH_POOL,
    POOL,
    POOL_STEPS,
    SECOND_POOL,
    THIRD_POOL,
)  # (a sibling: a script's own folder is on the path)

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.switches import parse_switches
from ariadnegraph.evals.attribution import MODEL, UNKNOWN, attribution, model_and_code
from ariadnegraph.evals.diagnostics import run_diagnosis
from ariadnegraph.evals.suites import normalised
from ariadnegraph.models import FALLBACK, NO_MODEL, OUTCOMES, PARSED, model_label
from ariadnegraph.models.local import leave_servers
from ariadnegraph.nodes.schemas import Decision
from ariadnegraph.play import Episode, play, resume
from ariadnegraph.runs import RunDir

PAUSE = 120.0  # seconds without a model call in flight that mean the run was stopped, not playing
WINDOW = (16, 20)  # steps whose uncached prompt tokens are averaged for the "by step 20" column


# Chosen before any change to how the agent decides; never tuned on.
HELD_OUT = (
    "cooking:1@5101",
    "cooking:1@5102",
    "cooking:1@5103",
    "cooking:1@5104",
    "cooking:1@5105",
    "cooking:2@5201",
    "cooking:2@5202",
    "cooking:2@5203",
    "arigraph:hunt",
    "twx:coincollector@0",
    "twx:mapreader@0",
    "twx:simonsayswithmemory10@0",
    "twx:cookingworld@0",
)
# What design work is tried on: other seeds, other TextWorld games, TWX's dev split.
DEV = (
    "cooking:1@7001",
    "cooking:1@7002",
    "cooking:1@7003",
    "cooking:1@7004",
    "cooking:2@7101",
    "cooking:2@7102",
    "treasure:1@7201",
    "twx:coincollector@0/dev",
    "twx:mapreader@0/dev",
    "twx:simonsayswithmemory10@0/dev",
    "twx:cookingworld@0/dev",
)


# Issue 36 (the world model), fixed on 2026-11-27 in a commit before any change to how the agent decides, and
# never tuned on: per set, the step budget its protocol plays and its games. STMA table 1: cooking levels 1-4
# (the first 4 seeds of a level now, all 8 once it runs fast enough); AriGraph's games at their budgets; TALES's
# 16 TextWorldExpress settings at test index 0; DAVIS's six ablation tasks (section 4.3, by name: its "6-1" is
# ScienceWorld's 6-2), three test variations each drawn by random.Random(36).sample from each task's test list.
# A held-out game that showed a flaw moves to dev; the next seed of its level takes its place.
# cooking:3@36301 (the recipe said grill, the model roasted) and cooking:4@36401 (fry; the model grilled), both lost
# for it: the rules now know the recipe's way (36401 was read after that change; it moves all the same);
# cooking:3@36305 (the model grilled a sliced grilled apple again: the rule read only the name's first word)
SHOWED_A_FLAW = ("cooking:3@36301", "cooking:4@36401", "cooking:3@36305")
# Sets with no seed to replace a game by (AriGraph's four games; TALES's test index 0): a game's first play is its
# held-out figure, and once it showed a flaw it is a dev game for what follows. twx:cookingworld@0 (the brief said
# "grill on the BBQ": TextWorldExpress grills on its barbeque, or in the toaster where the kitchen is all; 'look
# around' 30 times in a one-room game) is one since 2026-11-27; twx:mapreader@0 (the coin taken, then 97 moves between
# two rooms with 'put coin in box' valid in one) since stop 46; twx:simonsays10@0 and twx:simonsays50@0 (both lost at
# step 4: the model chose a command said two steps before, the no-op guard sent it back and the way forward took a
# thing: "Incorrect!") since stop 47; twx:simonsayswithmemory{10,50,100}{,verbose}@0 (each lost at step 10: the list's
# tenth command examined again what the second had, the no-op guard sent it back) since stop 47.
# ScienceWorld's variations are drawn as above; one that showed a flaw moves to dev and the sample's next (the same
# seed, one more drawn) takes its place: scienceworld:melt#0 (2026-11-28: told "First, focus on the substance" of
# "melt lead", the 1.5B focused on the toilet's water at step 1 and the task failed; the rules shield now knows it);
# scienceworld:melt#2 (2026-11-28: the start's "In the toilet is: A drain, ..." was kept as a list of things to do, the
# NEXT STEP for 80 steps; GameFamily.lists_at_start now says ScienceWorld's start states none); scienceworld:melt#5
# (2026-11-28: 70 points at step 11, then the way forward picked up furniture and bees, searched for "actions that
# will cause it to change its state of matter", and memory never saw a room it moved into: mended in 558d6b3-27955d4);
# scienceworld:melt#6 (2026-11-28: 73 points at step 26, then 30 steps between the art studio and the hallway toward
# a 'large cupboard' no valid command named so, 'open cupboard' being the game's; mended in 9773afd);
# scienceworld:find-living-thing#9 (2026-11-28: told to focus on "a living thing", the 1.5B focused on the living
# room at step 5 and the task failed; a focus on a room, a door or the air is now ruled out);
# scienceworld:test-conductivity#68 (2026-11-28: "The sodium chloride is located around the living room" was dropped
# as a remark and the goal's one step left no NEXT STEP; the kitchen jar's sodium chloride no command named, then 60
# steps of searching the house; the room the task names is now where the step is done); scienceworld:melt#7
# (2026-11-28: the caesium focused on at step 32, 73 points, then never heated, as on melt#5 and #6: the way forward
# looked at wires; code now heats a thing in the blast furnace); scienceworld:melt#4 (2026-11-28: mercury, liquid in a
# cup in the workshop, focused on at step 32, then 45 steps walked between it and the foundry's furnace; the way to
# what was seen now skips a move played often from one situation); scienceworld:find-living-thing#69 (2026-11-28:
# code focused on a pea plant at step 7, 67 points; then "move it to the red box in the workshop" walked between the
# greenhouse and the workshop for 20 steps and picked up the red box: the room now waits for the thing to be in hand,
# and where it goes is never taken); scienceworld:melt#8 (2026-11-29: the caesium focused on at step 36, 73 points;
# then no take was found, ScienceWorld naming the paper cup by what it held, and the walk went between the workshop and
# the foundry for 27 steps; melt's test split has nine variations, all drawn now);
# scienceworld:chemistry-mix-paint-secondary-color#1 (2026-11-29: the way forward searched the house for the violet
# paint the task makes, and the 1.5B mixed rooms, sinks and doors, each twice running);
# scienceworld:measure-melting-point-unknown-substance#0 (2026-11-29: both focuses by step 11, 76 points by step 21,
# never heated; at step 71 the model's 'reset task', three times, took the score to 2);
# scienceworld:lifespan-longest-lived#8 (2026-11-29: the animals outside, the way forward searched the house for "the
# animal" and the walk brought the player back, 40 steps; then the 1.5B focused on a beaver);
# scienceworld:test-conductivity#93 (2026-11-29: 60 at step 31; then the way forward teleported to the art studio for
# its cupboard five times, the model moving off on each arrival). The six tasks' draws
# share one random.Random(36) in the order listed (three each); a task's next draw continues that sequence (melt's
# nine are all drawn). A next draw: of the sample of one more than drawn so far, the first not drawn yet (lifespan's
# 5th of (27, 23, 17, 4, 26): 4; test-conductivity's 6th of (68, 186, 167, 110, 93, 143): 143).


def stma_held_out(level: int, games: int = 8) -> list[str]:
    seeds = (f"cooking:{level}@36{level}{i:02d}" for i in range(1, 100))
    return [game for game in seeds if game not in SHOWED_A_FLAW][:games]


HELD_OUT_36: dict[str, tuple[int, tuple[str, ...]]] = {
    "stma": (50, tuple(game for level in (1, 2, 3, 4) for game in stma_held_out(level))),
    "arigraph": (0, ("arigraph:hunt", "arigraph:hunt_hard", "arigraph:cook_hard", "arigraph:clean")),
    "twx": (
        100,
        tuple(
            f"twx:{name}@0"
            for name in (
                "cookingworld",
                "textworldcommonsense",
                "coincollector",
                "arithmetic",
                "mapreader",
                "sorting",
                "simonsays10",
                "simonsays50",
                "simonsays100",
                "simonsayswithmemory10",
                "simonsayswithmemory50",
                "simonsayswithmemory100",
                "simonsayswithmemory10verbose",
                "simonsayswithmemory50verbose",
                "simonsayswithmemory100verbose",
                "peckingorder",
            )
        ),
    ),
    "scienceworld": (
        80,
        tuple(
            f"scienceworld:{task}#{v}"
            for task, variations in (
                # 0, 2, 5, 6, 7 and 4 showed flaws: the sample's fourth to ninth took their places; 8 showed one
                # too, and the test split's nine variations are all drawn: melt keeps two
                ("melt", (3, 1)),
                # 0 showed a flaw: the 4th drawn took its place
                ("measure-melting-point-unknown-substance", (10, 36, 64)),
                ("chemistry-mix-paint-secondary-color", (2, 8, 7)),  # 1 showed a flaw: the 4th drawn took its place
                ("test-conductivity", (167, 186, 143)),  # 68, 110, 93 showed flaws: the 4th-6th drawn took their places
                ("lifespan-longest-lived", (23, 27, 4)),  # 17, 8 showed flaws: the 4th and 5th drawn took their places
                ("find-living-thing", (73, 52, 62)),  # 9 and 69 showed flaws: the 4th and 5th drawn took their places
            )
            for v in variations
        ),
    ),
}
# Issue 36's design work: other seeds and games, the TWX dev split, ScienceWorld dev variations.
DEV_36: dict[str, tuple[int, tuple[str, ...]]] = {
    "stma": (
        50,
        tuple(f"cooking:{level}@37{level}{i:02d}" for level in (1, 2, 3, 4) for i in range(1, 5)) + SHOWED_A_FLAW,
    ),
    "arigraph": (150, ("treasure:2@3701", "treasure:3@3702")),
    "twx": (100, ("twx:cookingworld@0/dev", "twx:coincollector@0/dev", "twx:mapreader@0/dev")),
    "scienceworld": (
        80,
        (
            "scienceworld:melt#0/dev",
            "scienceworld:find-living-thing#0/dev",
            "scienceworld:melt#0",
            "scienceworld:melt#2",
            "scienceworld:melt#5",
            "scienceworld:melt#6",
            "scienceworld:find-living-thing#9",
            "scienceworld:test-conductivity#68",
            "scienceworld:melt#7",
            "scienceworld:melt#4",
            "scienceworld:find-living-thing#69",
            "scienceworld:test-conductivity#110",
            "scienceworld:lifespan-longest-lived#17",
            "scienceworld:melt#8",
            "scienceworld:chemistry-mix-paint-secondary-color#1",
            "scienceworld:measure-melting-point-unknown-substance#0",
            "scienceworld:lifespan-longest-lived#8",
            "scienceworld:test-conductivity#93",
        ),
    ),
}


# Issue 62's generalization pools and their dev games (benchmarks/pool.py), beside issue 36's sets.
HELD_OUT_SETS = {
    **HELD_OUT_36,
    "pool": (POOL_STEPS, POOL),
    "pool2": (POOL_STEPS, SECOND_POOL),
    "pool3": (POOL_STEPS, THIRD_POOL),
    "pool4": (POOL_STEPS, FOURTH_POOL),
    "pool5": (POOL_STEPS, FIFTH_POOL),
}
DEV_SETS = {**DEV_36, "pool": (POOL_STEPS, DEV_POOL)}


def game_options(game: str) -> tuple[str, dict[str, Any]]:
    """``SPEC[@SEED][#VARIATION][/SPLIT]`` as the env spec and its options."""
    game, _, split = game.partition("/")
    game, _, variation = game.partition("#")
    spec, _, seed = game.partition("@")
    return spec, {
        **({"seed": int(seed)} if seed else {}),
        **({"variation": int(variation)} if variation else {}),
        **({"split": split} if split else {}),
    }


def game_budget(game: str) -> int:
    """The step budget of a game that its protocol sets: an AriGraph game's manifest's."""
    from ariadnegraph.envs.registry import arigraph_game

    spec = game_options(game)[0]
    if not spec.startswith("arigraph:"):
        raise SystemExit(f"no step budget for {game}: give --max-steps")
    return arigraph_game(spec.partition(":")[2]).max_steps


def calls_of(run: Path) -> list[dict[str, Any]]:
    path = run / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def playing_seconds(calls: list[dict[str, Any]]) -> float:
    """Wall time from the first model call to the end of the last: the steps, not the game generation or
    the server start. A pause with no call in flight longer than PAUSE (a killed run, later resumed) is
    not counted: no step spends that long outside a model call."""
    spans = sorted((c["started"], c["started"] + c["latency_ms"] / 1000) for c in calls)
    total, start, end = 0.0, None, None
    for begin, finish in spans:
        if start is None or begin - end > PAUSE:
            total += (end - start) if start is not None else 0.0
            start, end = begin, finish
        else:
            end = max(end, finish)
    return total + ((end - start) if start is not None else 0.0)


# The chooser's sentence is bound by its schema (a grammar on a local model): a sentence this long was cut there, the
# working-out it was asked for (a sum, which amount is smallest) often with it. (-1: the clip strips a space.)
SENTENCE_BOUND = Decision.model_json_schema()["properties"]["reasoning"]["maxLength"] - 1


def sentences_cut(calls: list[dict[str, Any]]) -> tuple[int, int]:
    """Of the chooser's replies that parse (``plan_choice``: a sentence, then the command), how many reached the
    sentence's bound, and how many there were."""
    sentences = []
    for call in calls:
        if call.get("node") != "planner":
            continue
        try:
            reply = json.loads((call.get("reply") or {}).get("content") or "")
        except (json.JSONDecodeError, TypeError):
            continue
        if isinstance(reply, dict) and isinstance(reply.get("reasoning"), str) and "action" in reply:
            sentences.append(reply["reasoning"])
    return sum(len(s) >= SENTENCE_BOUND for s in sentences), len(sentences)


def measure(run: Path) -> dict[str, Any]:
    """The figures of one played episode, from its run directory (run.json's result and calls.jsonl)."""
    result = json.loads((run / "run.json").read_text())["result"]
    calls = [c for c in calls_of(run) if "node" in c and c.get("usage")]
    steps = max(result["steps"], 1)
    seconds = playing_seconds(calls)  # (none asks no model: 0)
    prompt = sum(c["usage"].get("prompt_tokens") or 0 for c in calls)
    cached = sum(c["usage"].get("cached_tokens") or 0 for c in calls)
    last = min(WINDOW[1], result["steps"])  # an episode over before step 20: its last five steps
    window = [c for c in calls if c.get("step") is not None and last - 4 <= c["step"] <= last]
    window_steps = last - max(last - 4, 0) + 1 if result["steps"] else 0  # a step with no model call read nothing
    uncached_20 = sum((c["usage"].get("prompt_tokens") or 0) - (c["usage"].get("cached_tokens") or 0) for c in window)
    roles = {}
    for node, counts in (result.get("replies") or {}).items():
        replies = sum(counts.get(o, 0) for o in OUTCOMES)
        roles[node] = {
            "replies": replies,
            "failures": replies - counts.get(PARSED, 0),
            "fallbacks": counts.get(FALLBACK, 0),
            "issues": {k: v for k, v in counts.items() if k not in OUTCOMES},
        }
    diagnosis = run_diagnosis(run.parent, run.name).totals
    played = list(RunDir.open(run.parent, run.name).steps())
    chosen = attribution(played)
    if chosen and set(chosen) == {UNKNOWN}:  # recorded before the attribution (the "before" rows): read its records
        chosen = Counter(legacy_chooser(step) for step in played if step.get("action"))
    by_model, by_code = model_and_code(chosen)
    cut, sentences = sentences_cut(calls)
    # the best score reached: a game a wrong command ends (TWX's Simon says, cooking with the wrong appliance) ends
    # on a score lower than what the episode had reached; TALES compares the best, normalised by the maximum
    best = max(
        (
            normalised(float(step.get("score") or 0), result["max_score"])
            for step in RunDir.open(run.parent, run.name).steps()
        ),
        default=0.0,
    )
    return {
        "diagnostics": diagnosis,
        "by_model": by_model,
        "by_code": by_code,
        "chosen_by": dict(chosen),
        "won": bool(result["won"]),
        "score": result["score"],
        "max_score": result["max_score"],
        "steps": result["steps"],
        "best_normalised": best if result["max_score"] else None,
        "seconds_per_step": seconds / steps,
        "calls_per_step": len(calls) / steps,
        "prompt_per_step": prompt / steps,
        "cached_per_step": cached / steps,
        "completion_per_step": sum(c["usage"].get("completion_tokens") or 0 for c in calls) / steps,
        "uncached_at_20": uncached_20 / window_steps if window_steps else None,
        "roles": roles,
        "sentences_cut": cut,
        "sentences": sentences,
    }


# How the actor of landed main before issue 36 recorded a command (its "how"), as who chose it: the model's plan
# step grounded or its choice among the valid commands; a route expanded or an exit explored by code; the way
# forward once the replans were used up ("fallback"). A grounded step whose plan reason is the planner's
# "followed in code" was a list read, followed by code. Only for runs that carry no `by` of their own.
LEGACY_HOW = {
    "grounded": MODEL,
    "model": MODEL,
    "choice": MODEL,
    "expanded": "route",
    "explore": "route",
    "fallback": "way forward",
}
LEGACY_LIST_REASON = "followed in code"


def legacy_chooser(step: dict[str, Any]) -> str:
    """Who chose a step's command in a run recorded before `by` existed (the "before" rows of issue 36)."""
    records = (step.get("decided") or {}).get("actor") or []
    played = [r for r in (records if isinstance(records, list) else [records]) if r.get("played")]
    how = LEGACY_HOW.get(str(played[-1].get("how")), UNKNOWN) if played else UNKNOWN
    if how == MODEL and str(step.get("reason") or "").startswith(LEGACY_LIST_REASON):
        return "list"
    return how


def run_id_of(key: str) -> str:
    """The run an episode's key ("model|preset|twx:mapreader@0/dev|50") is played as."""
    for mark, instead in (("|", "_"), (":", "-"), ("@", "-"), ("/", "-"), ("#", "-v"), ("+", "_"), ("=", "-")):
        key = key.replace(mark, instead)
    return key


def fmt(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def code_cell(metrics: dict[str, Any], key: str) -> str:
    """Commands the model chose, or code played (with what code played them: a list read, a route, a guard)."""
    if key not in metrics:
        return "—"
    if key == "by_model" or not metrics[key]:
        return str(metrics[key])
    parts = [f"{by} {n}" for by, n in sorted(metrics["chosen_by"].items()) if by not in ("model", "unknown")]
    return f"{metrics[key]} ({', '.join(parts)})"


def role_cell(roles: dict[str, dict[str, Any]]) -> str:
    parts = [
        f"{node} {r['failures']}/{r['fallbacks']} of {r['replies']}"
        for node, r in sorted(roles.items())
        if r["failures"] or r["fallbacks"]
    ]
    return "; ".join(parts) or "none"


DIAGNOSTICS = (
    ("planner", "valid", "plans valid"),
    ("planner", "on_winning_path", "on path"),
    ("choice", "override_rate", "overrides"),
    ("choice", "override_paid", "override paid"),
    ("actor", "drift", "drift"),
    ("actor", "sent_back", "sent back"),
    ("actor", "ruled_out", "ruled out"),
    ("actor", "explored_instead", "explored"),
    ("actor", "took_first", "took first"),
    ("actor", "fallbacks", "actor fallb."),
    ("critic", "false_rejections", "false rej."),
    ("critic", "wrong_outcome_verdicts", "wrong outc."),
    ("summarizer", "holds_recipe", "belief recipe"),
    ("extraction", "precision", "KG prec."),
    ("extraction", "impossible_facts", "imposs. facts"),
    ("monologue", "unsupported", "unsupp. notes"),
    ("loops", "repeats", "repeats"),
)


def diagnostic_cells(metrics: dict[str, Any]) -> list[str]:
    found = metrics.get("diagnostics") or {}
    return [
        fmt((found.get(role) or {}).get(key), 2 if isinstance((found.get(role) or {}).get(key), float) else 0)
        for role, key, _ in DIAGNOSTICS
    ]


def lift(group: list[dict[str, Any]], alone: list[dict[str, Any]]) -> tuple[str, str]:
    """What a model adds over the controller alone (``none``, the same preset) on the games both played: the share of
    games won and the mean best normalised score, each as the model's minus none's ('+32 pts', '+0.25'); '—' with no
    ``none`` row to compare with (or for ``none`` itself)."""
    mine = {row["game"]: row["metrics"] for row in group}
    theirs = {row["game"]: row["metrics"] for row in alone if row["game"] in mine}
    if not theirs or group is alone:
        return "—", "—"
    games = sorted(theirs)
    won = 100 * (sum(mine[g]["won"] for g in games) - sum(theirs[g]["won"] for g in games)) / len(games)
    scored = [g for g in games if mine[g]["best_normalised"] is not None and theirs[g]["best_normalised"] is not None]
    mean = (
        sum(mine[g]["best_normalised"] - theirs[g]["best_normalised"] for g in scored) / len(scored) if scored else None
    )
    return f"{won:+.0f} pts ({len(games)})", "—" if mean is None else f"{mean:+.2f}"


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| model | preset | game | won | score | best/max | steps | by model | by code | s/step | calls/step | "
        "prompt tok/step | "
        "cached/step | "
        "uncached/step, steps 16-20 | completion/step | failures/fallbacks by role | "
        + " | ".join(label for _, _, label in DIAGNOSTICS)
        + " |"
    )
    lines = [head, "|" + "---|" * (16 + len(DIAGNOSTICS))]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        m = row["metrics"]
        groups[(row["model"], row["preset"])].append(row)
        lines.append(
            f"| {row['model']} | {row['preset']} | {row['game']} | {'yes' if m['won'] else 'no'} | "
            f"{m['score']:g}/{m['max_score']:g} | {fmt(m['best_normalised'], 2)} | {m['steps']} | "
            f"{code_cell(m, 'by_model')} | {code_cell(m, 'by_code')} | "
            f"{fmt(m['seconds_per_step'], 1)} | {fmt(m['calls_per_step'], 1)} | "
            f"{fmt(m['prompt_per_step'])} | {fmt(m['cached_per_step'])} | {fmt(m['uncached_at_20'])} | "
            f"{fmt(m['completion_per_step'])} | {role_cell(m['roles'])} | " + " | ".join(diagnostic_cells(m)) + " |"
        )
    lines += [
        "",
        "| model | preset | episodes | won | lift won | total score | mean best/max | lift mean | s/step | "
        "calls/step | uncached/step, steps 16-20 | completion/step | replies | failures | fallbacks | sentences cut |",
        "|" + "---|" * 16,
    ]
    for (model, preset), group in groups.items():
        metrics = [g["metrics"] for g in group]
        won_lift, mean_lift = lift(group, groups.get((NO_MODEL, preset.split("+")[0]), []))

        def mean(key: str, metrics: list = metrics) -> float | None:
            values = [m[key] for m in metrics if m[key] is not None]
            return sum(values) / len(values) if values else None

        replies = sum(r["replies"] for m in metrics for r in m["roles"].values())
        failures = sum(r["failures"] for m in metrics for r in m["roles"].values())
        fallbacks = sum(r["fallbacks"] for m in metrics for r in m["roles"].values())
        measured = [m for m in metrics if "sentences" in m]  # (rows recorded before the count: not counted)
        said = sum(m["sentences"] for m in measured)
        cut = f"{sum(m['sentences_cut'] for m in measured)} of {said}" if said else "—"
        lines.append(
            f"| {model_label(model)} | {preset} | {len(group)} | {sum(m['won'] for m in metrics)} | {won_lift} | "
            f"{sum(m['score'] for m in metrics):g} | "
            f"{fmt(mean('best_normalised'), 2)} | {mean_lift} | {fmt(mean('seconds_per_step'), 1)} | "
            f"{fmt(mean('calls_per_step'), 1)} | {fmt(mean('uncached_at_20'))} | {fmt(mean('completion_per_step'))} | "
            f"{replies} | {failures} ({100 * failures / max(replies, 1):.1f}%) | {fallbacks} "
            f"({100 * fallbacks / max(replies, 1):.1f}%) | {cut} |"
        )
    lines += [
        "",
        "| model | preset | level | episodes | won | mean best/max | commands by model | by code |",
        "|" + "---|" * 8,
    ]
    levels: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:  # a level is what a game spec names before its seed ("cooking:3@36301": cooking:3)
        levels[(row["model"], row["preset"], row["game"].partition("@")[0])].append(row["metrics"])
    for (model, preset, level), metrics in levels.items():
        best = [m["best_normalised"] for m in metrics if m["best_normalised"] is not None]
        lines.append(
            f"| {model} | {preset} | {level} | {len(metrics)} | {sum(m['won'] for m in metrics)} | "
            f"{fmt(sum(best) / len(best) if best else None, 2)} | {sum(m.get('by_model', 0) for m in metrics)} | "
            f"{sum(m.get('by_code', 0) for m in metrics)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["qwen2.5-coder-1.5b"])
    parser.add_argument(
        "--presets",
        nargs="+",
        default=["ariadne", "react", "full_history"],
        help="presets, each optionally with switches changed: ariadne+object_memory=false (an ablation row)",
    )
    games = parser.add_mutually_exclusive_group()
    games.add_argument("--games", nargs="+", default=list(HELD_OUT), help="default: the held-out games")
    games.add_argument("--dev", action="store_true", help="the dev games design work is tried on")
    games.add_argument(
        "--held-out", choices=sorted(HELD_OUT_SETS), help="one of issue 36's held-out sets, or one of issue 62's pools"
    )
    games.add_argument("--dev-set", choices=sorted(DEV_SETS), help="one of issue 36's dev sets, or issue 62's")
    parser.add_argument("--per-level", type=int, default=0, help="the first N games of each level (stma sets)")
    parser.add_argument("--max-steps", type=int, default=None, help="default: the set's budget, else 50")
    parser.add_argument("--out", default="benchmark-results/real_model")
    parser.add_argument(
        "--memory-from",
        default=None,
        metavar="AGENT",
        help="seed each episode from AGENT's namespace (the rap preset's gold runs: `ariadne memory seed-gold`)",
    )
    parser.add_argument(
        "--played-only", action="store_true", help="the tables of the episodes already played under --out; play none"
    )
    args = parser.parse_args(argv)
    if args.max_steps is not None and args.max_steps < 1:  # 0 would fall through to the default budget of 50
        parser.error(f"--max-steps must be at least 1, got {args.max_steps}")
    if args.dev:
        args.games = list(DEV)
    chosen = HELD_OUT_SETS.get(args.held_out or "") or DEV_SETS.get(args.dev_set or "")
    if chosen is not None:
        budget, args.games = chosen[0], list(chosen[1])
        if args.per_level:
            by_level: dict[str, list[str]] = defaultdict(list)
            for game in args.games:
                by_level[game.partition("@")[0]].append(game)
            args.games = [g for level in by_level.values() for g in level[: args.per_level]]
        args.max_steps = args.max_steps or budget or None
    args.max_steps = args.max_steps or (None if chosen is not None else 50)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records = out / "episodes.jsonl"
    done = (
        {json.loads(line)["key"]: json.loads(line) for line in records.read_text().splitlines()}
        if records.exists()
        else {}
    )
    rows = []
    try:
        for model in args.models:
            for game in args.games:  # each game under every preset before the next: a partial table compares
                for preset in args.presets:
                    steps = args.max_steps or game_budget(game)
                    seeded = f"|memory={args.memory_from}" if args.memory_from else ""  # another episode than unseeded
                    key = f"{model}|{preset}|{game}|{steps}{seeded}"
                    run_id = run_id_of(key)
                    if (
                        key in done
                    ):  # measured again from its run: the figures follow this script, not the one that played
                        rows.append({**done[key], "metrics": measure(out / "runs" / run_id)})
                        continue
                    if args.played_only:
                        continue
                    spec, options = game_options(game)
                    name, *changes = preset.split("+")  # an ablation row: "ariadne+object_memory=false"
                    context = AgentContext(
                        model=model if model == NO_MODEL else f"local:{model}",
                        preset=name,
                        switch_overrides=parse_switches(changes),
                        run_dir=str(out / "runs"),
                        memory_from=args.memory_from,
                    )
                    if (out / "runs" / run_id).exists():  # killed earlier: finish it
                        resume(run_id, run_dir=out / "runs")
                    else:
                        play(Episode(spec, max_steps=steps, **options), context=context, run_id=run_id)
                    row = {
                        "key": key,
                        "model": model,
                        "preset": preset,
                        "game": game,
                        "metrics": measure(out / "runs" / run_id),
                    }
                    with records.open("a") as handle:
                        handle.write(json.dumps(row) + "\n")
                    rows.append(row)
                    print(
                        f"{key}: {row['metrics']['steps']} steps, {row['metrics']['seconds_per_step']:.1f} s/step",
                        file=sys.stderr,
                        flush=True,
                    )
            leave_servers()  # one model's server at a time
    finally:
        leave_servers()
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
