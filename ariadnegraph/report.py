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
    with checked_copies(run_dir, [run_id]) as copies:
        data = _report_data(RunDir.open(copies, run_id))
    # calls.jsonl is left out of reading copies (it is large); a plain append-only file, read where it is
    calls, unreadable = read_calls(Path(run_dir) / run_id / CALLS_FILE)
    for row in data["steps"]:
        row["calls"] = calls.pop(row["step"], [])
    data["calls_unread"] = unreadable
    data["calls_elsewhere"] = sum(
        len(c) for c in calls.values()
    )  # made after the last recorded step (a reflection, a kill)
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
def render_html(data: dict[str, Any]) -> str:
    blob = json.dumps(data, separators=(",", ":"), sort_keys=True)
    # Inside <script>: no "</script>" or "<!--" can end the element early.
    blob = blob.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = html.escape(f"ariadne report — {data['run_id']}")
    return _PAGE.replace("__TITLE__", title).replace("__CSS__", _CSS).replace("__JS__", _JS).replace("__DATA__", blob)


def write_report(run_dir: str | Path, run_id: str, out: str | Path | None = None) -> Path:
    """Write the run's report (default ``<run_dir>/<run_id>/report.html``) and return its path.

    Nothing is written when the run is missing (:class:`~ariadnegraph.runs.RunNotFound`) or its memory
    is damaged (:class:`~ariadnegraph.memory.MemoryCorrupted`)."""
    own = Path(run_dir) / run_id / REPORT_FILE  # the one file a reader writes in a run's folder, its designated page
    target = check_output(out, "--out", own=own) if out is not None else own
    page = render_html(build_report_data(run_dir, run_id))
    write_output(target, page)
    return target


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>__CSS__</style>
</head>
<body>
<header><h1 id="title"></h1><p id="summary"></p></header>
<section id="graph-section">
  <div class="controls">
    <label for="step-slider">memory as of step</label>
    <input type="range" id="step-slider" min="0" max="0" value="0" step="1">
    <span id="step-label">0</span>
    <span class="legend"><span class="sw kept"></span>holds <span class="sw added"></span>added at this step <span class="sw closed"></span>closed at this step</span>
  </div>
  <div class="controls graph-tools">
    <input type="search" id="graph-search" placeholder="find an entity" aria-label="find an entity" autocomplete="off">
    <span id="search-status" class="muted"></span>
    <button type="button" id="zoom-in" title="zoom in">+</button><button type="button" id="zoom-out" title="zoom out">&minus;</button><button type="button" id="zoom-fit" title="the whole graph">fit</button>
    <span class="muted">drag to pan, wheel to zoom; Enter goes to the next match</span>
  </div>
  <div class="graph-row">
    <svg id="graph" role="img" aria-label="knowledge graph"><g id="viewport"></g></svg>
    <div id="side">
      <div id="step-detail"></div>
      <h3>Facts at this step <span id="fact-count"></span></h3>
      <ul id="facts"></ul>
    </div>
  </div>
</section>
<section>
  <h2>Score</h2>
  <svg id="score-curve" viewBox="0 0 1000 180" role="img" aria-label="score curve"></svg>
  <h2>Tokens per step</h2>
  <svg id="token-bars" viewBox="0 0 1000 140" role="img" aria-label="tokens per step"></svg>
</section>
<section>
  <h2>Trajectory</h2>
  <table id="timeline"><thead><tr><th>step</th><th>action</th><th>observation</th><th>subgoal / plan</th><th>critic</th><th>score</th><th>tokens</th><th>model calls</th></tr></thead><tbody></tbody></table>
