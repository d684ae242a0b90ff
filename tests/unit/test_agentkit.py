"""AgentKit thought graphs: a YAML declaration is checked (one line naming the node on any fault),
compiled to a LangGraph StateGraph, and run: dependencies' outputs reach the composed prompt, the
chooser's command is one of the valid ones, and a temporary node runs once, in its step only."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agentkit import AgentKitError, load_thoughts
from ariadnegraph.agentkit import thoughts as thoughts_module
from ariadnegraph.agentkit.spec import parse_thoughts
from ariadnegraph.agentkit.thoughts import build_thoughts

GRAPH = """
name: tiny
system: Answer briefly.
database: {plan: "(none)", history: []}
keep: {history: {last: 25}}
nodes:
  - name: look
    prompt: What do you see?
    reads: [observation]
    output: {seen: what is there}
  - name: judge
    prompt: Must the plan change?
    reads: [db.plan]
    after: [look]
    output: {change: yes or no}
    adds:
      - when: {field: change, equals: "yes"}
        node:
          name: replan
          prompt: Write the new plan.
          output: {plan: the plan}
          store: {db.plan: plan}
  - name: act
    prompt: Choose the command.
    reads: [valid_commands, db.plan]
    after: [look, judge]
    choose: command
    output: {command: one valid command, note: one line}
    store: {db.history: note}
"""


class FormModel(BaseChatModel):
    """Answers each form by its tool's name; ``judge`` says ``changes`` in turn (yes on its first call), then no."""

    calls: list[dict[str, Any]] = []
    changes: tuple[str, ...] = ("yes",)

    @property
    def _llm_type(self) -> str:
        return "form-test"

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        tool = kwargs["tools"][0]["function"]
        prompt = str(messages[-1].content)
        self.calls.append({"tool": tool["name"], "prompt": prompt})
        judged = sum(1 for c in self.calls if c["tool"] == "JudgeThought")
        answers = {"LookThought": {"seen": "a tree to the east"},
                   "JudgeThought": {"change": self.changes[judged - 1] if judged <= len(self.changes) else "no"},
                   "ReplanThought": {"plan": "1. walk east 2. collect wood"},
                   "RecapThought": {"recap": "the plan holds"},
                   "ActionChoice": {"action": "move right", "command": "move right", "note": "walked east"}}
        args = answers[tool["name"]]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[
            {"name": tool["name"], "args": args, "id": f"c{len(self.calls)}", "type": "tool_call"}]))])


@pytest.fixture
def model(monkeypatch) -> FormModel:
    fake = FormModel()
    fake.calls = []
    monkeypatch.setattr(thoughts_module, "chat_model", lambda *args, **kwargs: fake)
    return fake


def run_step(graph, db: dict, model: FormModel) -> dict:
    inputs = {"observation": "You face grass.", "valid_commands": ["noop", "move right", "do"], "step": 0}
    return graph.invoke({"inputs": inputs, "db": db, "outputs": {}}, context=AgentContext(model="scripted"))


def test_a_declared_graph_compiles_composes_and_adds_a_temporary_node_for_one_step(model):
    spec = parse_thoughts(GRAPH, "tiny.yaml")
    graph = build_thoughts(spec).compile(checkpointer=False)
    assert set(graph.get_graph().nodes) == {"__start__", "look", "judge", "act", "__end__"}  # replan is not in the graph
    first = run_step(graph, dict(spec.database), model)
    assert first["ran"] == ["look", "judge", "replan", "act"]  # the temporary node right after the node that added it
    assert first["db"]["plan"] == "1. walk east 2. collect wood"
    assert first["db"]["history"] == ["walked east"]
    assert first["outputs"]["act"]["command"] == "move right"
    act_prompt = next(c["prompt"] for c in model.calls if c["tool"] == "ActionChoice")
    assert "## LOOK\nseen: a tree to the east" in act_prompt
    assert "## JUDGE\nchange: yes" in act_prompt
    assert "1. walk east 2. collect wood" in act_prompt
    assert "- move right" in act_prompt
    second = run_step(graph, first["db"], model)
    assert second["ran"] == ["look", "judge", "act"]
    assert "replan" not in second["outputs"]
    assert second["db"]["history"] == ["walked east", "walked east"]


