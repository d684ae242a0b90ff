"""`write_report`: one self-contained HTML file per run, checked as rendered by headless Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.memory import WorldMemory
from ariadnegraph.memory.facts import Fact
from ariadnegraph.memory.world import MEMORY_FILE
from ariadnegraph.play import Episode, play
from ariadnegraph.report import build_report_data, graph_data, render_html, write_report
from ariadnegraph.runs import RunCorrupted, RunDir, RunNotFound

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = os.environ.get("ARIADNE_REPORT_SCREENSHOT")  # keep the slider test's screenshot here (to look at it)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, str]:
    run_dir = tmp_path_factory.mktemp("report-runs")
    # ariadne_full: every role runs, so the page has a belief, a graph, plans and the critic's verdicts to show
    result = play(Episode("cooking:1", seed=1, max_steps=8), context=AgentContext(preset="ariadne_full", run_dir=str(run_dir)))
    return run_dir, result["run_id"]


# Headless Chromium as root, offline: no sandbox, no GPU, no background connections to Google.
CHROMIUM_FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run")


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by playwright (which never downloads a browser of its own)."""
    playwright = pytest.importorskip("playwright.sync_api", reason="needs playwright (the dev extra)")
    if not CHROMIUM.exists():
        pytest.skip("needs /usr/bin/chromium (Debian package chromium)")
    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_FLAGS))
        yield launched
        launched.close()