</section>
<script type="application/json" id="report-data">__DATA__</script>
<script>__JS__</script>
</body>
</html>
"""

_CSS = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;padding:0 18px 40px;color:#1d2330;background:#fafbfc}
h1{font-size:20px;margin:16px 0 4px}h2{font-size:16px;margin:22px 0 6px}h3{font-size:14px;margin:10px 0 4px}
#summary{margin:0;color:#4a5568}
.controls{display:flex;align-items:center;gap:10px;margin:12px 0 6px;flex-wrap:wrap}
#step-slider{width:340px}#step-label{font-weight:600;min-width:2em}
.legend{color:#4a5568;font-size:12px;display:inline-flex;gap:6px;align-items:center}
.sw{display:inline-block;width:22px;height:0;border-top:3px solid #8a94a6;margin-left:8px}
.sw.added{border-color:#1a9e55}.sw.closed{border-top:3px dashed #d0312d}
.graph-row{display:flex;gap:14px;align-items:flex-start}
#graph{flex:1 1 auto;min-width:0;height:72vh;background:#fff;border:1px solid #dfe3ea;border-radius:6px;cursor:grab;touch-action:none;user-select:none}
#graph.panning{cursor:grabbing}
.graph-tools button{min-width:30px;padding:2px 8px}#graph-search{width:220px;padding:3px 6px}
#side{flex:0 0 360px;max-height:78vh;overflow:auto;font-size:12px}
#facts{list-style:none;padding:0;margin:0}#facts li{padding:1px 4px;border-radius:3px}
#facts li.added{background:#dcf5e6}#facts li.closed{background:#fde2e1;text-decoration:line-through}
#graph path.fact{stroke:#8a94a6;stroke-width:1.4;fill:none;opacity:.8;vector-effect:non-scaling-stroke}
#graph .fact.added{stroke:#1a9e55;stroke-width:3;opacity:1}
#graph .fact.closed{stroke:#d0312d;stroke-width:2;stroke-dasharray:6 4;opacity:1}
#graph circle{fill:#c9d3e3;stroke:#5b6b86;stroke-width:1;vector-effect:non-scaling-stroke}
#graph g.node.active circle{fill:#5b8def;stroke:#27457d}
#graph g.node.touched circle{fill:#1a9e55}
#graph g.node text{fill:#8a94a6;pointer-events:none;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
#graph.far g.node text{display:none}
#graph.far g.node.touched text,#graph.far g.node.hub text,#graph g.node.match text{display:inline}
#graph.searching g.node:not(.match){opacity:.25}#graph.searching path.fact{opacity:.25}
#graph g.node.match circle{fill:#f5a623;stroke:#8a5a00;stroke-width:2}
#graph g.node.match text{fill:#1d2330;font-weight:700}
#graph g.node.active text{fill:#1d2330}
#graph text.rel{font-size:9px;fill:#1a9e55}
#score-curve,#token-bars{width:100%;background:#fff;border:1px solid #dfe3ea;border-radius:6px}
.axis{stroke:#b8c0cc;stroke-width:1}.tick{font-size:10px;fill:#6b7588}
.curve{fill:none;stroke:#5b8def;stroke-width:2}.maxline{stroke:#1a9e55;stroke-dasharray:4 3}
.cursor{stroke:#d0312d;stroke-width:1.5}.bar{fill:#9fb5dd}.bar.sel{fill:#d0312d}
table{border-collapse:collapse;width:100%;background:#fff;font-size:12px}
th,td{border:1px solid #e2e6ee;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#eef1f6;position:sticky;top:0}
tr.sel td{background:#fff7d6}tbody tr{cursor:pointer}
td.obs{white-space:pre-wrap;max-width:460px}td.num{text-align:right;white-space:nowrap}
details.calls summary,details.call summary{cursor:pointer;color:#27457d}
details.call{margin:4px 0 4px 10px}.msg{margin:3px 0}.msg b{font-size:11px;color:#4a5568}
.msg pre{white-space:pre-wrap;word-break:break-word;max-height:320px;overflow:auto;background:#f4f6fa;margin:2px 0;padding:4px;font-size:11px}
td.calls-cell{min-width:160px;max-width:560px}.why{color:#4a5568;font-style:italic}
.ok{color:#1a9e55}.no{color:#d0312d}.muted{color:#8a94a6}
"""

