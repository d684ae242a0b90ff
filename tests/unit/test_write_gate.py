"""A run's write gate (runs/gate.py): a reader's copy of a run that is being played is the run as it stood between two
of its writer's writes, never in the middle of one; a copy that a vanished file cuts short is one line."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from ariadnegraph.agent import readers
from ariadnegraph.memory import WorldMemory
from ariadnegraph.runs import RunBusy, RunDir, new_run_meta
from ariadnegraph.runs.gate import WRITES_LOCK


def new_run(root: Path, steps: int = 3) -> RunDir:
    meta = new_run_meta("live", env="cooking:1", seed=1, variation=None, max_steps=50,
                        context={"model": "scripted", "preset": "ariadne"}, thread_id="live")
    run = RunDir.create(root, "live", meta)
    for step in range(steps):
        write_step(run, step)
    return run


def write_step(run: RunDir, step: int) -> None:
    record: Any = {"step": step, "action": None if step == 0 else "look", "observation": f"seen at {step}", "trail": "t"}
    run.append_step(record, {"facts": [], "score": 0, "max_score": 1})  # type: ignore[typeddict-item]


def counts(run: RunDir) -> tuple[int, int]:
    return len(list(run.oracle_steps())), len(list(run.steps()))


def copy_with_a_step_played_midway(monkeypatch: pytest.MonkeyPatch, run: RunDir, root: Path) -> tuple[RunDir, threading.Thread]:
    """Copy ``run`` while its writer, in another thread, records its next step just after the copy has taken the
    first of its step files (oracle or trajectory, whichever the folder lists first)."""
    copy_file = shutil.copyfile
    writer = threading.Thread(target=write_step, args=(run, counts(run)[1]))

    def copy_then_let_the_writer_play(source: Any, target: Any, **kwargs: Any) -> Any:
        copied = copy_file(source, target, **kwargs)
        if Path(source).name in ("oracle.jsonl", "trajectory.jsonl") and not writer.is_alive() and writer.ident is None:
            writer.start()
            writer.join(timeout=1.0)  # without the gate the step is written now, between the two files' copies
        return copied

    monkeypatch.setattr(shutil, "copyfile", copy_then_let_the_writer_play)
    copy = run.copy_to(root)
    monkeypatch.setattr(shutil, "copyfile", copy_file)
    return copy, writer


def test_a_copy_never_holds_half_of_a_step_the_writer_wrote_meanwhile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = new_run(tmp_path / "runs")
    copy, writer = copy_with_a_step_played_midway(monkeypatch, run, tmp_path / "copy")
    # the step's two lines are one write: the copy holds both or neither (here neither: it waited for the copy)
    assert counts(copy) == (3, 3)
    writer.join()
    assert counts(run) == (4, 4)  # and the writer wrote it once the copy was made
    assert not (copy.path / WRITES_LOCK).exists()  # the gate's file is the run's own, never copied


def test_the_writers_own_copy_and_nested_writes_take_the_gate_once(tmp_path: Path) -> None:
    run = new_run(tmp_path / "runs")
    with run.writing(), run.writing():  # nested: taken once by this thread
        write_step(run, 3)
        copy = run.copy_to(tmp_path / "copy")  # a writer checking its own copy does not wait for itself
    assert counts(copy) == (4, 4)


def enter(run: RunDir, kind: str, order: list[str]) -> None:
    with run.writing() if kind == "write" else run.reading():
        order.append(f"{kind} in")


def test_a_reader_waits_for_a_write_under_way_and_a_writer_for_a_copy(tmp_path: Path) -> None:
    run = new_run(tmp_path / "runs")
    order: list[str] = []
    inside, done = threading.Event(), threading.Event()

    def hold(kind: str) -> None:
        with run.writing() if kind == "write" else run.reading():
            order.append(f"{kind} in")
            inside.set()
            done.wait(5)
            order.append(f"{kind} out")

    for first, second in (("write", "read"), ("read", "write")):
        order.clear()
        inside.clear()
        done.clear()
        holder = threading.Thread(target=hold, args=(first,))
        holder.start()
        inside.wait(5)
        waiter = threading.Thread(target=enter, args=(run, second, order))
        waiter.start()
        waiter.join(timeout=0.3)
        assert waiter.is_alive()  # it waits while the other side holds the gate
        done.set()
        holder.join()
        waiter.join(timeout=5)
        assert not waiter.is_alive()
        assert order == [f"{first} in", f"{first} out", f"{second} in"]


def test_a_live_memory_is_copied_between_two_of_its_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's and `ask`'s reader copies a run's memory folder under the gate its live memory writes under."""
    run = new_run(tmp_path / "runs", steps=1)
    memory = WorldMemory(run.memory_path, write_guard=run.writing)
    memory.observe(0, "You are in the kitchen. A knife is on the counter.", [("knife", "on", "counter")])
    copy_file = shutil.copyfile
    played = threading.Event()

    def observe_midway(source: Any, target: Any, **kwargs: Any) -> Any:
        copied = copy_file(source, target, **kwargs)
        if not played.is_set():
            played.set()
            step = threading.Thread(target=memory.observe, args=(1, "You take the knife.", [("knife", "in", "inventory")]))
            step.start()
            step.join(timeout=1.0)
        return copied

    monkeypatch.setattr(readers, "_READERS", readers.OrderedDict())
    monkeypatch.setattr(shutil, "copyfile", observe_midway)
    try:
        view = readers.saved_memory("live", run.path.parent)
    finally:
        monkeypatch.setattr(shutil, "copyfile", copy_file)
    try:
        assert sorted(view.memory.episodes) == [0]  # the copy is whole: the step written after it is not in it
    finally:
        view.close_reader()
        memory.close()


def test_a_file_that_vanishes_under_a_copy_is_one_line_naming_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a play that ends (or a run deleted) under a reader not holding the gate would do: one line, not the list
    of every file's error that shutil.copytree gathers."""
    run = new_run(tmp_path / "runs")
    copy_file = shutil.copyfile

    def vanished(source: Any, target: Any, **kwargs: Any) -> Any:
        if Path(source).name == "trajectory.jsonl":
            Path(source).unlink()
        return copy_file(source, target, **kwargs)

    monkeypatch.setattr(shutil, "copyfile", vanished)
    with pytest.raises(RunBusy) as refused:
        run.copy_to(tmp_path / "copy")
    message = str(refused.value)
    assert "\n" not in message
    assert "[(" not in message
    assert message.startswith("run live changed while it was copied for reading")
    assert "trajectory.jsonl" in message


def test_a_process_forked_while_the_gate_is_held_does_not_hold_it_on(tmp_path: Path) -> None:
    """A game's process forked while another thread writes: once the writer lets go, readers go on."""
    import os
    import time

    run = new_run(tmp_path / "runs")
    with run.writing():
        child = os.fork()
        if child == 0:  # the game's process: runs on, long after the write
            time.sleep(3)
            os._exit(0)
    try:
        reader = threading.Thread(target=lambda: run.copy_to(tmp_path / "copy"))
        reader.start()
        reader.join(timeout=2)
        assert not reader.is_alive()  # the copy was made while the child still runs
    finally:
        os.waitpid(child, 0)