def _page(browser):
    """A new page that records the page's script errors in ``page.errors``."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


def test_report_is_self_contained_and_embeds_the_run(played):
    run_dir, run_id = played
    path = write_report(run_dir, run_id)
    assert path == run_dir / run_id / "report.html"
    page = path.read_text()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", page, re.IGNORECASE)
    assert not re.search(r"@import|url\(\s*['\"]?https?:", page, re.IGNORECASE)
    blob = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.DOTALL)
    assert blob is not None
    data = json.loads(blob.group(1))
    assert data["run_id"] == run_id
    meta = json.loads((run_dir / run_id / "run.json").read_text())
    assert data["game"] == f"{meta['env']}, seed {meta['seed']}"
    assert "D.game" in page
    assert "(seed \" + D.seed" not in page
    memory = WorldMemory.open(run_dir / run_id / "memory")
    try:
        assert len(data["facts"]) == len(memory.kg)
        assert len(data["nodes"]) == len(memory.kg.entities)
    finally:
        memory.close()
    assert [s["step"] for s in data["steps"]] == list(range(9))
    assert data["steps"][1]["action"]
    assert data["steps"][1]["subgoal"]
    assert data["steps"][1]["critic"]
    # tokens per step add up to the run's total
    spent = sum(s["tokens"]["prompt_tokens"] for s in data["steps"]) + (data["after_last_step"] or {}).get("tokens", {}).get("prompt_tokens", 0)
    assert spent == data["totals"]["prompt_tokens"] > 0


def test_report_renders_the_graph_at_the_step_in_its_address(played, tmp_path, browser):
    """``?step=K`` opens the report on step K (a link to one moment of the run)."""
    run_dir, run_id = played
    path = write_report(run_dir, run_id, out=tmp_path / "out" / "r.html")
    memory = WorldMemory.open(run_dir / run_id / "memory")
    page = _page(browser)
    try:
        added = {k: {f.id for f in memory.kg.all_facts if f.recorded_at == k} for k in range(9)}
        closed = {k: {f.id for f in memory.kg.all_facts if f.valid_to == k} for k in range(9)}
        chosen = [k for k in range(1, 9) if added[k]][:2]
        assert len(chosen) == 2
        for k in chosen:
            page.goto(f"{path.as_uri()}?step={k}")
            edges = _drawn(page)
            assert page.text_content("#step-label").strip() == str(k)
            shown = {fact for fact, classes in edges if "closed" not in classes}
            assert len(shown) == len(memory.as_of(k))
            assert shown == set(memory.as_of(k).facts)
            assert {fact for fact, classes in edges if "added" in classes} == added[k]
            assert {fact for fact, classes in edges if "closed" in classes} == closed[k]
        assert page.errors == []
    finally:
        page.close()
        memory.close()


def _drawn(page) -> list[tuple[int, set[str]]]:
    """(fact id, classes) of every edge drawn in the graph view."""
    edges = page.eval_on_selector_all("#graph [data-fact]", "els => els.map(e => [+e.dataset.fact, e.getAttribute('class')])")
    return [(fact, set(classes.split())) for fact, classes in edges]


def test_the_slider_and_the_trajectory_drive_the_graph_view(played, tmp_path, browser):
    """A real browser, real input: keys on the slider and a click on a trajectory row redraw the graph
    as memory knew it at that step (facts added then in green, closed then in red)."""
    run_dir, run_id = played
    path = write_report(run_dir, run_id, out=tmp_path / "r.html")
    memory = WorldMemory.open(run_dir / run_id / "memory")
    try:
        last = max(memory.episodes)
        expected = {k: ({f.id for f in memory.as_of(k).facts.values()},
                        {f.id for f in memory.kg.all_facts if f.recorded_at == k and f.valid_at(k)},
                        {f.id for f in memory.kg.all_facts if f.valid_to == k}) for k in range(last + 1)}
    finally:
        memory.close()

    def check(page, k: int) -> None:
        assert page.input_value("#step-slider") == str(k)
        assert page.text_content("#step-label").strip() == str(k)
        edges = _drawn(page)
        shown, added, closed = expected[k]
        assert {f for f, c in edges if "closed" not in c} == shown, k
        assert {f for f, c in edges if "added" in c} == added, k
        assert {f for f, c in edges if "closed" in c} == closed, k
        assert page.locator("#timeline tr.sel").get_attribute("data-step") == str(k)

    page = _page(browser)
    try:
        page.goto(path.as_uri())
        check(page, last)  # opens on the last step
        page.focus("#step-slider")
        page.keyboard.press("Home")
        check(page, 0)
        moved = [k for k in range(1, last + 1) if expected[k][1] or expected[k][2]]
        assert len(moved) >= 2, "the episode should add or close facts on several steps"
        position = 0
        for k in moved[:3]:
            for _ in range(k - position):
                page.keyboard.press("ArrowRight")
            position = k
            check(page, k)
        page.click(f"#timeline tr[data-step='{moved[0]}']")  # a trajectory row selects its step
        check(page, moved[0])
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SCREENSHOT or tmp_path / "report.png"), full_page=False)
        assert page.errors == []
    finally:
        page.close()
    assert Path(SCREENSHOT or tmp_path / "report.png").stat().st_size > 10_000


def test_missing_run_writes_nothing(tmp_path):
    with pytest.raises(RunNotFound, match="no run 'nope'"):
        write_report(tmp_path, "nope")
    assert list(tmp_path.iterdir()) == []


def test_corrupted_memory_propagates_and_writes_nothing(played, tmp_path):
    run_dir, run_id = played
    copy = tmp_path / run_id
    shutil.copytree(run_dir / run_id, copy, ignore=shutil.ignore_patterns("report.html"))
    (copy / "memory" / MEMORY_FILE).write_bytes(b"this is not a database" * 100)
    for extra in (copy / "memory").glob(MEMORY_FILE + "-*"):
        extra.unlink()
    with pytest.raises(RunCorrupted, match="memory/memory.sqlite is damaged"):
        write_report(tmp_path, run_id)
    assert not (copy / "report.html").exists()


# -- the graph view at hundreds of nodes: pan, zoom, search ------------------------------------------
_TRANSFORM = re.compile(r"translate\(([-\d.]+),([-\d.]+)\) scale\(([-\d.]+)\)")


def _view(page) -> tuple[float, float, float]:
    found = _TRANSFORM.fullmatch(page.get_attribute("#viewport", "transform") or "")
    assert found, page.get_attribute("#viewport", "transform")
    x, y, k = found.groups()
    return float(x), float(y), float(k)


def _centre(page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _big_graph() -> tuple[dict[str, str], list[Fact]]:
    """300 entities: 30 rooms in a ring, each holding 9 items."""
    entities: dict[str, str] = {}
    facts: list[Fact] = []

    def fact(s: str, r: str, o: str) -> None:
        facts.append(Fact(id=len(facts) + 1, subject=entities[s], relation=r, object=entities[o], subject_key=s, object_key=o,
                          valid_from=0, recorded_at=0))

    for room in range(30):
        entities[f"room-{room}"] = f"Room {room}"
    for room in range(30):
        fact(f"room-{room}", "east of", f"room-{(room + 1) % 30}")
        for slot in range(9):
            item = room * 9 + slot
            entities[f"item-{item}"] = f"item {item}"
            fact(f"item-{item}", "in", f"room-{room}")
    return entities, facts


@pytest.fixture(scope="module")
def big_report(played, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The played run's report with its graph replaced by a 300-entity one (laid out as any run's is)."""
    run_dir, run_id = played
    data = build_report_data(run_dir, run_id)
    entities, facts = _big_graph()
    data["nodes"], data["facts"] = graph_data(entities, facts)
    path = tmp_path_factory.mktemp("big") / "big.html"
    path.write_text(render_html(data))
    return path, entities


