"""Every line format a model reads has one writer and, where something reads it back, its parser beside it."""

from __future__ import annotations

from ariadnegraph import prompting as p


def test_a_finding_reads_back_as_written_and_as_models_write_it():
    assert p.parse_finding_line(p.finding_line("where is the knife", "on the counter")) == ("where is the knife", "on the counter")
    assert p.parse_finding_line("recipe->carrot; potato") == ("recipe", "carrot; potato")
    assert p.parse_finding_line("no arrow here") is None


def test_exits_read_back_as_written():
    line = p.exits_line("Kitchen", ["north", "west"])
    assert line == "Kitchen: north, west"
    assert p.parse_exits_line(line) == ("Kitchen", ["north", "west"])
    assert p.parse_exits_line("no colon") is None


def test_dated_facts_and_step_lines_share_the_plain_forms():
    assert p.dated_fact_line("knife", "on", "counter", 3, None) == "knife, on, counter [from step 3 until now]"
    assert p.dated_fact_line("knife", "on", "counter", 3, 7).startswith(p.fact_line("knife", "on", "counter"))
    assert p.memory_step_line(0, None) == f"step 0 > {p.START_ACTION}"
    assert p.tried_line("open fridge", "It is locked.", 2) == "open fridge -> It is locked. (x2)"
    assert p.prediction_line("open fridge", None, "+1") == f"open fridge -> {p.NOTHING_EXPECTED} (reward +1)"