# The paper's removal (section 2.2): judge's "no" skips the planner and hides recap's output from the actor, this step.
REMOVING = """
name: removing
database: {plan: "(none)"}
nodes:
  - name: look
    prompt: What do you see?
    reads: [observation]
    output: {seen: what is there}
  - name: judge
    prompt: Must the plan change?
    after: [look]
    output: {change: yes or no}
    removes:
      - when: {field: change, equals: "no"}
        nodes: [replan]
        edges: [[recap, act]]
  - name: replan
    prompt: Write the new plan.
    after: [judge]
    output: {plan: the plan}
    store: {db.plan: plan}
  - name: recap
    prompt: Sum up the plan.
    after: [judge]
    output: {recap: one line}
  - name: act
    prompt: Choose the command.
    reads: [valid_commands, db.plan]
    after: [look, replan, recap]
    choose: command
    output: {command: one valid command, note: one line}
"""


def test_a_declared_removal_skips_a_node_for_its_step_only_and_the_nodes_after_it_still_run(model):
    spec = parse_thoughts(REMOVING, "removing.yaml")
    graph = build_thoughts(spec).compile(checkpointer=False)
    model.changes = ("no", "yes")
    first = run_step(graph, dict(spec.database), model)
    assert first["ran"] == ["look", "judge", "recap", "act"]
    assert first["removed"] == ["replan"]
    assert "replan" not in first["outputs"]
    assert first["db"].get("plan", "(none)") == "(none)"
    assert first["outputs"]["act"]["command"] == "move right"  # the actor after it still ran
    act_prompt = model.calls[-1]["prompt"]
    assert "## LOOK\nseen: a tree to the east" in act_prompt  # its other dependencies are composed ...
    assert "## REPLAN" not in act_prompt
    assert "## RECAP" not in act_prompt
    assert [c["tool"] for c in model.calls].count("ReplanThought") == 0
    second = run_step(graph, first["db"], model)  # the removal was for the first step only
    assert second["ran"][:2] == ["look", "judge"]
    assert set(second["ran"][2:4]) == {"replan", "recap"}
    assert second["ran"][-1] == "act"
    assert not second.get("removed")
    assert second["db"]["plan"] == "1. walk east 2. collect wood"
    act_prompt = model.calls[-1]["prompt"]
    assert "## REPLAN\nplan: 1. walk east" in act_prompt
    assert "## RECAP\nrecap: the plan holds" in act_prompt


