"""``ariadne report``: one self-contained HTML file for a run.

The page shows the trajectory step by step (observation, subgoal/plan, critic verdicts, action, score),
the score curve, tokens (and cost when the usage records one) per step, and the knowledge graph at any
step: a slider over ``as_of`` steps, with the facts added at that step highlighted and the facts closed
at that step drawn dashed. Everything (data, CSS, JS, SVG) is inline: the file opens without a network.
``?step=K`` in the page's URL selects step K on load.

The graph layout is computed here, once, over every entity the run ever saw (networkx ``spring_layout``
with a fixed seed), so nodes stay where they are while the slider moves.
"""

from __future__ import annotations

import html
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from .agent.integrity import checked_copies
from .evals.diagnostics import MissingOracle, diagnose, mistakes
from .models import model_label
from .runs import RunDir

REPORT_FILE = "report.html"
LAYOUT_SEED = 7
_TOKEN_KEYS = ("calls", "prompt_tokens", "completion_tokens")


# -- data --------------------------------------------------------------------------------------------
def _usage_diff(after: dict[str, dict[str, Any]], before: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    diff: dict[str, dict[str, float]] = {}
    for node, counts in (after or {}).items():
        prior = (before or {}).get(node, {})
        delta = {k: counts.get(k, 0) - prior.get(k, 0) for k in set(counts) | set(prior) if isinstance(counts.get(k, 0), (int, float))}
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
    from langgraph.checkpoint.sqlite import SqliteSaver

    from .graphs.agent import build_agent_graph

    connection = sqlite3.connect(path, check_same_thread=False)
    try:
        graph = build_agent_graph().compile(checkpointer=SqliteSaver(connection))
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
            verdicts.append({"approved": approved, "proposed": proposed, "feedback": "" if approved else after.get("feedback") or ""})
        if snapshot.next == ("environment",):
            # The state right before the environment produces observation ``step_index``.
            usage = values.get("usage") or {}
            per_node = _usage_diff(usage, previous_usage)
            steps[step_index] = {
                "subgoal": values.get("subgoal") or "",
                "plan": [dict(p) for p in values.get("plan") or []],
                "feedback": values.get("feedback") or "",
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


def _layout(entities: dict[str, str], facts: list[Any]) -> dict[str, tuple[float, float]]:
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
        return _report_data(RunDir.open(copies, run_id))


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
        row = {
            "step": k,
            "action": record.get("action"),
            "observation": record.get("observation") or episodes.get(k, ""),
            "score": record.get("score", 0),
            "max_score": record.get("max_score", 0),
            "done": bool(record.get("done")),
            "won": bool(record.get("won")),
        }
        row.update(agent.get(k, {}))
        if diagnosis.get(k):
            row["diagnosis"] = diagnosis[k]
        steps.append(row)

    positions = _layout(entities, facts)
    pair_count: dict[tuple[str, str], int] = {}
    fact_rows = []
    for fact in facts:
        pair = tuple(sorted((fact.subject_key, fact.object_key)))
        index = pair_count.get(pair, 0)  # type: ignore[arg-type]
        pair_count[pair] = index + 1  # type: ignore[index]
        fact_rows.append({
            "id": fact.id, "s": fact.subject_key, "r": fact.relation, "o": fact.object_key,
            "text": f"{fact.subject} {fact.relation} {fact.object}",
            # visible at step k (exactly ``memory.as_of(k)``): start <= k < end
            "start": max(fact.valid_from, fact.recorded_at), "end": fact.valid_to,
            "recorded": fact.recorded_at, "lane": index,
        })
    nodes = [{"key": key, "name": entities.get(key, key), "x": x, "y": y} for key, (x, y) in sorted(positions.items())]
    result = meta.get("result") or {}
    usage = result.get("usage") or {}
    return {
        "run_id": run.run_id,
        "env": meta.get("env"),
        "seed": meta.get("seed"),
        "preset": (meta.get("context") or {}).get("preset"),
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
    data = build_report_data(run_dir, run_id)
    page = render_html(data)
    target = Path(out) if out is not None else Path(run_dir) / run_id / REPORT_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, target)
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
  <div class="graph-row">
    <svg id="graph" viewBox="0 0 1000 640" role="img" aria-label="knowledge graph"></svg>
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
  <table id="timeline"><thead><tr><th>step</th><th>action</th><th>observation</th><th>subgoal / plan</th><th>critic</th><th>score</th><th>tokens</th></tr></thead><tbody></tbody></table>
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
#graph{flex:1 1 auto;min-width:0;background:#fff;border:1px solid #dfe3ea;border-radius:6px;max-height:78vh}
#side{flex:0 0 360px;max-height:78vh;overflow:auto;font-size:12px}
#facts{list-style:none;padding:0;margin:0}#facts li{padding:1px 4px;border-radius:3px}
#facts li.added{background:#dcf5e6}#facts li.closed{background:#fde2e1;text-decoration:line-through}
#graph line.fact,#graph path.fact{stroke:#8a94a6;stroke-width:1.4;fill:none;opacity:.8}
#graph .fact.added{stroke:#1a9e55;stroke-width:3;opacity:1}
#graph .fact.closed{stroke:#d0312d;stroke-width:2;stroke-dasharray:6 4;opacity:1}
#graph circle{fill:#c9d3e3;stroke:#5b6b86;stroke-width:1}
#graph g.node.active circle{fill:#5b8def;stroke:#27457d}
#graph g.node.touched circle{fill:#1a9e55}
#graph g.node text{font-size:11px;fill:#8a94a6;pointer-events:none}
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
.ok{color:#1a9e55}.no{color:#d0312d}.muted{color:#8a94a6}
"""

_JS = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("report-data").textContent);
  var NS = "http" + "://www.w3.org/2000/svg";
  var W = 1000, H = 640, PAD = 40;
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
    D.env + " (seed " + D.seed + ") \u00b7 preset " + D.preset + " \u00b7 model " + D.model +
    " \u00b7 score " + fmt(r.score || 0) + "/" + fmt(r.max_score || 0) + (r.won ? " \u00b7 won" : r.lost ? " \u00b7 lost" : "") +
    " \u00b7 " + (r.steps !== undefined ? r.steps : D.last_step) + " steps \u00b7 " + (T.calls || 0) + " model calls, " + (T.prompt_tokens || 0) +
    " prompt + " + (T.completion_tokens || 0) + " completion tokens" + (T.cost !== undefined ? " \u00b7 cost $" + T.cost : "");

  // graph
  var pos = {}, names = {};
  D.nodes.forEach(function (n) { pos[n.key] = [PAD + n.x * (W - 2 * PAD), PAD + n.y * (H - 2 * PAD)]; names[n.key] = n.name; });
  var graph = document.getElementById("graph");
  var edgeLayer = el("g", {id: "edges"}, graph), labelLayer = el("g", {id: "rels"}, graph), nodeLayer = el("g", {id: "nodes"}, graph);
  var nodeEls = {};
  D.nodes.forEach(function (n) {
    var p = pos[n.key], g = el("g", {"class": "node", "data-entity": n.key}, nodeLayer);
    el("circle", {cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: 6}, g);
    el("text", {x: (p[0] + 8).toFixed(1), y: (p[1] + 4).toFixed(1)}, g, n.name);
    el("title", {}, g, n.name);
    nodeEls[n.key] = g;
  });
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
    for (var key in nodeEls) {
      nodeEls[key].setAttribute("class", "node" + (active[key] ? " active" : "") + (touched[key] ? " touched" : ""));
    }
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
    (s.plan || []).forEach(function (p) { h("div", "muted", "\u2022 " + p.action + (p.expected ? " \u2192 " + p.expected : ""), plan); });
    (s.reflections || []).forEach(function (x) { h("div", "muted", "\u21ba " + x, plan); });
    var critic = h("td", "", null, tr);
    (s.critic || []).forEach(function (v) {
      h("div", v.approved ? "ok" : "no", (v.approved ? "\u2713 " : "\u2717 ") + (v.proposed || "") + (v.feedback ? ": " + v.feedback : ""), critic);
    });
    h("td", "num", fmt(s.score || 0) + "/" + fmt(s.max_score || 0) + (s.won ? " won" : ""), tr);
    var tk = s.tokens;
    h("td", "num", tk ? tokens(tk) + " (" + (tk.calls || 0) + " calls)" + (tk.cost !== undefined ? " $" + tk.cost : "") : "", tr);
    tr.addEventListener("click", function () { select(s.step, true); });
  });

  function detail(k) {
    var box = document.getElementById("step-detail"); box.textContent = "";
    var s = null; D.steps.forEach(function (x) { if (x.step === k) s = x; });
    if (!s) return;
    h("div", "", "Step " + k + ": " + (s.action || "(start)") + " \u2014 score " + fmt(s.score || 0) + "/" + fmt(s.max_score || 0), box);
    if (s.subgoal) h("div", "muted", "subgoal: " + s.subgoal, box);
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
  var m = /[?&]step=(-?\d+)/.exec(window.location.search);
  select(m ? parseInt(m[1], 10) : maxStep, false);
})();
"""
