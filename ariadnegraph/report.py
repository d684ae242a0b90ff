"""``ariadne report``: one self-contained HTML file for a run.

The page shows the trajectory step by step (observation, subgoal/plan, critic verdicts, action, score),
the score curve, tokens (and cost when the usage records one) per step, and the knowledge graph at any
step: a slider over ``as_of`` steps, with the facts added at that step highlighted and the facts closed
at that step drawn dashed. Everything (data, CSS, JS, SVG) is inline: the file opens without a network.
``?step=K`` in the page's URL selects step K on load.

The graph layout is computed here, once, over every entity the run ever saw (networkx ``spring_layout``
with a fixed seed), so nodes stay where they are while the slider moves. The graph view pans (drag),
zooms (wheel, buttons) and searches (the matches are highlighted and the view centres on them); labels
show once the zoom leaves room for them, so hundreds of entities stay readable.

Per step the page also shows the reasoning behind the command, the critic's verdicts and every model
call made for it (prompt messages, reply, tokens, the reply's outcome), read from ``calls.jsonl`` and
collapsed until opened.
"""

from __future__ import annotations

import html
import json
import sqlite3
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from .agent.integrity import checked_copies
from .agent.presets import system_label
from .agent.records import feedback_text
from .evals.diagnostics import MissingOracle, diagnose, mistakes
from .memory.facts import Fact
from .models import model_label
from .runs import CALLS_FILE, RunDir, check_output, game_label, write_output

REPORT_FILE = "report.html"
LAYOUT_SEED = 7
MESSAGE_CHARS = 20_000  # a prompt message longer than this is clipped in the page (the file keeps it whole)
_TOKEN_KEYS = ("calls", "prompt_tokens", "completion_tokens")