@pytest.mark.parametrize(("old", "new", "message"), [
    ("nodes: [replan]", "nodes: [ghost]", "node 'judge' removes unknown node 'ghost'"),
    ("nodes: [replan]", "nodes: [look]", "node 'judge' removes 'look', which is not after it: only a node not yet evaluated"),
    ("nodes: [replan]", "nodes: [judge]", "node 'judge' removes 'judge', which is not after it"),
    ("nodes: [replan]", "nodes: [act]", "node 'judge' removes 'act', the node that chooses the command, which is never removed"),
    ("    store: {db.plan: plan}", "    store: {db.plan: plan}\n    removable: false", "removes 'replan', which is declared removable: false"),
    ("    store: {db.plan: plan}", "    store: {db.plan: plan}\n    removable: 'no'", "node 'replan': 'removable' is true or false"),
    ("edges: [[recap, act]]", "edges: [[look, act]]", "removes the edge look -> act, but 'look' is not after it"),
    ("edges: [[recap, act]]", "edges: [[replan, recap]]", "removes the edge replan -> recap, which is not declared"),
    ("edges: [[recap, act]]", "edges: [recap, act]", "node 'judge': 'removes' edges must be a list of [from, to]"),
    ('equals: "no"', "equals: no", "node 'judge': 'removes' when: equals is YAML's False; quote the text"),
    ('{field: change, equals: "no"}', "{every: 2, count: db.plan}", "node 'judge' counts db.plan, which is not declared per"),
    ("        nodes: [replan]\n        edges: [[recap, act]]\n", "", "node 'judge': each of 'removes' is {when: ..., nodes:"),
    ("    removes:\n", "    adds:\n      - when: {field: change, equals: 'x'}\n        node: {name: t, prompt: y, output: {o: t}, "
     "removes: []}\n    removes:\n", "temporary node 't': a temporary node neither removes nodes nor is removed"),
])
def test_a_bad_removal_is_refused_when_the_graph_is_read_in_one_line(old, new, message):
    """AgentKit's safeguard (appendix A): only what is not evaluated yet can be removed, checked before anything runs."""
    assert old in REMOVING
    with pytest.raises(AgentKitError) as refused:
        parse_thoughts(REMOVING.replace(old, new), "bad.yaml")
    assert str(refused.value).startswith("bad.yaml: "), str(refused.value)
    assert message in str(refused.value), str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(("text", "message"), [
    ("nodes: [\n  - name: a\n   prompt: x", "invalid YAML at line"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, after: [b]}\n  - {name: b, prompt: y, output: {o: t}, after: [a], choose: o}",
     "node 'a' depends on itself (a -> b -> a)"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, after: [ghost], choose: o}", "node 'a' depends on unknown node 'ghost'"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}}", "exactly one node must 'choose'"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, reads: [weather], choose: o}", "node 'a' reads unknown inputs weather"),
    ("nodes:\n  - {name: a, output: {o: t}, choose: o}", "node 'a' needs a 'prompt'"),
])
def test_a_bad_declaration_fails_in_one_line_naming_the_node(text, message):
    with pytest.raises(AgentKitError) as refused:
        parse_thoughts(text, "bad.yaml")
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_the_crafter_graph_follows_the_papers_nodes():
    spec = load_thoughts("crafter")
    assert [n.name for n in spec.nodes] == ["observe", "action_result", "current_actions", "unexpected", "mistakes",
                                            "reflect", "challenge", "plan_sketch", "gate", "plan_subgoals", "top_subgoal",
                                            "choose_skill", "plan_summary", "learn", "unknowns", "guide", "act"]
    # F.1 obs_current_actions: after s-action, reading the observation and the manual's actions; F.1's readers
    assert spec.node("current_actions").after == ("action_result",)
    assert set(spec.node("current_actions").reads) == {"manual", "observation"}
    assert all("current_actions" in spec.node(n).after for n in ("mistakes", "top_subgoal", "unknowns", "act"))
    # F.1: the plan sketch before the gate; the top subgoal singled out with its guide, read by the skill choice, the
    # unknowns and the actor; at most three guiding questions before the actor (planner-adaptive)
    assert "plan_sketch" in spec.node("gate").after
    assert "challenge" in spec.node("plan_sketch").after
    assert {"guide", "unknowns"} <= set(spec.node("act").after)
    assert "db.top_subgoal" in spec.node("act").reads
    assert "db.top_subgoal" in spec.node("unknowns").reads
    assert "db.top_subgoal" in spec.node("guide").reads
    assert {"unexpected", "mistakes"} <= set(spec.node("challenge").after)  # F.1: the challenge weighs both
    assert spec.action_node.name == "act"
    assert spec.action_node.repeat == "repeats"
    # section 2.2's example: when no update is needed, the gate removes the planner for the step; the nodes after it
    # (the plan's summary, the unknowns, the actor) still run, reading the stored subgoals
    [removal] = spec.node("gate").removes
    assert (removal.field, removal.equals) == ("update", "no")
    assert removal.nodes == ("plan_subgoals", "top_subgoal", "choose_skill")
    assert removal.edges == ()
    assert "choose_skill" in spec.node("plan_summary").after
    assert "top_subgoal" in spec.node("unknowns").after
    assert [a.node.name for a in spec.node("gate").adds] == ["skill_feedback"]
    assert spec.node("gate").adds[0].every == 3  # AgentKit 3.2: feedback every 3 steps under a skill
    assert set(spec.node("top_subgoal").output) == {"subgoal", "completion_criteria", "guide"}
    assert "db.top_subgoal" in spec.node("choose_skill").reads
    assert spec.node("choose_skill").after == ("top_subgoal",)
    assert spec.keep["knowledge"].kind == "collect"
    assert spec.keep["knowledge"].answers == "unknown"
    assert spec.keep["history"].size == 25  # section 3.1: reflection on the 25 most recent steps
    assert "manual" in spec.node("learn").reads
    assert "previous_observation" in spec.node("learn").reads
    assert json.dumps(spec.start())  # plain data: it lives in checkpoints