def test_a_300_node_graph_pans_zooms_and_searches(big_report, browser):
    path, entities = big_report
    page = _page(browser)
    try:
        page.goto(path.as_uri())
        assert page.locator("#graph g.node").count() == len(entities) == 300
        svg = page.locator("#graph").bounding_box()
        assert svg is not None
        middle = (svg["x"] + svg["width"] / 2, svg["y"] + svg["height"] / 2)
        # it opens fitted: every node on screen, and too small for every label, so labels wait for the zoom
        for key in ("room-0", "item-0", "item-150", "item-269"):
            x, y = _centre(page, f"#graph g.node[data-entity='{key}'] circle")
            assert svg["x"] <= x <= svg["x"] + svg["width"], key
            assert svg["y"] <= y <= svg["y"] + svg["height"], key
        assert "far" in (page.get_attribute("#graph", "class") or "")
        assert not page.locator("#graph g.node[data-entity='item-150'] text").is_visible()
        fitted = _view(page)

        # search: the one match is highlighted, the view centres on it and zooms in far enough to read it
        page.fill("#graph-search", "item 217")
        assert page.text_content("#search-status").strip() == "1 match"
        assert page.eval_on_selector_all("#graph g.node.match", "els => els.map(e => e.dataset.entity)") == ["item-217"]
        x, y = _centre(page, "#graph g.node[data-entity='item-217'] circle")
        assert abs(x - middle[0]) < 2
        assert abs(y - middle[1]) < 2
        searched = _view(page)
        assert searched != fitted
        assert searched[2] >= 1.5
        assert page.locator("#graph g.node[data-entity='item-217'] text").is_visible()
        # a text several entities hold: all of them, as many as Python counts
        page.fill("#graph-search", "room 1")
        expected = sorted(k for k, name in entities.items() if "room 1" in name.lower() or "room 1" in k)
        assert sorted(page.eval_on_selector_all("#graph g.node.match", "els => els.map(e => e.dataset.entity)")) == expected
        assert page.text_content("#search-status").startswith(f"{len(expected)} matches")
        page.press("#graph-search", "Enter")  # the next match is centred
        shown = _shown(page)
        assert shown in expected and shown != expected[0] or len(expected) == 1
        x, y = _centre(page, f"#graph g.node[data-entity='{shown}'] circle")
        assert abs(x - middle[0]) < 2
        assert abs(y - middle[1]) < 2

        # the wheel zooms in about the pointer: the node under it stays put while the scale grows
        page.fill("#graph-search", "item 217")
        page.mouse.move(*middle)
        before, shown_before = _view(page), page.get_attribute("#viewport", "transform")
        page.mouse.wheel(0, -400)
        page.wait_for_function(f"document.getElementById('viewport').getAttribute('transform') !== {json.dumps(shown_before)}")
        after = _view(page)
        assert after[2] > before[2] * 1.5
        x, y = _centre(page, "#graph g.node[data-entity='item-217'] circle")
        assert abs(x - middle[0]) < 2
        assert abs(y - middle[1]) < 2
        page.click("#zoom-out")
        assert _view(page)[2] == pytest.approx(after[2] / 1.4, rel=1e-3)
        page.click("#zoom-in")
        assert _view(page)[2] == pytest.approx(after[2], rel=1e-3)

        # a drag pans by exactly the distance moved, at the same scale
        before = _view(page)
        page.mouse.move(middle[0] - 200, middle[1] - 100)
        page.mouse.down()
        page.mouse.move(middle[0] - 80, middle[1] - 40, steps=5)
        page.mouse.up()
        moved = _view(page)
        assert moved[0] == pytest.approx(before[0] + 120, abs=0.05)
        assert moved[1] == pytest.approx(before[1] + 60, abs=0.05)
        assert moved[2] == before[2]

        page.click("#zoom-fit")
        assert _view(page) == pytest.approx(fitted, abs=0.01)
        page.fill("#graph-search", "room 2")
        page.screenshot(path=str(os.environ.get("ARIADNE_BIG_REPORT_SCREENSHOT") or path.with_suffix(".png")))
        assert page.errors == []
    finally:
        page.close()


