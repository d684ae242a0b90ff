"""Forks of a run's thread (LangGraph time travel, Studio's "edit and re-run"): the memory a branch sees is
the memory as of the fork's step plus its own steps, and the run's files describe one history, whatever
the run was doing when it was forked. In-process, with the run's own SQLite checkpointer; the server's
forks (test_langgraph_server.py) go through the same session code."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ariadnegraph.agent.checkpoints import checkpointer
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.integrity import checked_copies
from ariadnegraph.agent.session import ForkRefused, RunExists, end_session, memory_view, open_session
from ariadnegraph.graphs.agent import build_agent_graph
from ariadnegraph.memory import WorldMemory
from ariadnegraph.play import Episode, play, resume
from ariadnegraph.runs import RunDir, next_trail

GAME = {"env": "cooking:1", "seed": 1}
DETOUR = "inventory"  # a command the scripted agent never plays on this seed at step 3


def files_of(run: RunDir) -> dict[Path, bytes]:
    """The run's files, but for LangGraph's checkpoints (where a fork itself is written)."""
    return {p: p.read_bytes() for p in run.path.rglob("*") if p.is_file() and not p.name.startswith("checkpoints.sqlite")}


def consistent_history(run_dir: Path, run_id: str) -> list[dict[str, Any]]:
    """The run as every reader sees it (a checked copy): the trajectory, whose trails chain, and a memory
    with one episode per recorded step holding that step's observation and command."""
    with checked_copies(run_dir, [run_id]) as copies:
        run = RunDir.open(copies, run_id)
        steps = list(run.steps())
        trail = None
        for record in steps:
            trail = next_trail(trail, record["action"], record["observation"])
            assert record["trail"] == trail, record["step"]
        with WorldMemory.open(run.memory_path) as memory:
            assert sorted(memory.episodes) == [r["step"] for r in steps]
            for record in steps:
                episode = memory.episodes[record["step"]]
                assert (episode.text, episode.action) == (record["observation"], record["action"])
            # every fact was read from a recorded step of this history
            assert {f.source for f in memory.all_facts if f.source is not None} <= {r["step"] for r in steps}
    return steps


def graph_of(saver):
    return build_agent_graph().compile(checkpointer=saver)


def before_step(graph, config, step: int):
    """The checkpoint where the command of ``step`` is chosen and about to be played."""
    return next(s for s in graph.get_state_history(config) if s.next == ("environment",) and s.values.get("step") == step - 1)


def test_a_fork_of_a_finished_run_rewrites_its_files_and_memory_from_the_fork(tmp_path):
    context = AgentContext(run_dir=str(tmp_path))
    original = play(Episode(**GAME, max_steps=8), context=context, run_id="f")
    run = RunDir.open(tmp_path, "f")
    first = consistent_history(tmp_path, "f")
    config = {"configurable": {"thread_id": "f"}}
    with checkpointer(run) as saver:
        graph = graph_of(saver)
        fork = graph.update_state(before_step(graph, config, 3).config, {"command": DETOUR})
        graph.invoke(None, fork, context=context, durability="sync")
        final = graph.get_state(config).values
    steps = consistent_history(tmp_path, "f")
    assert [s["action"] for s in steps[:3]] == [s["action"] for s in first[:3]]  # the shared past
    assert steps[3]["action"] == DETOUR
    assert final["trail"] == steps[-1]["trail"]
    assert final["step"] == steps[-1]["step"]
    assert original["steps"] == 8
    assert len(steps) == final["step"] + 1


