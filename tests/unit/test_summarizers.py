"""The summarizers as their papers run them. STMA (algorithm 2 and appendix D.1): the history buffer holds the
critic's feedback with each step, the summarizer writes the belief afresh from that buffer alone, and the memory path
runs once a plan. AriGraph's summary baseline (appendix E): the last summary rewritten from the recent steps."""

from __future__ import annotations

import json
from collections import defaultdict

from langgraph.runtime import Runtime

from ariadnegraph import prompting as p
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.presets import PRESETS, switch_values
from ariadnegraph.graphs import agent
from ariadnegraph.nodes import common
from ariadnegraph.nodes.environment import buffered_feedback
from ariadnegraph.nodes.summarizer import summarizer
from ariadnegraph.play import Episode, play
from tests.fakes import QueuedChatModel, structured

STMA = switch_values(PRESETS["stma"])
PLAN = [{"action": "go east", "expected": "Hall"}]


def test_a_plans_later_steps_skip_the_memory_path_and_a_rejection_runs_it_first():
    in_hand = {"switches": STMA, "step": 5, "plan": PLAN, "needs_plan": False, "memory_step": 4}
    assert agent.route_after_environment(in_hand) == "critic"  # judged with the beliefs the plan was made with
    assert agent.route_after_environment({**in_hand, "plan": []}) == "summarizer"  # a plan is to be made
    assert agent.route_after_environment({**in_hand, "done": True}) == "summarizer"  # the last step is remembered
    rejected = {**in_hand, "needs_plan": True}
    assert agent.route_after_critic(rejected) == "summarizer"  # algorithm 2: a rejection goes back to line 4
    assert agent.route_after_critic({**rejected, "memory_step": 5}) == "planner"  # memory already ran this step
    assert agent.route_after_critic({**in_hand}) == "actor"
    every_step = {**in_hand, "switches": {**STMA, "memory_cadence": "step"}}
    assert agent.route_after_environment(every_step) == "summarizer"
    assert agent.route_after_critic({**every_step, "needs_plan": True}) == "planner"


def test_the_buffer_keeps_the_critics_feedback_with_the_command_it_came_before():
    decided = {"verdicts": [{"proposed": "eat carrot", "feedback": "the carrot is raw"}, {"proposed": "take knife"}]}
    assert buffered_feedback({"decided": decided}, PRESETS["stma"]) == {"feedback": "the carrot is raw"}
    assert buffered_feedback({"decided": decided}, PRESETS["ariadne"]) == {}
    records = [
        {"step": 3, "action": "take knife", "observation": "You take the knife.", "feedback": "the\ncarrot is raw"}
    ]
    shown = p.history_transcript(records)
    assert shown.splitlines()[1] == f"{p.FEEDBACK_MARK}the carrot is raw)"
    assert p.parse_history_transcript(shown) == [(3, "take knife", "You take the knife.")]  # not what the game said


def test_the_stma_summarizer_writes_afresh_from_the_buffer_alone(monkeypatch):
    model = QueuedChatModel(replies=[structured("TrajectorySummary", belief="Step 1 go east: into the Hall.")])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    history = [
        {"step": 0, "action": None, "observation": "-= Kitchen =- A fridge."},
        {"step": 1, "action": "go east", "observation": "-= Hall =- A door.", "feedback": "the fridge can wait"},
    ]
    state = {
        "run_id": "r",
        "step": 1,
        "goal": "Cook",
        "belief": "old belief",
        "history": history,
        "last_action": "go east",
        "observation": "-= Hall =- A door.",
    }
    update = summarizer(state, Runtime(context=AgentContext(preset="stma")))
    assert update["belief"] == "Step 1 go east: into the Hall."
    human = [m for m in model.calls[0]["messages"] if m.type == "human"][0].content
    sections = p.parse_sections(human)
    assert p.PREVIOUS_BELIEF not in sections
    assert p.OBSERVATION not in sections
    assert "old belief" not in human
    assert p.parse_history_transcript(sections[p.HISTORY]) == [
        (0, "", "-= Kitchen =- A fridge."),
        (1, "go east", "-= Hall =- A door."),
    ]
    assert "the fridge can wait" in sections[p.HISTORY]  # the buffer's (f, o, a)


