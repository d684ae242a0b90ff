"""A run's checkpoints file (agent/checkpoints.RunSqliteSaver): each channel's value stored once per version and
compressed, put together again when read, through forks; and a file LangGraph's own SQLite saver wrote still reads
and resumes."""

from __future__ import annotations

import operator
import sqlite3
from typing import Annotated

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from ariadnegraph.agent.checkpoints import CompressedSerializer, sqlite_saver


class Counted(TypedDict, total=False):
    step: int
    seen: Annotated[list[str], operator.add]
    manual: str  # a long text that never changes after the first step


def counter():
    def tick(state: Counted) -> dict:
        step = state.get("step", 0) + 1
        return {"step": step, "seen": [f"observation {step} " * 40], **({} if state.get("manual") else {"manual": "m" * 5000})}

    def route(state: Counted) -> str:
        return END if state["step"] >= 6 else "tick"

    graph = StateGraph(Counted)
    graph.add_node("tick", tick)
    graph.add_edge(START, "tick")
    graph.add_conditional_edges("tick", route)
    return graph


def test_values_are_stored_once_per_version_and_read_back_whole(tmp_path):
    connection = sqlite3.connect(tmp_path / "c.sqlite", check_same_thread=False)
    graph = counter().compile(checkpointer=sqlite_saver(connection))
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"step": 0}, config)
    history = list(graph.get_state_history(config))
    assert [s.values.get("step") for s in history][:3] == [6, 5, 4]
    assert all(s.values["manual"] == "m" * 5000 for s in history if s.values.get("step", 0) >= 1)
    assert history[0].values["seen"] == [f"observation {k} " * 40 for k in range(1, 7)]
    # the long text that never changed was stored once, not in each of the checkpoints after it
    stored = connection.execute("SELECT COUNT(*) FROM channel_values WHERE channel = 'manual'").fetchone()[0]
    assert stored == 1
    assert connection.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0] >= 7
    inline = [row[0] for row in connection.execute("SELECT checkpoint FROM checkpoints")]
    assert max(len(blob) for blob in inline) < 2000  # no checkpoint holds the 5,000 characters


def test_a_fork_reads_its_own_values_and_the_branch_it_left_keeps_its_own(tmp_path):
    connection = sqlite3.connect(tmp_path / "c.sqlite", check_same_thread=False)
    graph = counter().compile(checkpointer=sqlite_saver(connection))
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"step": 0}, config)
    at_three = next(s for s in graph.get_state_history(config) if s.values.get("step") == 3)
    forked = graph.update_state(at_three.config, {"seen": ["edited"]})
    graph.invoke(None, forked)
    ends = [s for s in graph.get_state_history(config) if s.values.get("step") == 6]
    assert len(ends) == 2
    seen = sorted(tuple(s.values["seen"]) for s in ends)
    assert any("edited" in run for run in seen)
    assert any("edited" not in run for run in seen)
    assert all(len(run) == 6 + ("edited" in run) for run in seen)
    assert graph.get_state(forked).values["seen"][-1] == "edited"
    # every state on both branches reads the values of its own branch: both count on from the fork, and a version
    # the fork wrote under a counter the branch it left had used first would read that branch's value
    for state in graph.get_state_history(config):
        if state.values.get("step", 0) >= 1:
            seen_there = state.values["seen"]
            assert len(seen_there) == state.values["step"] + ("edited" in seen_there), seen_there


