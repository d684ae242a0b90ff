"""The custom stream events an episode writes as it plays (agent/events.py, written by the graph's node wrapper):
what a client such as Studio or an SDK script renders step by step, in the order the graph decided it. In-process
with the scripted double under the full preset (planner, critic, actor); the server streams the same events
(test_langgraph_server.py)."""

from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.events import node_events
from ariadnegraph.agent.session import end_session
from ariadnegraph.graphs.agent import build_agent_graph
from ariadnegraph.runs import RunDir


def test_a_five_step_episode_streams_each_steps_plan_verdicts_command_and_outcome_in_order(tmp_path):
    graph = build_agent_graph().compile(checkpointer=InMemorySaver())
    context = AgentContext(run_dir=str(tmp_path), model="scripted", preset="ariadne_full")
    config = {"configurable": {"thread_id": "shown"}}
    try:
        events = list(
            graph.stream(
                {"env": "cooking:1", "seed": 1, "max_steps": 5, "run_id": "shown"},
                config,
                context=context,
                stream_mode="custom",
            )
        )
    finally:
        end_session("shown")
    steps = [e["step"] for e in events if e["event"] == "step"]
    assert steps == list(range(len(steps)))
    assert len(steps) >= 4
    played = {r["step"]: r["action"] for r in RunDir.open(tmp_path, "shown").steps()}
    for step in steps[1:]:
        # the events that decided step k come after the outcome of step k-1 and before step k's own
        start = next(i for i, e in enumerate(events) if e["event"] == "step" and e["step"] == step - 1)
        end = next(i for i, e in enumerate(events) if e["event"] == "step" and e["step"] == step)
        decided = events[start + 1 : end]
        kinds = [e["event"] for e in decided]
        assert kinds[-1] == "command", kinds
        assert decided[-1]["command"] == played[step], kinds
        assert "verdict" in kinds
        assert all(e["step"] == step for e in decided)
        assert events[end]["last_action"] == played[step]
        assert events[end]["run_id"] == "shown"
    assert any(e["event"] == "plan" and e["steps"] for e in events)


def test_each_kind_of_event_carries_what_a_client_renders():
    state = {"step": 3, "run_id": "r", "score": 1.0}
    plan = {"decided": {"plans": [{"subgoal": "cook", "steps": ["take knife"]}]}, "reason": "the knife is here"}
    verdict = {"decided": {"verdicts": [{"proposed": "eat", "approved": False, "valid": True, "feedback": "not yet"}]}}
    command = {"command": "take knife", "reason": "r", "decided": {"actor": [{"how": "grounded", "by": "model"}]}}
    assert node_events("planner", state, plan) == [
        {"event": "plan", "step": 4, "subgoal": "cook", "steps": ["take knife"], "reason": "the knife is here"}
    ]
    assert node_events("critic", state, verdict) == [
        {
            "event": "verdict",
            "step": 4,
            "proposed": "eat",
            "approved": False,
            "valid": True,
            "outcome_matches": None,
            "last_action": None,
            "feedback": "not yet",
        }
    ]
    assert node_events("actor", state, command) == [
        {"event": "command", "step": 4, "command": "take knife", "how": "grounded", "by": "model", "reason": "r"}
    ]
    outcome = node_events("environment", state, {"step": 4, "observation": "You take the knife.", "last_action": "x"})
    assert outcome[0]["event"] == "step"
    assert outcome[0]["step"] == 4
    assert outcome[0]["run_id"] == "r"
    assert node_events("memory_update", state, {"memory_step": 4}) == []