# -- what the database keeps (agentkit/database.py) -------------------------------------------------

def test_collected_items_merge_by_name_drop_placeholders_and_keep_the_most_recent():
    from ariadnegraph.agentkit.database import Keep, collect, write

    kept = collect([], "- Wood_for_table: 1 wood?\n2. wood per do: 1 wood per do\nnothing", size=3)
    assert kept == ["Wood_for_table: 1 wood?", "wood per do: 1 wood per do"]  # bullets and "nothing" dropped
    kept = collect(kept, "wood for table: 2 wood\nstone_for_furnace: NA", size=3)
    assert kept == ["wood per do: 1 wood per do", "wood for table: 2 wood"]  # same name: the later answer replaces it
    assert collect(kept, "a: 1\nb: 2", size=3) == ["wood for table: 2 wood", "a: 1", "b: 2"]  # the cap drops the oldest
    keep = {"knowledge": Keep("collect", 10, answers="unknown"), "unknown": Keep("collect", 10)}
    db = {"knowledge": [], "unknown": ["wood for table: how many wood?", "sword range: how far?"]}
    assert write(db, keep, "knowledge", "Wood for table: 2 wood") == {
        "knowledge": ["Wood for table: 2 wood"], "unknown": ["sword range: how far?"]}  # answered: off the unknown list


def test_a_per_entry_keeps_one_list_per_group_and_counts_its_writes():
    from ariadnegraph.agentkit.database import Keep, shown, steps_under, write

    keep = {"log": Keep("per", 2, per="skill")}
    db: dict = {"skill": "Gather", "log": {}}
    for line in ("a", "b", "c"):
        db.update(write(db, keep, "log", line))
    db["skill"] = "Craft"
    db.update(write(db, keep, "log", "d"))
    assert db["log"]["Gather"] == {"steps": 3, "items": ["b", "c"]}
    assert shown(db, keep, "log") == ["d"]
    db["skill"] = "Gather"
    assert steps_under(db, keep, "log") == 3
    assert shown(db, keep, "log") == ["b", "c"]
    assert write({"skill": "", "log": {}}, keep, "log", "e") == {}  # no skill chosen yet: not under one


@pytest.mark.parametrize(("text", "message"), [
    ("keep: {h: {last: 0}}\nnodes:\n  - {name: a, prompt: x, output: {o: t}, choose: o}", "keep 'h' needs {last: N}"),
    ("keep: {k: {collect: 5, answers: u}}\nnodes:\n  - {name: a, prompt: x, output: {o: t}, choose: o}", "not a collected entry"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, choose: o, store: {db.h: '{b.o}'}}\n  - {name: b, prompt: y, output: {o: t}}",
     "'b' is not a node that runs before it"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, choose: o, repeat: n}", "'repeat' names another output field"),
    ("nodes:\n  - name: a\n    prompt: x\n    output: {o: t}\n    choose: o\n    adds: [{when: {every: 3, count: db.h}, node: {name: b, prompt: y, output: {o: t}}}]",
     "counts db.h, which is not declared per"),
])
def test_a_bad_keep_store_or_repeat_fails_in_one_line(text, message):
    with pytest.raises(AgentKitError) as refused:
        parse_thoughts(text, "bad.yaml")
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