def test_a_fork_of_a_paused_thread_rebuilds_the_live_game_and_memory(tmp_path):
    """A thread paused mid-episode keeps its game and memory live in this process, at the later step: a fork
    from an earlier checkpoint must not step that game, nor append its steps after the later ones."""
    context = AgentContext(run_dir=str(tmp_path))
    run_id = "p"
    graph_input = {**GAME, "max_steps": 8, "run_id": run_id}
    with RunDir.create(tmp_path, run_id, {"run_id": run_id, **GAME, "max_steps": 8, "context": {"model": "scripted"}}).writer():
        pass
    config = {"configurable": {"thread_id": run_id}}
    run = RunDir.open(tmp_path, run_id)
    try:
        with checkpointer(run) as saver:
            graph = graph_of(saver)
            for _ in graph.stream(graph_input, config, context=context, durability="sync", interrupt_after=["memory_update"]):
                pass
            while graph.get_state(config).values["step"] < 5:  # paused after step 5's memory update
                graph.invoke(None, config, context=context, durability="sync", interrupt_after=["memory_update"])
            fork = graph.update_state(before_step(graph, config, 3).config, {"command": DETOUR})
            graph.invoke(None, fork, context=context, durability="sync")
            final = graph.get_state(config).values
    finally:
        end_session(run_id)
    steps = consistent_history(tmp_path, run_id)
    assert steps[3]["action"] == DETOUR
    assert final["step"] == steps[-1]["step"]
    assert final["done"]


def test_a_fork_of_a_branch_that_a_later_fork_replaced_is_refused_and_changes_nothing(tmp_path):
    context = AgentContext(run_dir=str(tmp_path))
    play(Episode(**GAME, max_steps=8), context=context, run_id="r")
    run = RunDir.open(tmp_path, "r")
    config = {"configurable": {"thread_id": "r"}}
    with checkpointer(run) as saver:
        graph = graph_of(saver)
        abandoned = before_step(graph, config, 6)  # of the first history
        graph.invoke(None, graph.update_state(before_step(graph, config, 3).config, {"command": DETOUR}), context=context,
                     durability="sync")
        before = files_of(run)
        with pytest.raises(ForkRefused, match="no longer the run's"):
            graph.invoke(None, graph.update_state(abandoned.config, {"command": "look"}), context=context, durability="sync")
    end_session("r")
    assert files_of(run) == before
    consistent_history(tmp_path, "r")


def test_a_new_episode_under_the_id_of_a_played_run_is_refused_and_changes_nothing(tmp_path):
    """A thread deleted and created again with the same id starts a new episode under its id: the old
    run's files stay as they were."""
    context = AgentContext(run_dir=str(tmp_path))
    play(Episode(**GAME, max_steps=3), context=context, run_id="again")
    run = RunDir.open(tmp_path, "again")
    before = files_of(run)
    with pytest.raises(RunExists, match="has already played 3 steps"):
        open_session(tmp_path, {**GAME, "run_id": "again", "max_steps": 3}, create=True, context=context)
    assert files_of(run) == before


def test_a_fork_that_stops_before_the_end_leaves_no_result_of_the_abandoned_branch(tmp_path):
    """A finished run forked at step 3 and paused at step 5: run.json no longer claims the old branch's
    result, readers accept the run, and a reader opened before the fork sees the branch's memory after it."""
    context = AgentContext(run_dir=str(tmp_path))
    play(Episode(**GAME, max_steps=8), context=context, run_id="s")
    run = RunDir.open(tmp_path, "s")
    assert run.meta()["result"]["steps"] == 8
    reader = memory_view("s", tmp_path)
    assert reader.memory.last_episode == 8
    config = {"configurable": {"thread_id": "s"}}
    try:
        with checkpointer(run) as saver:
            graph = graph_of(saver)
            fork = graph.update_state(before_step(graph, config, 3).config, {"command": DETOUR})
            for _ in graph.stream(None, fork, context=context, durability="sync", interrupt_after=["memory_update"]):
                pass
            while graph.get_state(config).values["step"] < 5:
                graph.invoke(None, config, context=context, durability="sync", interrupt_after=["memory_update"])
    finally:
        end_session("s")
    assert "result" not in run.meta()
    steps = consistent_history(tmp_path, "s")
    assert steps[3]["action"] == DETOUR
    assert steps[-1]["step"] == 5
    after = memory_view("s", tmp_path)
    assert after.memory.last_episode == 5
    assert after.memory.episodes[3].action == DETOUR