_JS = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("report-data").textContent);
  var NS = "http" + "://www.w3.org/2000/svg";
  function el(tag, attrs, parent, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function h(tag, cls, text, parent) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(n) { return (Math.round(n * 100) / 100).toString(); }
  function tokens(t) { return t ? (t.prompt_tokens || 0) + (t.completion_tokens || 0) : 0; }

  // header
  document.getElementById("title").textContent = "Run " + D.run_id;
  var r = D.result || {}, T = D.totals || {};
  document.getElementById("summary").textContent =
    D.game + " \u00b7 preset " + D.preset + " \u00b7 model " + D.model +
    " \u00b7 score " + fmt(r.score || 0) + "/" + fmt(r.max_score || 0) + (r.won ? " \u00b7 won" : r.lost ? " \u00b7 lost" : "") +
    " \u00b7 " + (r.steps !== undefined ? r.steps : D.last_step) + " steps \u00b7 " + (T.calls || 0) + " model calls, " + (T.prompt_tokens || 0) +
    " prompt + " + (T.completion_tokens || 0) + " completion tokens" + (T.cost !== undefined ? " \u00b7 cost $" + T.cost : "") +
    (D.calls_unread ? " \u00b7 " + D.calls_unread + " unreadable lines in calls.jsonl" : "") +
    (D.calls_elsewhere ? " \u00b7 " + D.calls_elsewhere + " model calls after the last recorded step (the final observation read into memory, or a step cut off by a kill)" : "");

  // graph: world coordinates grow with the node count, so hundreds of nodes keep room between them
  var N = Math.max(1, D.nodes.length), W = Math.max(1000, 80 * Math.sqrt(N)), H = W * 0.64, PAD = 40;
  var pos = {}, names = {};
  D.nodes.forEach(function (n) { pos[n.key] = [PAD + n.x * (W - 2 * PAD), PAD + n.y * (H - 2 * PAD)]; names[n.key] = n.name; });
  var graph = document.getElementById("graph"), viewport = document.getElementById("viewport");
  var edgeLayer = el("g", {id: "edges"}, viewport), labelLayer = el("g", {id: "rels"}, viewport), nodeLayer = el("g", {id: "nodes"}, viewport);
  var nodeEls = {}, circles = [], nodeState = {}, matches = [], matchAt = -1;
  D.nodes.forEach(function (n) {
    var p = pos[n.key], g = el("g", {"class": "node", "data-entity": n.key}, nodeLayer);
    circles.push(el("circle", {cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: 6}, g));
    el("text", {x: (p[0] + 8).toFixed(1), y: (p[1] + 4).toFixed(1)}, g, n.name);
    el("title", {}, g, n.name);
    nodeEls[n.key] = g;
  });
  // the best-connected entities (rooms, the player) keep their labels in the overview as landmarks
  var degree = {}, hubs = {};
  D.facts.forEach(function (f) { degree[f.s] = (degree[f.s] || 0) + 1; degree[f.o] = (degree[f.o] || 0) + 1; });
  Object.keys(nodeEls).filter(function (key) { return (degree[key] || 0) >= 3; })
    .sort(function (a, b) { return degree[b] - degree[a]; }).slice(0, Math.ceil(Math.sqrt(N)))
    .forEach(function (key) { hubs[key] = true; });
  function paintNodes() {
    var matched = {};
    matches.forEach(function (key) { matched[key] = true; });
    for (var key in nodeEls) {
      var st = nodeState[key] || "";
      nodeEls[key].setAttribute("class", "node" + st + (hubs[key] ? " hub" : "") + (matched[key] ? " match" : ""));
    }
  }

  // pan and zoom: one transform on the viewport group (screen = world * k + t)
  var view = {k: 1, x: 0, y: 0}, K_MIN = 0.05, K_MAX = 12;
  function box() { var r = graph.getBoundingClientRect(); return {w: r.width || 1000, h: r.height || 640, left: r.left, top: r.top}; }
  function apply() {
    viewport.setAttribute("transform", "translate(" + view.x.toFixed(2) + "," + view.y.toFixed(2) + ") scale(" + view.k.toFixed(4) + ")");
    // text and dots keep a readable size on screen at any zoom
    nodeLayer.setAttribute("font-size", (11 / view.k).toFixed(3));
    labelLayer.setAttribute("font-size", (9 / view.k).toFixed(3));
    var r = ((3 + 3 * Math.min(1, view.k)) / view.k).toFixed(3);
    circles.forEach(function (c) { c.setAttribute("r", r); });
    // every label only once the zoom leaves about 70 px between neighbours
    graph.classList.toggle("far", view.k * W / Math.sqrt(N) < 70);
  }
  function zoomAt(factor, px, py) {
    var k = Math.max(K_MIN, Math.min(K_MAX, view.k * factor));
    view.x = px - (px - view.x) * (k / view.k); view.y = py - (py - view.y) * (k / view.k); view.k = k;
    apply();
  }
  function fit() {
    var b = box(), xs = [], ys = [];
    for (var key in pos) { xs.push(pos[key][0]); ys.push(pos[key][1]); }
    if (!xs.length) { xs = [0, W]; ys = [0, H]; }
    var x0 = Math.min.apply(null, xs) - 30, x1 = Math.max.apply(null, xs) + 90, y0 = Math.min.apply(null, ys) - 30, y1 = Math.max.apply(null, ys) + 30;
    view.k = Math.max(K_MIN, Math.min(2, b.w / (x1 - x0), b.h / (y1 - y0)));  // a small graph is not blown up
    view.x = (b.w - (x1 - x0) * view.k) / 2 - x0 * view.k; view.y = (b.h - (y1 - y0) * view.k) / 2 - y0 * view.k;
    apply();
  }
  function centreOn(key, minZoom) {
    var b = box(), p = pos[key];
    if (!p) return;
    view.k = Math.max(view.k, minZoom || 0);
    view.x = b.w / 2 - p[0] * view.k; view.y = b.h / 2 - p[1] * view.k;
    apply();
  }
  graph.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var b = box();
    zoomAt(Math.exp(-ev.deltaY * 0.0015), ev.clientX - b.left, ev.clientY - b.top);
  }, {passive: false});
  var drag = null;
  graph.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) return;
    drag = {x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y};
    graph.setPointerCapture(ev.pointerId); graph.classList.add("panning");
  });
  graph.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    view.x = drag.vx + ev.clientX - drag.x; view.y = drag.vy + ev.clientY - drag.y;
    apply();
  });
  function endDrag() { drag = null; graph.classList.remove("panning"); }
  graph.addEventListener("pointerup", endDrag); graph.addEventListener("pointercancel", endDrag);
  function zoomCentre(factor) { var b = box(); zoomAt(factor, b.w / 2, b.h / 2); }
  document.getElementById("zoom-in").addEventListener("click", function () { zoomCentre(1.4); });
  document.getElementById("zoom-out").addEventListener("click", function () { zoomCentre(1 / 1.4); });
  document.getElementById("zoom-fit").addEventListener("click", fit);

  // search: every entity whose name or key holds the text is highlighted; the view centres on one
  var search = document.getElementById("graph-search"), status = document.getElementById("search-status");
  function runSearch(next) {
    var q = search.value.trim().toLowerCase();
    if (!next) {
      matches = q ? D.nodes.filter(function (n) { return n.name.toLowerCase().indexOf(q) >= 0 || n.key.toLowerCase().indexOf(q) >= 0; })
                            .map(function (n) { return n.key; }) : [];
      matchAt = -1;
    }
    graph.classList.toggle("searching", !!q);
    paintNodes();
    status.textContent = !q ? "" : matches.length ? matches.length + (matches.length === 1 ? " match" : " matches") : "no match";
    if (matches.length) {
      matchAt = (matchAt + 1) % matches.length;
      centreOn(matches[matchAt], 1.5);
      if (matches.length > 1) status.textContent += " (" + (matchAt + 1) + " shown: " + names[matches[matchAt]] + ")";
    }
  }
  search.addEventListener("input", function () { runSearch(false); });
  search.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); runSearch(true); } });

  function edgePath(f) {
    var a = pos[f.s], b = pos[f.o];
    if (!a || !b) return null;
    if (f.s === f.o) {  // self-loop
      var x = a[0], y = a[1];
      return {d: "M" + x + "," + (y - 6) + " c -22,-34 22,-34 0,0", mx: x, my: y - 30};
    }
    var dx = b[0] - a[0], dy = b[1] - a[1], len = Math.sqrt(dx * dx + dy * dy) || 1;
    var side = f.lane % 2 ? -1 : 1, bend = Math.ceil(f.lane / 2) * 18 * side;
    if (f.s > f.o) bend = -bend;
    var cx = (a[0] + b[0]) / 2 - dy / len * bend, cy = (a[1] + b[1]) / 2 + dx / len * bend;
    return {d: "M" + a[0].toFixed(1) + "," + a[1].toFixed(1) + " Q" + cx.toFixed(1) + "," + cy.toFixed(1) + " " + b[0].toFixed(1) + "," + b[1].toFixed(1),
            mx: (a[0] + 2 * cx + b[0]) / 4, my: (a[1] + 2 * cy + b[1]) / 4};
  }
  function visible(f, k) { return f.start <= k && (f.end === null || k < f.end); }
  function closedAt(f, k) { return f.end === k && f.recorded <= k; }
  function addedAt(f, k) { return visible(f, k) && f.recorded === k; }

  var slider = document.getElementById("step-slider"), label = document.getElementById("step-label");
  var steps = D.steps.map(function (s) { return s.step; });
  var maxStep = Math.max(D.last_step || 0, steps.length ? steps[steps.length - 1] : 0);
  slider.max = String(maxStep);

  function drawGraph(k) {
    edgeLayer.textContent = ""; labelLayer.textContent = "";
    var list = document.getElementById("facts"); list.textContent = "";
    var active = {}, touched = {}, shown = 0;
    D.facts.forEach(function (f) {
      var cls = visible(f, k) ? (addedAt(f, k) ? "added" : "kept") : closedAt(f, k) ? "closed" : null;
      if (!cls) return;
      var geo = edgePath(f);
      if (geo) {
        var e = el("path", {"class": "fact " + cls, d: geo.d, "data-fact": f.id}, edgeLayer);
        el("title", {}, e, f.text + (cls === "closed" ? " (closed at step " + k + ")" : ""));
        if (cls === "added") el("text", {"class": "rel", x: geo.mx.toFixed(1), y: geo.my.toFixed(1)}, labelLayer, f.r);
      }
      if (cls !== "closed") { active[f.s] = active[f.o] = true; shown++; }
      if (cls !== "kept") touched[f.s] = touched[f.o] = true;
      var li = h("li", cls, (cls === "added" ? "+ " : cls === "closed" ? "\u2212 " : "\u00a0 ") + f.text, list);
      li.setAttribute("data-fact", f.id);
    });
    nodeState = {};
    for (var key in nodeEls) nodeState[key] = (active[key] ? " active" : "") + (touched[key] ? " touched" : "");
    paintNodes();
    document.getElementById("fact-count").textContent = "(" + shown + ")";
  }

  // score curve
  var sc = document.getElementById("score-curve"), SW = 1000, SH = 180, SP = 34;
  var maxScore = Math.max.apply(null, [1].concat(D.steps.map(function (s) { return s.max_score || 0; }), D.steps.map(function (s) { return s.score || 0; })));
  function sx(k) { return SP + (maxStep ? k / maxStep : 0) * (SW - 2 * SP); }
  function sy(v) { return SH - SP + 10 - (v / maxScore) * (SH - 2 * SP); }
  el("line", {"class": "axis", x1: SP, y1: sy(0), x2: SW - SP, y2: sy(0)}, sc);
  el("line", {"class": "axis", x1: SP, y1: sy(0), x2: SP, y2: sy(maxScore)}, sc);
  el("line", {"class": "maxline", x1: SP, y1: sy(maxScore), x2: SW - SP, y2: sy(maxScore)}, sc);
  el("text", {"class": "tick", x: 4, y: sy(maxScore) + 4}, sc, fmt(maxScore));
  el("text", {"class": "tick", x: 4, y: sy(0) + 4}, sc, "0");
  var tickEvery = Math.max(1, Math.ceil(maxStep / 20));
  for (var t = 0; t <= maxStep; t += tickEvery) el("text", {"class": "tick", x: sx(t) - 4, y: SH - 4}, sc, String(t));
  var pts = D.steps.map(function (s) { return sx(s.step).toFixed(1) + "," + sy(s.score || 0).toFixed(1); }).join(" ");
  el("polyline", {"class": "curve", points: pts}, sc);
  D.steps.forEach(function (s) { el("circle", {cx: sx(s.step).toFixed(1), cy: sy(s.score || 0).toFixed(1), r: 2.5, fill: "#5b8def"}, sc); });
  var cursor = el("line", {"class": "cursor", x1: 0, y1: 8, x2: 0, y2: SH - 20}, sc);

  // token bars
  var tb = document.getElementById("token-bars"), BH = 140;
  var maxTok = Math.max.apply(null, [1].concat(D.steps.map(function (s) { return tokens(s.tokens); })));
  var barW = Math.max(2, (SW - 2 * SP) / (maxStep + 1) * 0.7), bars = {};
  el("line", {"class": "axis", x1: SP, y1: BH - 20, x2: SW - SP, y2: BH - 20}, tb);
  el("text", {"class": "tick", x: 2, y: 16}, tb, String(maxTok));
  D.steps.forEach(function (s) {
    var v = tokens(s.tokens), hgt = v / maxTok * (BH - 36);
    var b = el("rect", {"class": "bar", x: (sx(s.step) - barW / 2).toFixed(1), y: (BH - 20 - hgt).toFixed(1), width: barW.toFixed(1), height: hgt.toFixed(1)}, tb);
    el("title", {}, b, "step " + s.step + ": " + v + " tokens");
    bars[s.step] = b;
  });

  // timeline
  var tbody = document.querySelector("#timeline tbody"), rows = {};
  D.steps.forEach(function (s) {
    var tr = h("tr", "", null, tbody); tr.setAttribute("data-step", s.step); rows[s.step] = tr;
    h("td", "num", String(s.step), tr);
    h("td", "", s.action || "(start)", tr);
    h("td", "obs", s.observation || "", tr);
    var plan = h("td", "", null, tr);
    if (s.subgoal) h("div", "", "\u25b8 " + s.subgoal, plan);
    if (s.reason && s.reason !== s.subgoal) h("div", "why", "why: " + s.reason, plan);
    (s.plan || []).forEach(function (p) { h("div", "muted", "\u2022 " + p.action + (p.expected ? " \u2192 " + p.expected : ""), plan); });
    (s.reflections || []).forEach(function (x) { h("div", "muted", "\u21ba " + x, plan); });
    var critic = h("td", "", null, tr);
    (s.critic || []).forEach(function (v) {
      h("div", v.approved ? "ok" : "no", (v.approved ? "\u2713 " : "\u2717 ") + (v.proposed || "") + (v.feedback ? ": " + v.feedback : ""), critic);
    });
    h("td", "num", fmt(s.score || 0) + "/" + fmt(s.max_score || 0) + (s.won ? " won" : ""), tr);
    var tk = s.tokens;
    h("td", "num", tk ? tokens(tk) + " (" + (tk.calls || 0) + " calls)" + (tk.cost !== undefined ? " $" + tk.cost : "") : "", tr);
    callsCell(s, h("td", "calls-cell", null, tr));
    tr.addEventListener("click", function () { select(s.step, true); });
  });

  // a step's model calls, collapsed; their prompts are put in the page only when opened
  function callsCell(s, td) {
    var calls = s.calls || [];
    if (!calls.length) return;
    var count = {};
    calls.forEach(function (c) { count[c.node] = (count[c.node] || 0) + 1; });
    var box = h("details", "calls", null, td);
    h("summary", "", calls.length + (calls.length === 1 ? " call: " : " calls: ") +
      Object.keys(count).map(function (n) { return n + (count[n] > 1 ? " \u00d7" + count[n] : ""); }).join(", "), box);
    box.addEventListener("toggle", function () {
      if (!box.open || box.getAttribute("data-filled")) return;
      box.setAttribute("data-filled", "1");
      calls.forEach(function (c) { renderCall(c, box); });
    });
  }
  function renderCall(c, parent) {
    var u = c.usage || {}, o = c.outcome || {};
    var call = h("details", "call", null, parent);
    h("summary", "", [c.node, c.model, (u.prompt_tokens || 0) + "+" + (u.completion_tokens || 0) + " tokens",
                      c.latency_ms !== null && c.latency_ms !== undefined ? Math.round(c.latency_ms) + " ms" : "",
                      o.outcome ? o.outcome + (o.tries > 1 ? " after " + o.tries + " tries" : "") : "", c.error ? "error" : ""]
      .filter(function (x) { return x; }).join(" \u00b7 "), call);
    (c.prompt || []).forEach(function (m) { message(m, call, m.role); });
    if (c.reply) message(c.reply, call, "reply");
    if (c.error) message({content: c.error}, call, "error");
    if (o.errors && o.errors.length) message({content: o.errors.join("\n")}, call, "reply problems");
  }
  function message(m, parent, label) {
    var div = h("div", "msg", null, parent);
    h("b", "", label, div);
    var text = typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 1);
    if (m.tool_calls) text += (text ? "\n" : "") + m.tool_calls.map(function (t) { return t.name + " " + JSON.stringify(t.args, null, 1); }).join("\n");
    h("pre", "", text, div);
  }

  function detail(k) {
    var box = document.getElementById("step-detail"); box.textContent = "";
    var s = null; D.steps.forEach(function (x) { if (x.step === k) s = x; });
    if (!s) return;
    h("div", "", "Step " + k + ": " + (s.action || "(start)") + " \u2014 score " + fmt(s.score || 0) + "/" + fmt(s.max_score || 0), box);
    if (s.subgoal) h("div", "muted", "subgoal: " + s.subgoal, box);
    if (s.reason && s.reason !== s.subgoal) h("div", "why", "why: " + s.reason, box);
    (s.critic || []).forEach(function (v) {
      h("div", v.approved ? "ok" : "no", "critic " + (v.approved ? "\u2713 " : "\u2717 ") + (v.proposed || "") + (v.feedback ? ": " + v.feedback : ""), box);
    });
    if (s.diagnosis) h("div", "muted", "diagnosis: " + s.diagnosis.join("; "), box);
  }

  function select(k, fromUser) {
    k = Math.max(0, Math.min(maxStep, k | 0));
    slider.value = String(k);
    label.textContent = String(k);
    drawGraph(k); detail(k);
    cursor.setAttribute("x1", sx(k).toFixed(1)); cursor.setAttribute("x2", sx(k).toFixed(1));
    for (var b in bars) bars[b].setAttribute("class", "bar" + (+b === k ? " sel" : ""));
    for (var q in rows) rows[q].className = +q === k ? "sel" : "";
    if (fromUser && history.replaceState) {
      try { history.replaceState(null, "", "?step=" + k); } catch (e) { /* file:// in some browsers */ }
    }
  }
  slider.addEventListener("input", function () { select(+slider.value, true); });
  fit();
  window.addEventListener("resize", fit);
  var m = /[?&]step=(-?\d+)/.exec(window.location.search);
  select(m ? parseInt(m[1], 10) : maxStep, false);
})();
"""