def test_rows_are_compressed_against_a_dictionary_the_file_keeps(tmp_path):
    path = tmp_path / "c.sqlite"
    config = {"configurable": {"thread_id": "t"}}
    writer = sqlite3.connect(path, check_same_thread=False)
    graph = counter().compile(checkpointer=sqlite_saver(writer))
    graph.invoke({"step": 0}, config)
    written = [state.values for state in graph.get_state_history(config)]
    rows = writer.execute("SELECT type, checkpoint FROM checkpoints ORDER BY checkpoint_id").fetchall()
    against = [blob for kind, blob in rows if ":" in kind]
    assert against, [kind for kind, _ in rows]
    dictionaries = writer.execute("SELECT COUNT(*) FROM dictionaries").fetchone()[0]
    assert 1 <= dictionaries < len(rows)
    # the last row, against a row like it, is shorter than zlib makes it alone
    plain = CompressedSerializer()
    last = sqlite_saver(sqlite3.connect(path, check_same_thread=False)).serde.loads_typed(rows[-1])
    assert len(rows[-1][1]) < len(plain.dumps_typed(last)[1])
    # another connection (a reader, a resumed run) finds the dictionaries in the file
    reader = counter().compile(checkpointer=sqlite_saver(sqlite3.connect(path, check_same_thread=False)))
    assert [state.values for state in reader.get_state_history(config)] == written


def test_a_row_whose_dictionary_is_gone_fails_naming_it(tmp_path):
    path = tmp_path / "c.sqlite"
    config = {"configurable": {"thread_id": "t"}}
    connection = sqlite3.connect(path, check_same_thread=False)
    counter().compile(checkpointer=sqlite_saver(connection)).invoke({"step": 0}, config)
    names = [row[0] for row in connection.execute("SELECT name FROM dictionaries")]
    connection.execute("DELETE FROM dictionaries")
    connection.commit()
    reader = counter().compile(checkpointer=sqlite_saver(sqlite3.connect(path, check_same_thread=False)))
    with pytest.raises(ValueError, match="which the file does not hold") as failed:
        reader.get_state(config)
    assert any(name in str(failed.value) for name in names), (names, failed.value)


def test_a_file_langgraphs_own_saver_wrote_reads_and_resumes(tmp_path):
    path = tmp_path / "c.sqlite"
    config = {"configurable": {"thread_id": "t"}}
    with sqlite3.connect(path, check_same_thread=False) as connection:
        old = counter().compile(checkpointer=SqliteSaver(connection), interrupt_before=["tick"])
        old.invoke({"step": 0}, config)
        old.invoke(None, config)  # paused before the second tick
        assert old.get_state(config).values["step"] == 1
    connection = sqlite3.connect(path, check_same_thread=False)
    graph = counter().compile(checkpointer=sqlite_saver(connection))
    assert graph.get_state(config).values["manual"] == "m" * 5000  # read as it was written
    graph.invoke(None, config)
    state = graph.get_state(config).values
    assert state["step"] == 6
    assert state["seen"] == [f"observation {k} " * 40 for k in range(1, 7)]
    assert state["manual"] == "m" * 5000


def test_compressed_values_read_back_and_plain_ones_still_read():
    serde = CompressedSerializer()
    long, short = {"text": "x" * 4000}, {"n": 1}
    kind, blob = serde.dumps_typed(long)
    assert kind.endswith("+zlib")
    assert len(blob) < 200
    assert serde.loads_typed((kind, blob)) == long
    assert not serde.dumps_typed(short)[0].endswith("+zlib")
    assert serde.loads_typed(serde.inner.dumps_typed(long)) == long  # written before compression


def test_values_compressed_against_a_dictionary_need_it_to_read():
    preset = CompressedSerializer().inner.dumps_typed({"text": "the kitchen holds a fridge " * 20})[1]
    writer = CompressedSerializer()
    writer.dictionary = ("kitchen", preset)
    value = {"text": "the kitchen holds a fridge " * 20 + "and a knife"}
    kind, blob = writer.dumps_typed(value)
    assert kind.endswith("+zlib:kitchen")
    assert len(blob) < len(CompressedSerializer().dumps_typed(value)[1])
    assert CompressedSerializer(dictionaries={"kitchen": preset}.__getitem__).loads_typed((kind, blob)) == value
    with pytest.raises(ValueError, match="kitchen"):
        CompressedSerializer().loads_typed((kind, blob))