def test_a_new_episode_under_the_id_of_a_run_started_as_another_is_refused(tmp_path):
    """A run that recorded only its step 0 (stopped before its first checkpoint) may be started again as the
    same episode, never as another one: run.json would describe a game that was not played."""
    context = AgentContext(run_dir=str(tmp_path))
    run = RunDir.create(tmp_path, "zero", {"run_id": "zero", **GAME, "max_steps": 3, "context": {"model": "scripted"}})
    config = {"configurable": {"thread_id": "zero"}}
    try:
        with checkpointer(run) as saver:
            for _ in graph_of(saver).stream({**GAME, "max_steps": 3, "run_id": "zero"}, config, context=context, durability="sync",
                                            interrupt_after=["environment"]):
                pass
    finally:
        end_session("zero")
    assert [r["step"] for r in run.steps()] == [0]
    before = files_of(run)
    with pytest.raises(RunExists, match="started as another episode .*env 'cooking:1'"):
        open_session(tmp_path, {"env": "cooking:2", "seed": 1, "run_id": "zero", "max_steps": 3}, create=True, context=context)
    assert files_of(run) == before
    open_session(tmp_path, {**GAME, "run_id": "zero", "max_steps": 3}, create=True, context=context)  # the same episode again
    end_session("zero")


def test_a_fork_at_every_checkpoint_continues_or_is_refused_and_the_files_agree_with_the_thread(tmp_path):
    """Every checkpoint of a short ariadne_full episode forked (Studio's "edit and re-run" with nothing edited) and
    continued, each from a copy of the finished run: the branch plays to the end with the thread's state and the
    files on one history, or (before the episode's first step: a new episode under a played run's id) is refused
    in one line with the files as they were. The critic's edge is the case that stopped: a fork after it ran
    no node (the critic routed by a ``Command`` goto, which ``update_state`` does not replay)."""
    context = AgentContext(run_dir=str(tmp_path / "played"), preset="ariadne_full")
    play(Episode(**GAME, max_steps=2), context=context, run_id="k")
    config = {"configurable": {"thread_id": "k"}}
    with checkpointer(RunDir.open(tmp_path / "played", "k")) as saver:
        history = list(graph_of(saver).get_state_history(config))
    assert len(history) > 20
    assert any(s.next == ("actor",) for s in history)
    for n, snapshot in enumerate(reversed(history)):
        root = tmp_path / f"fork-{n}"
        shutil.copytree(tmp_path / "played", root)
        run = RunDir.open(root, "k")
        before = files_of(run)
        try:
            with checkpointer(run) as saver:
                graph = graph_of(saver)
                fork = graph.update_state(snapshot.config, {})
                try:
                    graph.invoke(None, fork, context=AgentContext(run_dir=str(root), preset="ariadne_full"), durability="sync")
                except (RunExists, ValueError) as refused:  # no episode at the fork yet
                    assert "observation" not in snapshot.values, (n, snapshot.next)
                    assert "\n" not in str(refused), (n, snapshot.next)
                    assert files_of(run) == before
                    continue
                final = graph.get_state(config)
        finally:
            end_session("k")
        steps = consistent_history(root, "k")
        assert final.next == (), (n, snapshot.next, final.values.get("step"))
        assert final.values["done"], (n, snapshot.next, final.values.get("step"))
        assert final.values["step"] == steps[-1]["step"] == 2, (n, snapshot.next)
        assert final.values["trail"] == steps[-1]["trail"], (n, snapshot.next)


def test_a_fork_not_yet_played_is_read_as_the_run_played_and_resumed_as_the_fork(tmp_path):
    """A fork made and not played: its checkpoint is steps behind the recorded ones, as a run whose newest checkpoints
    were lost is (test_lost_checkpoints.py), but the checkpoints of the history it left still reach them. Readers read
    the run as it was played; resume plays the fork, no --rewind asked."""
    context = AgentContext(run_dir=str(tmp_path))
    play(Episode(**GAME, max_steps=8), context=context, run_id="u")
    run = RunDir.open(tmp_path, "u")
    config = {"configurable": {"thread_id": "u"}}
    with checkpointer(run) as saver:
        graph = graph_of(saver)
        graph.update_state(before_step(graph, config, 3).config, {"command": DETOUR})
    before = files_of(run)
    assert [s["step"] for s in consistent_history(tmp_path, "u")] == list(range(9))
    assert files_of(run) == before
    resume("u", run_dir=tmp_path)
    steps = consistent_history(tmp_path, "u")
    assert steps[3]["action"] == DETOUR
    assert run.meta()["result"]["steps"] == steps[-1]["step"]