# -- the crafter graph played through the agent graph ------------------------------------------------

class CrafterForms(BaseChatModel):
    """Answers every form of the crafter graph. Its learn node discovers a new fact on each pass, and its
    unknowns node lists the one the next pass will answer; the actor plays 'move left' ``repeat`` times."""

    calls: list[str] = []
    repeat: str = "1"

    @property
    def _llm_type(self) -> str:
        return "crafter-forms"

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        tool = kwargs["tools"][0]["function"]
        self.calls.append(tool["name"])
        n = self.calls.count(tool["name"])
        args: dict[str, Any] = {field: f"{field} {n}" for field in tool["parameters"]["properties"]}
        args |= {"LearnThought": {"discovered": f"fact {n}: learned on pass {n}"},
                 "UnknownsThought": {"missing": f"fact {n + 1}: to find out"},
                 "GateThought": {"update": "yes" if n == 1 else "no", "reason": "first step"},
                 "ChooseSkillThought": {"skill": "Explore", "description": "walk to new places"},
                 "ActionChoice": {"action": "move left", "repeats": self.repeat}}.get(tool["name"], {})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[
            {"name": tool["name"], "args": args, "id": f"c{len(self.calls)}", "type": "tool_call"}]))])


def play_crafter(monkeypatch, tmp_path, steps: int, repeat: str = "1") -> tuple[CrafterForms, list[dict]]:
    from ariadnegraph.play import Episode, play

    fake = CrafterForms(repeat=repeat)
    fake.calls = []
    monkeypatch.setattr(thoughts_module, "chat_model", lambda *args, **kwargs: fake)
    databases: list[dict] = []
    play(Episode("crafter", max_steps=steps), context=AgentContext(model="scripted", preset="agentkit", run_dir=str(tmp_path)), on_step=lambda update: update.get("thought_db") and databases.append(dict(update["thought_db"])))  # after each command
    return fake, databases


def test_what_the_knowledge_base_learns_at_step_1_is_still_there_at_step_5(monkeypatch, tmp_path):
    fake, databases = play_crafter(monkeypatch, tmp_path, steps=5)
    assert len(databases) == 5
    assert fake.calls.count("LearnThought") == 5
    assert databases[0]["knowledge"] == ["fact 1: learned on pass 1"]
    assert databases[-1]["knowledge"] == [f"fact {n}: learned on pass {n}" for n in range(1, 6)]  # nothing wiped
    assert databases[-1]["unknown"] == ["fact 6: to find out"]  # each answered unknown left the list
    assert len(databases[-1]["history"]) == 5
    assert "chose: move left" in databases[-1]["history"][0]
    assert databases[-1]["skills"] == ["Explore: walk to new places"]
    assert databases[-1]["skill"] == "Explore"
    # every 3 steps under one skill, its feedback: after the 3rd step played under Explore (at the 4th pass)
    assert fake.calls.count("SkillFeedbackThought") == 1
    assert databases[-1]["skill_feedback"]["Explore"]["items"]
    # the gate says update at step 1 only: the planner ran then, and was removed at steps 2-5, the nodes after it not
    assert [fake.calls.count(t) for t in ("PlanSubgoalsThought", "TopSubgoalThought", "ChooseSkillThought")] == [1, 1, 1]
    assert fake.calls.count("PlanSummaryThought") == 5
    assert fake.calls.count("UnknownsThought") == 5


def test_the_chosen_repeat_count_plays_the_command_again_without_thinking(monkeypatch, tmp_path):
    fake, databases = play_crafter(monkeypatch, tmp_path, steps=6, repeat="3 times")
    assert len(databases) == 6
    assert fake.calls.count("ActionChoice") == 2
    assert [d["_repeat"]["left"] for d in databases] == [2, 1, 0, 2, 1, 0]


