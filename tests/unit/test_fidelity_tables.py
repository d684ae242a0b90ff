"""The paper-fidelity tables (docs/fidelity/PAPER.md) held to the code they describe.

Each table has the columns mechanism | paper | here | status | why, one status word of five per row and a
``counts:`` line that adds them up. A ``here`` cell names the code in two forms the test reads:

- ``PRESET: switch=value[, switch=value]``: the preset's switch has that value in ``PRESETS`` (so a preset changed
  without its table fails here);
- ``ariadnegraph/PATH.py[::NAME[=value]]``: the file exists, NAME is defined in it (a def, a class or a module-level
  name; in a YAML thought graph, a node), and a module-level NAME has that value when one is given.

The last tests feed the checks a table that lies, so a check that passes everything would fail them.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from ariadnegraph.agent.presets import PRESETS, SWITCHES
from ariadnegraph.memory.transitions import SUBGRAPH_LIMIT

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "docs" / "fidelity"
PAPERS = ("arigraph", "stma", "davis", "agentkit", "emembench")
STATUSES = ("same", "ours", "partly", "different", "missing")
COLUMNS = ["mechanism", "paper", "here", "status", "why"]

SWITCH_GROUP = re.compile(r"\b([a-z_]+): ([a-z_]+=[^\s,;]+(?:, [a-z_]+=[^\s,;]+)*)")
MODULE_REF = re.compile(r"\b(ariadnegraph/[\w/]+\.(?:py|yaml))(?:::([A-Za-z_][\w.]*)(?:=([^\s,;]+))?)?")
COUNTS = re.compile(r"^counts: same (\d+), ours (\d+), partly (\d+), different (\d+), missing (\d+)$")


def table_text(paper: str) -> str:
    return (TABLES / f"{paper}.md").read_text(encoding="utf-8")


def rows_of(text: str) -> tuple[list[str], list[dict[str, str]]]:
    """The header's column names and each row as {column: cell} (a cell's code quotes removed)."""
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("|")]
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    header, body = cells[0], cells[2:]
    return header, [
        dict(zip(header, (cell.replace("`", "") for cell in row))) | {"_width": str(len(row))} for row in body
    ]


def counts_line(text: str) -> tuple[int, ...] | None:
    found = [COUNTS.match(line.strip()) for line in text.splitlines()]
    matched = [m for m in found if m]
    return tuple(int(n) for n in matched[-1].groups()) if matched else None


def switch_refs(cell: str) -> list[tuple[str, str, str]]:
    """(preset, switch, value as written) for every ``preset: switch=value`` in a here cell."""
    refs = []
    for preset, assignments in SWITCH_GROUP.findall(cell):
        for assignment in assignments.split(", "):
            switch, _, value = assignment.partition("=")
            refs.append((preset, switch, value))
    return refs


def module_refs(cell: str) -> list[tuple[str, str, str]]:
    """(path, name or '', value or '') for every ``ariadnegraph/...`` path a here cell names."""
    return MODULE_REF.findall(cell)


def switch_problem(preset: str, switch: str, value: str) -> str | None:
    """Why ``preset: switch=value`` is not what the code has, or None."""
    if preset not in PRESETS:
        return f"no preset '{preset}'"
    if switch not in SWITCHES:
        return f"no switch '{switch}'"
    actual = str(getattr(PRESETS[preset], switch))
    return None if actual == value else f"{preset}: {switch} is {actual}, the table says {value}"


def defines(text: str, name: str, yaml: bool) -> bool:
    escaped = re.escape(name)
    if yaml:
        return re.search(rf"^\s*-?\s*name:\s*{escaped}\s*$", text, re.M) is not None
    pattern = rf"^\s*(?:async\s+)?(?:def|class)\s+{escaped}\b|^\s*{escaped}\s*(?::[^=\n]*)?="
    return re.search(pattern, text, re.M) is not None


def module_problem(path: str, name: str, value: str) -> str | None:
    """Why ``path[::name[=value]]`` does not point at the code it names, or None."""
    file = ROOT / path
    if not file.is_file():
        return f"{path} does not exist"
    if not name:
        return None
    text = file.read_text(encoding="utf-8")
    yaml = path.endswith(".yaml")
    missing = [part for part in name.split(".") if not defines(text, part, yaml)]
    if missing:
        return f"{path} defines no {'.'.join(missing)}"
    if value:
        if yaml or "." in name:
            return f"{path}::{name}: a value is checked only for a module-level name of a .py file"
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        actual = str(getattr(module, name))
        if actual != value:
            return f"{path}::{name} is {actual}, the table says {value}"
    return None


def problems_in(text: str) -> list[str]:
    """Everything a table gets wrong about its own shape and about the code."""
    header, rows = rows_of(text)
    found = [] if header == COLUMNS else [f"columns are {header}, not {COLUMNS}"]
    for row in rows:
        name = row.get("mechanism", "?")
        if row["_width"] != str(len(COLUMNS)):
            found.append(f"{name}: {row['_width']} cells")
            continue
        if row["status"] not in STATUSES:
            found.append(f"{name}: status '{row['status']}' is not one of {', '.join(STATUSES)}")
        for ref in switch_refs(row["here"]):
            if (problem := switch_problem(*ref)) is not None:
                found.append(f"{name}: {problem}")
        for ref in module_refs(row["here"]):
            if (problem := module_problem(*ref)) is not None:
                found.append(f"{name}: {problem}")
        if row["status"] != "missing" and not switch_refs(row["here"]) and not module_refs(row["here"]):
            found.append(f"{name}: the here cell names no switch and no module")
        if not row["why"]:
            found.append(f"{name}: no why")
    counted = counts_line(text)
    actual = tuple(sum(row.get("status") == status for row in rows) for status in STATUSES)
    if counted is None:
        found.append("no counts line")
    elif counted != actual:
        found.append(f"counts line says {counted}, the rows give {actual}")
    return found


@pytest.mark.parametrize("paper", PAPERS)
def test_each_paper_has_a_table_with_the_five_columns_and_rows(paper):
    header, rows = rows_of(table_text(paper))
    assert header == COLUMNS
    assert len(rows) >= 12
    assert all(row["_width"] == "5" for row in rows), [row["mechanism"] for row in rows if row["_width"] != "5"]


@pytest.mark.parametrize("paper", PAPERS)
def test_every_status_is_one_of_the_five_words(paper):
    _, rows = rows_of(table_text(paper))
    assert {row["status"] for row in rows} <= set(STATUSES)


@pytest.mark.parametrize("paper", PAPERS)
def test_the_counts_line_adds_up_the_rows(paper):
    text = table_text(paper)
    _, rows = rows_of(text)
    assert counts_line(text) == tuple(sum(row["status"] == status for row in rows) for status in STATUSES)


@pytest.mark.parametrize("paper", PAPERS)
def test_every_switch_a_row_names_has_the_value_its_preset_has(paper):
    _, rows = rows_of(table_text(paper))
    refs = [ref for row in rows for ref in switch_refs(row["here"])]
    assert [problem for ref in refs if (problem := switch_problem(*ref))] == []


def test_the_paper_presets_tables_name_their_switches():
    named = {
        paper: {ref[0] for row in rows_of(table_text(paper))[1] for ref in switch_refs(row["here"])}
        for paper in ("arigraph", "stma", "davis", "agentkit")
    }
    assert {paper for paper, presets in named.items() if paper not in presets} == set()


@pytest.mark.parametrize("paper", PAPERS)
def test_every_module_a_row_names_exists_and_defines_what_it_names(paper):
    _, rows = rows_of(table_text(paper))
    refs = [ref for row in rows for ref in module_refs(row["here"])]
    assert refs
    assert [problem for ref in refs if (problem := module_problem(*ref))] == []


@pytest.mark.parametrize("paper", PAPERS)
def test_every_row_but_a_missing_one_names_the_code_and_says_why(paper):
    assert problems_in(table_text(paper)) == []


def test_the_readme_names_every_table_and_the_status_words():
    readme = (TABLES / "README.md").read_text(encoding="utf-8")
    assert all(f"{paper}.md" in readme for paper in PAPERS)
    assert all(f"`{status}`" in readme for status in STATUSES)


# -- the checks themselves, on tables that lie (built from the code's values, so they hold whatever those are) ------
CLOSES = PRESETS["davis"].invalidate
HONEST_ROW = f"| append-only KG | §3.2 | `davis: invalidate={CLOSES}` | different | the preset closes facts |"
HEAD = "| mechanism | paper | here | status | why |\n|---|---|---|---|---|\n"


def lying(row: str, counts: str = "counts: same 0, ours 0, partly 0, different 1, missing 0") -> str:
    return f"{HEAD}{row}\n\n{counts}\n"


def with_here(here: str) -> str:
    return HONEST_ROW.replace(f"`davis: invalidate={CLOSES}`", here)


def test_an_honest_table_has_no_problems():
    assert problems_in(lying(HONEST_ROW)) == []


def test_a_switch_value_the_preset_does_not_have_is_caught():
    problems = problems_in(lying(with_here(f"`davis: invalidate={not CLOSES}`")))
    assert problems == [f"append-only KG: davis: invalidate is {CLOSES}, the table says {not CLOSES}"]


def test_a_switch_or_preset_that_does_not_exist_is_caught():
    assert problems_in(lying(with_here(f"`dvais: invalidate={CLOSES}`"))) == ["append-only KG: no preset 'dvais'"]
    assert problems_in(lying(with_here(f"`davis: invalidates={CLOSES}`"))) == [
        "append-only KG: no switch 'invalidates'"
    ]


def test_a_second_switch_of_a_group_is_checked_too():
    length = PRESETS["davis"].plan_length
    row = with_here(f"`davis: invalidate={CLOSES}, plan_length={length + 1}`")
    assert problems_in(lying(row)) == [f"append-only KG: davis: plan_length is {length}, the table says {length + 1}"]


def test_a_module_path_or_name_that_is_not_there_is_caught():
    assert problems_in(lying(with_here("`ariadnegraph/memory/gone.py`"))) == [
        "append-only KG: ariadnegraph/memory/gone.py does not exist"
    ]
    assert problems_in(lying(with_here("`ariadnegraph/memory/temporal_kg.py::append_only`"))) == [
        "append-only KG: ariadnegraph/memory/temporal_kg.py defines no append_only"
    ]
    assert problems_in(lying(with_here("`ariadnegraph/agentkit/crafter.yaml::planner_mistake`"))) == [
        "append-only KG: ariadnegraph/agentkit/crafter.yaml defines no planner_mistake"
    ]


def test_a_constant_the_code_does_not_have_is_caught():
    row = with_here(f"`ariadnegraph/memory/transitions.py::SUBGRAPH_LIMIT={SUBGRAPH_LIMIT + 1}`")
    assert problems_in(lying(row)) == [
        f"append-only KG: ariadnegraph/memory/transitions.py::SUBGRAPH_LIMIT is {SUBGRAPH_LIMIT}, the table says {SUBGRAPH_LIMIT + 1}"
    ]


def test_a_wrong_status_word_a_wrong_count_and_a_row_naming_no_code_are_caught():
    assert "append-only KG: status 'differs' is not one of same, ours, partly, different, missing" in problems_in(
        lying(HONEST_ROW.replace("| different |", "| differs |"))
    )
    assert problems_in(lying(HONEST_ROW, counts="counts: same 1, ours 0, partly 0, different 0, missing 0")) == [
        "counts line says (1, 0, 0, 0, 0), the rows give (0, 0, 0, 1, 0)"
    ]
    assert problems_in(lying(with_here("somewhere in memory"))) == [
        "append-only KG: the here cell names no switch and no module"
    ]