def test_a_file_from_before_opened_read_only_reads(tmp_path):
    path = tmp_path / "c.sqlite"
    config = {"configurable": {"thread_id": "t"}}
    with sqlite3.connect(path, check_same_thread=False) as connection:
        counter().compile(checkpointer=SqliteSaver(connection)).invoke({"step": 0}, config)
    read_only = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    graph = counter().compile(checkpointer=sqlite_saver(read_only))
    assert graph.get_state(config).values["step"] == 6
    assert len(list(graph.get_state_history(config))) >= 7



def test_a_file_this_saver_wrote_before_rows_had_dictionaries_reads_and_resumes(tmp_path, monkeypatch):
    """Stop 58's files: every value in channel_values (the short ones and the empty too), rows compressed alone."""
    from ariadnegraph.agent import checkpoints

    path = tmp_path / "c.sqlite"
    config = {"configurable": {"thread_id": "t"}}
    with monkeypatch.context() as before:
        before.setattr(checkpoints, "_small", lambda value: False)
        before.setattr(checkpoints.RunSqliteSaver, "_keep_as_dictionary", lambda self, row, thread: None)
        old = counter().compile(checkpointer=sqlite_saver(sqlite3.connect(path, check_same_thread=False)),
                                interrupt_before=["tick"])
        old.invoke({"step": 0}, config)
        old.invoke(None, config)
    connection = sqlite3.connect(path, check_same_thread=False)
    assert connection.execute("SELECT COUNT(*) FROM channel_values WHERE channel = 'step'").fetchone()[0] >= 2
    graph = counter().compile(checkpointer=sqlite_saver(connection))
    assert graph.get_state(config).values["step"] == 1
    graph.invoke(None, config)
    state = graph.get_state(config).values
    assert state["step"] == 6
    assert state["seen"] == [f"observation {k} " * 40 for k in range(1, 7)]
    assert [s.values.get("step") for s in graph.get_state_history(config)][:2] == [6, 5]


def test_deleting_a_thread_leaves_the_others_readable(tmp_path):
    connection = sqlite3.connect(tmp_path / "c.sqlite", check_same_thread=False)
    saver = sqlite_saver(connection)
    graph = counter().compile(checkpointer=saver)
    first, second = ({"configurable": {"thread_id": t}} for t in ("a", "b"))
    graph.invoke({"step": 0}, first)
    graph.invoke({"step": 0}, second)  # its rows compressed against a dictionary the first thread's row gave
    saver.delete_thread("a")
    reader = counter().compile(checkpointer=sqlite_saver(sqlite3.connect(tmp_path / "c.sqlite", check_same_thread=False)))
    assert reader.get_state(second).values["step"] == 6
    assert len(list(reader.get_state_history(second))) >= 7
    assert list(reader.get_state_history(first)) == []
    saver.delete_thread("b")
    assert connection.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0] == 0


@pytest.mark.parametrize("deleter", ["the same saver", "another connection's saver"])
def test_a_thread_written_after_the_last_one_was_deleted_reads_in_another_connection(tmp_path, deleter):
    """A saver goes on compressing against the dictionary it holds after the file's last thread is deleted, by itself
    or by another saver on the file: the dictionary must still be in the file, or no other connection could read
    what it writes next."""
    path = tmp_path / "c.sqlite"
    saver = sqlite_saver(sqlite3.connect(path, check_same_thread=False))
    graph = counter().compile(checkpointer=saver)
    first, second = ({"configurable": {"thread_id": t}} for t in ("a", "b"))
    graph.invoke({"step": 0}, first)
    other = saver if deleter == "the same saver" else sqlite_saver(sqlite3.connect(path, check_same_thread=False))
    other.delete_thread("a")
    assert list(graph.get_state_history(first)) == []
    graph.invoke({"step": 0}, second)
    graph.invoke({"step": 0}, first)  # a deleted thread's id written again
    reader = counter().compile(checkpointer=sqlite_saver(sqlite3.connect(path, check_same_thread=False)))
    for config in (first, second):
        assert reader.get_state(config).values["step"] == 6
        assert [s.values.get("step") for s in reader.get_state_history(config)][:3] == [6, 5, 4]