def composed(monkeypatch) -> list[dict]:
    """The sections of every thought node's prompt, in the order the nodes are asked."""
    seen: list[dict] = []
    original = thoughts_module.role_messages
    monkeypatch.setattr(thoughts_module, "role_messages", lambda system, sections: seen.append(dict(sections)) or original(system, sections))
    return seen


def test_every_thought_node_gets_the_environment_brief_and_the_crafter_nodes_read_the_manual(monkeypatch, tmp_path):
    from ariadnegraph.envs.families import family_of

    seen = composed(monkeypatch)
    play_crafter(monkeypatch, tmp_path, steps=1)
    assert len(seen) >= 9
    assert all(sections["ENVIRONMENT"] == family_of("crafter").brief for sections in seen)
    learn = next(sections for sections in seen if "unknown list can you now answer" in sections["QUESTION"])
    assert "- make wood pickaxe: place table, collect wood" in learn["MANUAL"]  # built from crafter's data.yaml
    assert learn["PREVIOUS OBSERVATION"] == "(the game starts)"
    assert "You face" in learn["OBSERVATION"]
    # the subgoal planner sees the challenge it plans for, the reflection and the observation's summary (AgentKit's
    # planner reads them; a temporary node sees only what it declares after:)
    planning = next(sections for sections in seen if "Write three subgoals" in sections["QUESTION"])
    assert "challenge: challenge 1" in planning["CHALLENGE"]
    assert "reflection: reflection 1" in planning["REFLECT"]
    assert "summary: summary 1" in planning["OBSERVE"]
    assert "vitals" in planning["OBSERVE"]
    challenge = next(sections for sections in seen if "which one comes first" in sections["QUESTION"])
    assert "unexpected: unexpected 1" in challenge["UNEXPECTED"]
    assert "mistake: mistake 1" in challenge["MISTAKES"]
    gate = next(sections for sections in seen if "still fit the top challenge" in sections["QUESTION"])
    assert "INVENTORY" in gate
    assert "summary: summary 1" in gate["OBSERVE"]


def test_every_actions_requirements_are_checked_each_step_and_the_planner_and_the_actor_read_it(monkeypatch, tmp_path):
    """F.1 obs_current_actions: after the last action's result, each action of the manual checked against the
    observation; F.1's planner_mistake, top-subgoal, subgoal_analysis and actor nodes read it (here: mistakes,
    top_subgoal, unknowns, act), every step, whether the gate replans or not."""
    seen = composed(monkeypatch)
    fake, _ = play_crafter(monkeypatch, tmp_path, steps=2)
    assert fake.calls.count("CurrentActionsThought") == 2
    assert fake.calls.count("PlanSubgoalsThought") == 1
    analysis = next(sections for sections in seen if "list of actions" in sections["QUESTION"])
    assert "You face" in analysis["OBSERVATION"]
    assert "Inventory:" in analysis["OBSERVATION"]
    assert "- make wood pickaxe: a table nearby; wood in the inventory" in analysis["MANUAL"]  # what an action needs
    assert "success: success 1" in analysis["ACTION RESULT"]  # F.1: after s-action
    readers = ("make a mistake", "Single out the highest priority subgoal", "What does the top subgoal need", "Choose the command")
    for question in readers:
        reader = next(sections for sections in seen if question in sections["QUESTION"])
        assert reader["CURRENT ACTIONS"] == "possible: possible 1\nblocked: blocked 1\nunlocks: unlocks 1", question
    actor_at_step_2 = [sections for sections in seen if "Choose the command" in sections["QUESTION"]][1]
    assert actor_at_step_2["CURRENT ACTIONS"].startswith("possible: possible 2")  # the planner was removed, not it


