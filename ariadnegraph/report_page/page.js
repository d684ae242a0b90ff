
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