def test_a_played_stma_episode_summarizes_and_retrieves_once_a_plan(tmp_path):
    play(Episode("cooking:1", seed=1, max_steps=8), run_id="stma", context=AgentContext(preset="stma", run_dir=str(tmp_path)))
    calls = [json.loads(line) for line in (tmp_path / "stma" / "calls.jsonl").read_text().splitlines()]
    nodes_by_step: dict[int, set[str]] = defaultdict(set)
    for call in calls:
        if "node" in call:  # a call's record (its outcome is a line of its own)
            nodes_by_step[call["step"]].add(call["node"])
    planned = {step for step, nodes in nodes_by_step.items() if "planner" in nodes}
    summarized = {step for step, nodes in nodes_by_step.items() if "summarizer" in nodes}
    aggregated = {step for step, nodes in nodes_by_step.items() if "aggregator" in nodes}
    last = max(nodes_by_step)  # the episode's last step is summarized into memory, and nothing is planned after it
    assert planned
    assert summarized - {last} == planned == aggregated
    assert len(planned) < len(nodes_by_step)  # some steps followed a plan made earlier
    assert all("critic" in nodes_by_step[step] for step in range(last))  # every command played was judged


def test_the_summary_baseline_rewrites_its_last_summary_from_the_recent_steps_as_arigraph_asks(monkeypatch):
    """AriGraph's summarization prompt (appendix E): goal, the last steps, the observation and the previous summary."""
    from ariadnegraph.nodes.prompts import SUMMARIZER_PARAGRAPHS

    model = QueuedChatModel(replies=[structured("ParagraphSummary", belief="In the Hall.\n\nNothing tried failed.")])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    history = [{"step": i, "action": f"go {i}" if i else None, "observation": f"room {i}"} for i in range(8)]
    state = {"run_id": "r", "step": 7, "goal": "Cook", "belief": "old summary", "history": history,
             "last_action": "go 7", "observation": "room 7"}
    update = summarizer(state, Runtime(context=AgentContext(preset="summary")))
    assert update["belief"] == "In the Hall.\n\nNothing tried failed."
    system, human = model.calls[0]["messages"][0].content, model.calls[0]["messages"][1].content
    sections = p.parse_sections(human)
    assert system == SUMMARIZER_PARAGRAPHS
    assert sections[p.PREVIOUS_BELIEF] == "old summary"
    assert [step for step, _, _ in p.parse_history_transcript(sections[p.HISTORY])] == [2, 3, 4, 5, 6]  # the last 5
    assert sections[p.OBSERVATION] == "room 7"


def test_the_trajectory_summary_shows_its_shape_with_placeholders_not_a_world_the_model_could_copy() -> None:
    """The 1.5B model wrote the example's kitchen, fridge and note into its step-0 belief of a game starting in a
    pantry (cooking:2@38201): the example now names no room, thing or text."""
    from ariadnegraph.nodes.prompts import SUMMARIZER_TRAJECTORY

    example = SUMMARIZER_TRAJECTORY.split("Reply with JSON only", 1)[1]
    assert "<room>" in example
    assert "<command>" in example
    assert not any(word in example.lower() for word in ("kitchen", "fridge", "apple", "pantry", "note", "east"))


def test_the_trajectory_summarys_budget_grows_with_the_steps_it_tells(monkeypatch) -> None:
    """A line a step: a short buffer gets a short budget (the 1.5B model looped to 1000 tokens on 4 steps), a full
    one the schema's 1000."""
    from ariadnegraph.nodes.schemas import TrajectorySummary
    from ariadnegraph.nodes.summarizer import TRAJECTORY_TOKENS_BASE, TRAJECTORY_TOKENS_PER_STEP

    budgets: list[int | None] = []

    def load(*args, max_tokens=None, **kwargs):
        budgets.append(max_tokens)
        return QueuedChatModel(replies=[structured("TrajectorySummary", belief="Step 0, the start.")])

    monkeypatch.setattr(common, "load_chat_model", load)
    for steps in (4, 30):
        history = [{"step": s, "action": "look" if s else None, "observation": "-= Hall =-"} for s in range(steps)]
        state = {"run_id": "r", "step": steps - 1, "goal": "Cook", "history": history, "observation": "-= Hall =-"}
        summarizer(state, Runtime(context=AgentContext(preset="stma")))
    assert budgets == [TRAJECTORY_TOKENS_BASE + 4 * TRAJECTORY_TOKENS_PER_STEP, TrajectorySummary.reply_tokens]