def test_a_preset_with_no_thought_graph_for_the_environment_is_refused_in_one_line(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from ariadnegraph.evals.plan import EvalError, EvalRequest
    from ariadnegraph.evals.planning import plan_eval

    ariadne = str(Path(sys.executable).parent / "ariadne")
    env = {k: v for k, v in os.environ.items() if k != "ARIADNE_PRESET"}
    bad = subprocess.run([ariadne, "play", "--env", "cooking:1", "--preset", "agentkit", "--model", "scripted", "--run-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 2, bad.stderr
    assert bad.stderr.count("\n") == 1, bad.stderr
    assert bad.stderr.startswith("ariadne: error: preset 'agentkit' has no thought graph for textworld.cooking environments")
    assert not list(tmp_path.iterdir())  # refused before any write
    with pytest.raises(EvalError, match="no thought graph for twx.cookingworld"):
        plan_eval(EvalRequest(suite="tales-twx", presets=["agentkit"], out=tmp_path / "out"))


# -- the whole declaration checked before anything runs (issue 35) -----------------------------------

CHOOSER = "  - {name: act, prompt: x, output: {o: t}, choose: o}\n"


def _adds(adds: str, output: str = "{u: t}") -> str:
    """A graph whose first node, 'gate', adds what ``adds`` (YAML, indented under 'adds:') declares."""
    return f"nodes:\n  - name: gate\n    prompt: x\n    output: {output}\n    adds:\n{adds}\n" + CHOOSER


TEMPORARY = "      - when: {field: u, equals: 'yes'}\n        node: "


@pytest.mark.parametrize(("text", "message"), [
    (_adds(TEMPORARY + "{name: t, prompt: y, output: {o: t}, after: [ghost]}"),
     "temporary node 't' (added by 'gate') depends on 'ghost', which is not 'gate' or a node that runs before it"),
    (_adds(TEMPORARY + "{name: t, prompt: y, output: {o: t}, after: [act]}"), "depends on 'act', which is not 'gate'"),
    (_adds(TEMPORARY + "{name: t, prompt: y, output: {c: t}, choose: c}"), "temporary node 't': a temporary node cannot choose"),
    ("keep: {k: {collect: 5, last: 3}}\nnodes:\n" + CHOOSER, "keep 'k': {collect: ...} takes answers and collect, not last"),
    ("keep: {k: {per: skill}}\nnodes:\n" + CHOOSER, "keep 'k' needs {last: N}"),
    ("keep: {'my key': {last: 3}}\nnodes:\n" + CHOOSER, "keep 'my key': a database entry is a name"),
    ("nodes:\n  - {name: gate, prompt: x, output: {u: t}, adds: 'a string'}\n" + CHOOSER, "node 'gate': 'adds' must be a list"),
    (_adds("      - [when, node]"), "node 'gate': each of 'adds' is {when: ..., node: ...}"),
    (_adds("      - when: 'u is yes'\n        node: {name: t, prompt: y, output: {o: t}}"), "node 'gate': 'adds' needs when:"),
    (_adds("      - when: {field: u, equals: ''}\n        node: {name: t, prompt: y, output: {o: t}}"),
     "'adds' when: equals needs a value"),
    (_adds("      - when: {field: u, equals: yes}\n        node: {name: t, prompt: y, output: {o: t}}"),
     "equals is YAML's True; quote the text"),
    (_adds("      - when: {every: true, count: db.k}\n        node: {name: t, prompt: y, output: {o: t}}"), "'adds' needs when:"),
    (_adds("      - when: {field: u, equals: 'y', every: 2}\n        node: {name: t, prompt: y, output: {o: t}}"), "'adds' needs when:"),
    ("nodes:\n  - {name: a, prompt: x, output: {_note: t, o: t}, choose: o}", "output field '_note' starts with '_'"),
    ("nodes:\n  - {name: a, prompt: x, output: {model_config: t, o: t}, choose: o}", "output field 'model_config' is a name pydantic"),
    ("nodes:\n  - {name: a, prompt: x, output: {schema: t, o: t}, choose: o}", "output field 'schema' is a name pydantic"),
    ("nodes:\n  - {name: a, prompt: x, output: {1: t, o: t}, choose: o}", "output field 1 is not a name"),
    ("nodes:\n  - {name: a, prompt: x, output: {action: t, o: t}, choose: o}", "output field 'action' is the chosen command's"),
    ("nodes:\n  - {name: __start__, prompt: x, output: {o: t}, choose: o}", "node '__start__': names starting with '__' are LangGraph's"),
    ("nodes:\n  - {name: __end__, prompt: x, output: {o: t}, choose: o}", "node '__end__': names starting with '__'"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: ''}, choose: o}", "node 'a' needs 'output': field names with a description"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, choose: o, store: {db.h: ''}}", "node 'a': 'store' maps db.KEY"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, choose: o, store: {db.: o}}", "node 'a': 'store' maps db.KEY"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, choose: o, reads: [db.]}", "node 'a' reads unknown inputs db."),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, choose: o, reads: ['']}", "node 'a': 'reads' must be a list of names"),
    ("nodes:\n  - {name: b, prompt: y, output: {o: t}}\n  - {name: a, prompt: x, output: {o: t}, choose: o, after: [b, b]}",
     "node 'a': 'after' names 'b' twice"),
    ("nodes:\n  - {name: a, prompt: x, output: {o: t}, choose: [o]}", "node 'a': 'choose' names no output field"),
])
def test_every_part_of_a_declaration_is_checked_in_one_line(text, message):
    """Temporary nodes, adds, when, keep, field and node names and empty values: each once passed the check and
    failed at step 0 (an AttributeError, a pydantic or LangGraph error), leaving a run that could not resume."""
    with pytest.raises(AgentKitError) as refused:
        parse_thoughts(text, "bad.yaml")
    assert message in str(refused.value), str(refused.value)
    assert "\n" not in str(refused.value), str(refused.value)
    assert str(refused.value).startswith("bad.yaml: ")