def _shown(page) -> str:
    """The entity key the search centred on (its status names it)."""
    status = page.text_content("#search-status")
    found = re.search(r"shown: (.+)\)$", status)
    assert found, status
    return found.group(1).strip().lower().replace(" ", "-")


# -- per step: reasoning, verdicts and the model calls (collapsed) -----------------------------------
def test_each_step_shows_its_reasoning_verdicts_and_model_calls_collapsed(played, tmp_path, browser):
    run_dir, run_id = played
    path = write_report(run_dir, run_id, out=tmp_path / "calls.html")
    trajectory = {r["step"]: r for r in RunDir.open(run_dir, run_id).steps()}
    lines = [json.loads(line) for line in (run_dir / run_id / "calls.jsonl").read_text().splitlines()]
    calls = [line for line in lines if "prompt" in line]
    data = build_report_data(run_dir, run_id)
    step = next(s for s in data["steps"] if s["step"] >= 1 and len(s.get("critic") or []) and s.get("reason"))
    k = step["step"]
    made = [c for c in calls if c["step"] == k - 1]  # calls made after observation k-1 chose command k
    assert made
    assert len(made) == step["tokens"]["calls"]
    page = _page(browser)
    try:
        page.goto(path.as_uri())
        row = page.locator(f"#timeline tr[data-step='{k}']")
        assert trajectory[k]["reason"] in row.inner_text()
        for verdict in step["critic"]:
            assert (verdict["proposed"] or "") in row.locator("td").nth(4).inner_text()
        box = row.locator("details.calls")
        assert box.count() == 1
        assert not box.evaluate("e => e.open")
        assert box.locator("summary").inner_text().startswith(f"{len(made)} call")
        assert box.locator("details.call").count() == 0  # the prompts are put in the page once opened
        box.locator("summary").click()
        # the page fills the box on its "toggle" event, which the browser fires after the click returns
        expect = pytest.importorskip("playwright.sync_api").expect
        expect(box.locator("details.call")).to_have_count(len(made))
        first = box.locator("details.call").first
        first.locator("summary").click()
        expect(first.locator(".msg pre").first).to_be_visible()
        shown = first.locator(".msg pre").all_inner_texts()
        assert shown[: len(made[0]["prompt"])] == [m["content"] for m in made[0]["prompt"]]
        assert made[0]["node"] in first.locator("summary").inner_text()
        assert page.errors == []
    finally:
        page.close()