# -- data --------------------------------------------------------------------------------------------
def _usage_diff(after: dict[str, dict[str, Any]], before: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    diff: dict[str, dict[str, float]] = {}
    for node, counts in (after or {}).items():
        prior = (before or {}).get(node, {})
        delta = {
            k: counts.get(k, 0) - prior.get(k, 0)
            for k in set(counts) | set(prior)
            if isinstance(counts.get(k, 0), (int, float))
        }
        if any(delta.values()):
            diff[node] = delta
    return diff


def _usage_totals(usage: dict[str, dict[str, Any]]) -> dict[str, float]:
    totals: dict[str, float] = {k: 0 for k in _TOKEN_KEYS}
    cost = None
    for counts in (usage or {}).values():
        for key in _TOKEN_KEYS:
            totals[key] += counts.get(key, 0) or 0
        if counts.get("cost") is not None:
            cost = (cost or 0.0) + float(counts["cost"])
    if cost is not None:
        totals["cost"] = round(cost, 6)
    return totals


def _agent_steps(run: RunDir) -> tuple[dict[int, dict[str, Any]], dict[str, Any] | None]:
    """Per step K: what the agent did to choose the action that led to observation K (subgoal, plan,
    critic verdicts, tokens spent since observation K-1), read from the LangGraph checkpoints."""
    path = run.checkpoints_path
    if not path.is_file():
        return {}, None
    from .agent.checkpoints import sqlite_saver
    from .graphs.agent import build_agent_graph

    connection = sqlite3.connect(path, check_same_thread=False)
    try:
        graph = build_agent_graph().compile(checkpointer=sqlite_saver(connection))
        history = list(graph.get_state_history({"configurable": {"thread_id": run.run_id}}))
    finally:
        connection.close()
    history.reverse()  # oldest first
    if not history:
        return {}, None
    steps: dict[int, dict[str, Any]] = {}
    step_index = 0
    previous_usage: dict[str, dict[str, Any]] = {}
    verdicts: list[dict[str, Any]] = []
    for position, snapshot in enumerate(history):
        values = snapshot.values or {}
        following = history[position + 1] if position + 1 < len(history) else None
        if snapshot.next == ("critic",) and following is not None:
            # The critic saw the plan's first action; a detour to the planner means it rejected it.
            plan = values.get("plan") or []
            proposed = plan[0].get("action") if plan else None
            after = following.values or {}
            approved = following.next != ("planner",)
            verdicts.append(
                {
                    "approved": approved,
                    "proposed": proposed,
                    "feedback": "" if approved else feedback_text(after.get("feedback")) or "",
                }
            )
        if snapshot.next == ("environment",):
            # The state right before the environment produces observation ``step_index``.
            usage = values.get("usage") or {}
            per_node = _usage_diff(usage, previous_usage)
            steps[step_index] = {
                "subgoal": values.get("subgoal") or "",
                "plan": [dict(p) for p in values.get("plan") or []],
                "feedback": feedback_text(values.get("feedback")) or "",
                "reflections": list(values.get("reflections") or [])[-3:],
                "critic": verdicts,
                "usage": per_node,
                "tokens": _usage_totals(per_node),
            }
            previous_usage, verdicts = usage, []
            step_index += 1
    final_usage = (history[-1].values or {}).get("usage") or {}
    leftover = _usage_diff(final_usage, previous_usage)
    after = {"usage": leftover, "tokens": _usage_totals(leftover)} if leftover else None
    return steps, after


def _layout(entities: dict[str, str], facts: Sequence[Fact]) -> dict[str, tuple[float, float]]:
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(sorted(entities))
    for fact in facts:
        if fact.subject_key != fact.object_key:
            graph.add_edge(fact.subject_key, fact.object_key, weight=1.0)
    if not graph:
        return {}
    if len(graph) == 1:
        return {next(iter(graph)): (0.5, 0.5)}
    # A weak pull towards a hidden hub keeps separate components (recipe facts, rooms, ...) on screen
    # together instead of flung to the corners.
    hub = object()
    graph.add_edges_from(((hub, key) for key in list(graph)), weight=0.08)
    k = 1.0 / len(graph) ** 0.5
    raw = nx.spring_layout(graph, seed=LAYOUT_SEED, k=k, iterations=300)
    raw.pop(hub)
    xs = [p[0] for p in raw.values()]
    ys = [p[1] for p in raw.values()]
    span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    return {key: (round((p[0] - min(xs)) / span_x, 4), round((p[1] - min(ys)) / span_y, 4)) for key, p in raw.items()}


def build_report_data(run_dir: str | Path, run_id: str) -> dict[str, Any]:
    """Everything the page shows, as plain JSON-ready data, read from a checked copy of the run.
    Raises RunNotFound / RunCorrupted."""
    with checked_copies(run_dir, [run_id], played=True) as copies:
        data = _report_data(RunDir.open(copies, run_id))
    # calls.jsonl is left out of reading copies (it is large); a plain append-only file, read where it is
    calls, unreadable = read_calls(Path(run_dir) / run_id / CALLS_FILE)
    for row in data["steps"]:
        row["calls"] = calls.pop(row["step"], [])
    data["calls_unread"] = unreadable
    # made after the last recorded step (a reflection, a kill)
    data["calls_elsewhere"] = sum(len(c) for c in calls.values())
    return data


def _clip(text: object) -> object:
    if isinstance(text, str) and len(text) > MESSAGE_CHARS:
        return text[:MESSAGE_CHARS] + f"\n[... {len(text) - MESSAGE_CHARS} more characters in calls.jsonl]"
    return text


def _message(message: object) -> dict[str, Any]:
    if not isinstance(message, dict):
        return {"role": "?", "content": str(message)}
    shown: dict[str, Any] = {"role": str(message.get("role", "?")), "content": _clip(message.get("content"))}
    if message.get("tool_calls"):
        shown["tool_calls"] = message["tool_calls"]
    return shown


def read_calls(path: Path) -> tuple[dict[int, list[dict[str, Any]]], int]:
    """The model calls of ``calls.jsonl`` by the trajectory step whose command they led to, and how many
    lines could not be read (a torn last line, a damaged one).

    A call made at the agent's step ``s`` (the step label of :func:`~ariadnegraph.tracing.traced_node`)
    happens after observation ``s`` and before the command that produces observation ``s + 1``: the
    report shows it with step ``s + 1``, as it does the tokens. A reply's outcome line goes with the
    last call of its node at that step."""
    by_step: dict[int, list[dict[str, Any]]] = {}
    unreadable = 0
    if not path.is_file():
        return by_step, 0
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                unreadable += 1
                continue
            if not isinstance(record, dict):
                unreadable += 1
                continue
            outcome = record.get("reply") if "prompt" not in record else None
            step = (outcome if isinstance(outcome, dict) else record).get("step")
            if type(step) is not int:
                unreadable += 1
                continue
            calls = by_step.setdefault(step + 1, [])
            if isinstance(outcome, dict):
                mine = [c for c in calls if c["node"] == outcome.get("node") and "outcome" not in c]
                if mine:
                    mine[-1]["outcome"] = {k: outcome.get(k) for k in ("outcome", "issues", "tries", "errors")}
                continue
            prompt = record.get("prompt")
            calls.append(
                {
                    "node": record.get("node"),
                    "model": record.get("model"),
                    "latency_ms": record.get("latency_ms"),
                    "usage": record.get("usage") if isinstance(record.get("usage"), dict) else {},
                    "prompt": [_message(m) for m in prompt] if isinstance(prompt, list) else [],
                    "reply": _message(record["reply"]) if "reply" in record else None,
                    "error": record.get("error"),
                }
            )
    return by_step, unreadable


def _report_data(run: RunDir) -> dict[str, Any]:
    from .memory import WorldMemory

    meta = run.meta()
    trajectory = list(run.steps())
    memory = WorldMemory.open(run.memory_path)
    try:
        facts = memory.all_facts
        entities = memory.entities
        episodes = {s: e.text for s, e in memory.episodes.items()}
    finally:
        memory.close()
    agent, after_last = _agent_steps(run)
    try:
        diagnosis = {d.step: mistakes(d) for d in diagnose(run).steps}
    except MissingOracle:  # a run recorded without the game's truth
        diagnosis = {}

    last_step = max([r["step"] for r in trajectory] + list(episodes) + [0])
    steps = []
    for record in trajectory:
        k = record["step"]
        row: dict[str, Any] = {
            "step": k,
            "action": record.get("action"),
            "observation": record.get("observation") or episodes.get(k, ""),
            "score": record.get("score", 0),
            "max_score": record.get("max_score", 0),
            "done": bool(record.get("done")),
            "won": bool(record.get("won")),
            "reason": record.get("reason") or "",
        }
        row.update(agent.get(k, {}))
        if diagnosis.get(k):
            row["diagnosis"] = diagnosis[k]
        steps.append(row)

    nodes, fact_rows = graph_data(entities, facts)
    result = meta.get("result") or {}
    usage = result.get("usage") or {}
    return {
        "run_id": run.run_id,
        "env": meta.get("env"),
        "seed": meta.get("seed"),
        # the game as named to a reader: a TextWorld seed, a ScienceWorld variation, a split where one was chosen
        "game": game_label(meta),
        "preset": system_label(
            str((meta.get("context") or {}).get("preset")), (meta.get("context") or {}).get("switch_overrides")
        ),
        "model": model_label(str((meta.get("context") or {}).get("model") or "")),
        "result": {k: result.get(k) for k in ("score", "max_score", "won", "lost", "steps") if k in result},
        "usage": usage,
        "totals": _usage_totals(usage),
        "after_last_step": after_last,
        "last_step": last_step,
        "steps": steps,
        "nodes": nodes,
        "facts": fact_rows,
    }


def graph_data(entities: dict[str, str], facts: Sequence[Fact]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The graph view's nodes (key, name, position in the unit square) and facts (ends, times, and a lane
    so parallel facts between two entities bend apart)."""
    positions = _layout(entities, facts)
    pair_count: dict[tuple[str, str], int] = {}
    fact_rows = []
    for fact in facts:
        pair = (min(fact.subject_key, fact.object_key), max(fact.subject_key, fact.object_key))
        index = pair_count.get(pair, 0)
        pair_count[pair] = index + 1
        fact_rows.append(
            {
                "id": fact.id,
                "s": fact.subject_key,
                "r": fact.relation,
                "o": fact.object_key,
                "text": f"{fact.subject} {fact.relation} {fact.object}",
                # visible at step k (exactly ``memory.as_of(k)``): start <= k < end
                "start": fact.held_span()[0],
                "end": fact.held_span()[1],
                "recorded": fact.recorded_at,
                "lane": index,
            }
        )
    nodes = [{"key": key, "name": entities.get(key, key), "x": x, "y": y} for key, (x, y) in sorted(positions.items())]
    return nodes, fact_rows


# -- page --------------------------------------------------------------------------------------------
# The page, its style and its script, each a file of report_page/ (package data): filled with the run's data as JSON
_PAGE_FILES = resources.files("ariadnegraph") / "report_page"
PAGE_PARTS = ("page.html", "page.css", "page.js")


def render_html(data: dict[str, Any]) -> str:
    blob = json.dumps(data, separators=(",", ":"), sort_keys=True)
    # Inside <script>: no "</script>" or "<!--" can end the element early.
    blob = blob.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = html.escape(f"ariadne report — {data['run_id']}")
    page, css, script = (_PAGE_FILES.joinpath(name).read_text(encoding="utf-8") for name in PAGE_PARTS)
    return page.replace("__TITLE__", title).replace("__CSS__", css).replace("__JS__", script).replace("__DATA__", blob)


def write_report(run_dir: str | Path, run_id: str, out: str | Path | None = None) -> Path:
    """Write the run's report (default ``<run_dir>/<run_id>/report.html``) and return its path.

    Nothing is written when the run is missing (:class:`~ariadnegraph.runs.RunNotFound`) or its memory
    is damaged (:class:`~ariadnegraph.memory.MemoryCorrupted`)."""
    own = Path(run_dir) / run_id / REPORT_FILE  # the one file a reader writes in a run's folder, its designated page
    target = check_output(out, "--out", own=own) if out is not None else own
    page = render_html(build_report_data(run_dir, run_id))
    write_output(target, page)
    return target