def test_a_graph_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\xe9\nnodes:\n  - {name: a, prompt: x, output: {o: t}, choose: o}\n".encode("latin-1"))
    with pytest.raises(AgentKitError, match=f"thought graph '{path}' is not UTF-8 text"):
        load_thoughts(str(path))


def test_a_bad_graph_is_refused_before_the_run_folder_exists(tmp_path):
    """A node named __start__ once passed the check, and the run it started failed at step 0, unresumable."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    graph = tmp_path / "bad.yaml"
    graph.write_text("nodes:\n  - {name: __start__, prompt: x, output: {o: t}, choose: o}\n")
    runs = tmp_path / "runs"
    ariadne = str(Path(sys.executable).parent / "ariadne")
    bad = subprocess.run([ariadne, "play", "--env", "crafter", "--preset", "agentkit", "--set", f"thoughts={graph}",
                          "--run-dir", str(runs), "--max-steps", "2"], capture_output=True, text=True, timeout=120, env=os.environ.copy())
    assert bad.returncode == 2, bad.stderr
    assert bad.stderr.count("\n") == 1, bad.stderr
    assert bad.stderr.startswith("ariadne: error: bad.yaml: node '__start__'")
    assert not runs.exists() or not any(runs.iterdir())


def test_a_thought_node_reads_the_commands_the_family_shows_a_model():
    from ariadnegraph.agentkit.thoughts import episode_inputs
    from ariadnegraph.envs.families import family_of

    things = [f"thing {n}" for n in range(30)]
    science = [f"{verb} {thing}" for verb in ("look at", "pick up", "open", "focus on") for thing in things]
    science += [f"move {a} to {b}" for a in things for b in things[:20]]  # 600 more: ScienceWorld's pairs
    shown = episode_inputs({"env": "scienceworld:melt", "goal": "melt ice", "admissible": science}, {}, None)
    assert len(science) == 720
    assert len(shown["valid_commands"]) <= family_of("scienceworld:melt").commands_shown
    assert set(shown["valid_commands"]) <= set(science)
    crafter = ["noop", "move left", "do", "sleep"]
    assert episode_inputs({"env": "crafter", "admissible": crafter}, {}, None)["valid_commands"] == crafter
