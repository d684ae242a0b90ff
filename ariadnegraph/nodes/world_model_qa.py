"""World-model QA, two ways (``monologue`` switch):

- ``tools``: the inner monologue before planning. A model questions the temporal KG through tools, in a
  loop it drives; the same loop, exported as the ``ask`` graph (:mod:`ariadnegraph.graphs.qa`), answers
  a user's question about a run's memory.
- ``transitions`` (DAVIS, algorithms 1-2): after planning, for each planned step the model predicts the
  game's answer and reward; while it needs to know something it asks one question instead, answered by
  §3.4's graph search over dated facts (gold runs read into memory, and this episode), and is asked
  again with the monologue so far, at most ``qa_turns`` questions per step (:func:`predict_transitions`);
  ``rollout`` interleaves it with the planner, one imagined step at a time (:func:`predict_rollout_step`). With
  ``safety_check`` the whole predicted trajectory is then judged before any of it is played (:func:`safety_checked`).

The loop is a small graph (prepare → think ⇄ tools), ``build_monologue(kg_of)``: ``kg_of`` hands the
tools node the memory it reads (the ``world_model_qa`` node: the live session's, handed to it; the ``ask``
graph: a finished run's, resolved by graphs/qa.py). The node runs it as a subgraph without checkpoints of
its own (inside an agent step it is one unit of work, run again whole if the step is resumed). The model decides which
tools to call; its first turn must look
something up (a monologue that consults nothing only repeats the planner), and after the preset's
``qa_turns`` tool turns it must answer without tools, so the loop always ends.

Tool calls are native, or in JSON mode a ``json_schema`` lookup format for models and servers
without native tool calls (``AgentContext.tool_calling``; :mod:`ariadnegraph.models.tool_json`).
Every turn's reply is counted under ``world_model_qa`` like a structured reply: ``parsed`` or
``repaired`` (a call read from the text), with ``cut``, ``tool_in_content``, ``unknown_tool`` and
``repeated_lookup`` issues; a lookup the conversation already holds ends the lookups (small models
repeat themselves until the turn limit).
"""

from __future__ import annotations

import json
import re
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.presets import Preset
from ..agent.readers import MemoryView
from ..agent.recall import world_history
from ..agent.records import PlanStep
from ..agent.session import Session
from ..agent.state import AgentState, add_usage
from ..memory.transitions import ENTITY_TYPES, THIS_EPISODE, DatedFact, EmbedFn, entity_types, graph_search
from ..models import FALLBACK, PARSED, REASKED, REPAIRED, invoke_model, usage_of
from ..models.prompts import REASK_TOOL
from ..models.structured import CUT, INVALID_JSON, TOOL_IN_CONTENT, ask_with_format, was_cut
from ..models.tool_json import (
    REPEATED_LOOKUP,
    UNKNOWN_TOOL,
    attempted_call,
    calls_in_content,
    lookup_format,
    plain_conversation,
    read_lookup,
    tools_text,
)
from ..models.usage import Usage
from ..prompting import QUESTION, render_sections
from ..tools.kg_recall import recall
from ..tools.kg_tools import KG_TOOLS, TOOL_NAMES, KGReader, call_kg_tool
from .common import (
    after_rejection,
    ask_structured,
    belief_section,
    chat_model,
    environment_section,
    extra_commands,
    feedback_section,
    merged,
    role_messages,
    trace_reply,
)
from .prompts import (
    ASK,
    ASK_FORMAT,
    FINAL_ANSWER,
    GRAPH_ANSWER,
    SAFETY_CHECK,
    TRANSITION,
    WORLD_MODEL_QA,
    entity_focus_prompt,
)
from .schemas import QA_ANSWER_CHARS, QA_REPLY_TOKENS, EntityFocus, SafetyVerdict, TransitionPrediction

NODE = "world_model_qa"


class QAState(TypedDict, total=False):
    run_id: str
    question: str  # the ask graph's input: a bare question
    as_of: int | None  # the memory as it was at this step
    note: str  # the ask graph's: a step asked past the run's last is answered as of that last step
    answer_format: str | None  # how the asker wants the answer written: in the system message, never recalled for
    messages: Annotated[list[AnyMessage], add_messages]
    turns: int
    answer: str
    usage: Annotated[dict[str, dict[str, int]], add_usage]
    replies: Annotated[dict[str, dict[str, int]], add_usage]


KGSource = Callable[[QAState, Runtime[AgentContext]], KGReader]  # the memory a monologue's tools read


def prepare_node(kg_of: KGSource) -> Callable[..., dict[str, Any]]:
    """The first node: a bare question (the ask graph) becomes the conversation, with what memory recalls for it
    (:func:`~ariadnegraph.tools.kg_recall.recall`), which counts as the first lookup: the model may answer from it at
    once. The agent's monologue passes its own messages instead, and must look something up first."""

    def prepare(state: QAState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        if state.get("messages"):
            return {"turns": 0}
        if not state.get("question"):
            raise ValueError("ask needs a question")
        # recalled for the question alone: "step 0" or 'yes' in the answer's format are nothing it names
        recalled = recall(state["question"], kg_of(state, runtime))
        # the format in the system message, as the transcript answerers have their rules (under the question a small
        # model answered with the rules' own words, 'no' or 'nothing'; shown last, after the recall, in sentences)
        system = f"{ASK}\n\n{state.get('answer_format') or ASK_FORMAT}"
        body = render_sections({p.RECALLED: recalled or p.NONE, QUESTION: state["question"]})
        return {
            "turns": 1 if recalled else 0,
            "messages": [SystemMessage(content=system), HumanMessage(content=body)],
        }

    return prepare


def _with_tools_text(messages: Sequence[BaseMessage], tools: list) -> list[BaseMessage]:
    """JSON mode: the tools described at the end of the system message (constant, so it stays in
    the cached prefix); the conversation in plain messages."""
    plain = plain_conversation(messages)
    if plain and isinstance(plain[0], SystemMessage):
        return [SystemMessage(content=f"{plain[0].content}\n\n{tools_text(tools)}"), *plain[1:]]
    return [SystemMessage(content=tools_text(tools)), *plain]


def _final_answer(
    model, messages: list[AnyMessage], tools: list, json_mode: bool, retries: int
) -> tuple[AIMessage, list, AIMessage, bool]:
    """The answer without tools: (reply, prompt, raw reply, cut). In JSON mode the model still writes
    the JSON it was taught (``{"answer": ...}``), under a format that allows nothing else."""
    prompt: list[BaseMessage] = [*messages, HumanMessage(content=FINAL_ANSWER)]
    if json_mode:
        prompt = _with_tools_text(prompt, tools)
        raw, cut = ask_with_format(
            model, lookup_format([], allow_answer=True, answer_chars=QA_ANSWER_CHARS), prompt, retries
        )
        found = read_lookup(raw.content if isinstance(raw.content, str) else "", ())
        return AIMessage(content="" if found.tool_calls else found.content), prompt, raw, cut  # never another lookup
    raw = invoke_model(model, prompt, retries=retries)
    return (
        AIMessage(content=raw.content if isinstance(raw.content, str) else str(raw.content)),
        prompt,
        raw,
        was_cut(raw),
    )


def _lookup_key(call: Mapping[str, Any]) -> str:
    return json.dumps([call.get("name"), call.get("args")], sort_keys=True, default=str)


def _lookup(model, messages: list[AnyMessage], tools: list, turns: int, json_mode: bool, retries: int):
    """One lookup turn: (reply with tool_calls or an answer, prompt sent, raw reply, cut, calls read from text)."""
    names = [t.name for t in tools]
    if json_mode:
        prompt = _with_tools_text(messages, tools)
        lookup = lookup_format(tools, allow_answer=turns > 0, answer_chars=QA_ANSWER_CHARS)
        raw, cut = ask_with_format(model, lookup, prompt, retries)
        return read_lookup(raw.content if isinstance(raw.content, str) else "", names), prompt, raw, cut, False
    raw = invoke_model(model.bind_tools(tools, tool_choice="any" if turns == 0 else None), messages, retries=retries)
    cut = was_cut(raw)
    salvaged = calls_in_content(raw, names)
    return (salvaged or raw), messages, raw, cut, salvaged is not None


def _lookup_turn(
    model, messages: list[AnyMessage], turns: int, json_mode: bool, retries: int, issues: Counter
) -> tuple[AIMessage, Usage, bool, bool, bool]:
    """A turn that may look something up: (the reply, its usage, cut, a call read from its text, fell back). A call
    it could not write is asked once more, told why (a second failure ends the lookups with no findings); a lookup
    the conversation already holds ends the lookups with the answer, due now. ``issues`` counts what went wrong."""
    tools, names = list(KG_TOOLS), list(TOOL_NAMES)
    fell_back = False
    reply, prompt, raw, cut, salvaged = _lookup(model, messages, tools, turns, json_mode, retries)
    usage = usage_of(prompt, raw)
    text = raw.content if isinstance(raw.content, str) else ""
    if not reply.tool_calls and attempted_call(text):
        issues[INVALID_JSON] += 1
        retry = [*messages, AIMessage(content=text), HumanMessage(content=REASK_TOOL.format(tools=", ".join(names)))]
        reply, prompt, raw, cut_again, salvaged = _lookup(model, retry, tools, turns, json_mode, retries)
        usage, cut = usage.add(usage_of(prompt, raw)), cut or cut_again
        again = raw.content if isinstance(raw.content, str) else ""
        if not reply.tool_calls and attempted_call(again):
            issues[INVALID_JSON] += 1
            reply, fell_back = AIMessage(content=""), True
    done = {_lookup_key(c) for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    if reply.tool_calls and all(_lookup_key(c) in done for c in reply.tool_calls):
        # Asking again what it has already been told: the lookups are over, the answer is due now.
        issues[REPEATED_LOOKUP] += 1
        reply, prompt, raw, cut_answer = _final_answer(model, messages, tools, json_mode, retries)
        usage, cut = usage.add(usage_of(prompt, raw)), cut or cut_answer
    return reply, usage, cut, salvaged, fell_back


def think(state: QAState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    turns = state.get("turns", 0)
    messages = list(state["messages"])
    model = chat_model(context, NODE, max_tokens=QA_REPLY_TOKENS)
    json_mode = context.tool_mode() == "json"
    issues: Counter = Counter()
    fell_back = salvaged = False
    if turns >= _turn_budget(state, context):
        reply, prompt, raw, cut = _final_answer(model, messages, list(KG_TOOLS), json_mode, context.max_retries)
        usage = usage_of(prompt, raw)
    else:
        reply, usage, cut, salvaged, fell_back = _lookup_turn(
            model, messages, turns, json_mode, context.max_retries, issues
        )
    if salvaged:
        issues[TOOL_IN_CONTENT] += 1
    if cut:
        issues[CUT] += 1
    issues[UNKNOWN_TOOL] += sum(1 for call in reply.tool_calls if call["name"] not in TOOL_NAMES)
    issues = +issues  # drop zero counts
    outcome = FALLBACK if fell_back else REPAIRED if salvaged else REASKED if issues[INVALID_JSON] else PARSED
    trace_reply(NODE, outcome, issues)
    update: dict[str, Any] = {
        "messages": [reply],
        "usage": {NODE: usage.to_dict()},
        "replies": {NODE: {outcome: 1, **issues}},
    }
    if not reply.tool_calls:
        update["answer"] = reply.content if isinstance(reply.content, str) else str(reply.content)
    return update


ASK_TURNS = 5  # lookups a user's question gets (DAVIS's budget), whatever the preset gives its own monologue


def _turn_budget(state: QAState, context: AgentContext) -> int:
    """The agent's monologue: the preset's turns; a user's question (the ask graph): ``qa_turns`` when given, else
    ASK_TURNS."""
    if state.get("question"):
        return context.qa_turns if context.qa_turns is not None else ASK_TURNS
    return context.switches.qa_turns


def tools_node(kg_of: KGSource) -> Callable[..., dict[str, Any]]:
    """The tools node: answers each tool call of the last reply over the memory ``kg_of`` hands it."""

    def tools(state: QAState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        kg = kg_of(state, runtime)
        last = state["messages"][-1]
        calls = last.tool_calls if isinstance(last, AIMessage) else []
        return {"messages": [call_kg_tool(call, kg) for call in calls], "turns": state.get("turns", 0) + 1}

    return tools


def route_after_think(state: QAState) -> Literal["tools", "__end__"]:
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else "__end__"


def build_monologue(
    kg_of: KGSource,
    input_schema: type[Any] = QAState,
    output_schema: type[Any] = QAState,
    check: Callable[..., dict[str, Any]] | None = None,
) -> StateGraph[QAState, AgentContext, Any, Any]:
    """The loop as a graph whose tools read the memory ``kg_of`` gives; ``check``: a node run first that refuses
    a malformed request (the ask graphs)."""
    builder = StateGraph(QAState, context_schema=AgentContext, input_schema=input_schema, output_schema=output_schema)
    if check is not None:
        builder.add_node("check", check)
        builder.add_edge(START, "check")
        builder.add_edge("check", "prepare")
    else:
        builder.add_edge(START, "prepare")
    builder.add_node("prepare", prepare_node(kg_of))
    builder.add_node("think", think)
    builder.add_node("tools", tools_node(kg_of))
    builder.add_edge("prepare", "think")
    builder.add_conditional_edges("think", route_after_think)
    builder.add_edge("tools", "think")
    return builder


def agent_monologue(session: MemoryView) -> CompiledStateGraph[QAState, AgentContext, Any, Any]:
    """The monologue over the live session's memory (handed in): messages in; messages, answer, usage and replies out.
    No
    checkpointer of its own: one unit of work. (Compiled per call, ~9 ms: the memory is handed in, not looked up.)"""
    return build_monologue(lambda state, runtime: session.kg()).compile(name="world_model_qa", checkpointer=False)


# A subgraph without a checkpointer inherits its parent's durability: under the agent's "sync" it
# fails (langgraph 1.x looks for a checkpoint write that never started), so it runs with "exit",
# which LangGraph then reports as having no effect, every turn. It has none: that is the point.
warnings.filterwarnings("ignore", message="`durability` has no effect when no checkpointer is present")


def situation_sections(state: AgentState, preset: Preset) -> dict[str, object]:
    """What a prediction and the safety check read of the step, in the order consecutive calls share."""
    return {
        p.ENVIRONMENT: environment_section(state),
        p.GOAL: state.get("goal", ""),
        p.BELIEF: belief_section(state, preset),
        p.LOCATION: state.get("location") or p.UNKNOWN,
        p.INVENTORY: p.inventory_text(state.get("inventory")),
        p.OBSERVATION: state.get("observation", ""),
    }


def world_model_qa(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    if runtime.context.switches.monologue == "transitions":
        return predict_transitions(state, runtime, session)
    if runtime.context.switches.monologue == "rollout":
        return predict_rollout_step(state, runtime, session)
    sections = {
        p.ENVIRONMENT: environment_section(state),
        p.GOAL: state.get("goal", ""),
        p.COMMANDS: extra_commands(runtime.context.switches),
        p.BELIEF: belief_section(state, runtime.context.switches),
        p.LOCATION: state.get("location") or p.UNKNOWN,
        p.INVENTORY: p.inventory_text(state.get("inventory")),
        p.PLAN: p.plan_lines(state.get("plan")),
        **feedback_section(state.get("feedback"), p.NONE),
    }
    result = agent_monologue(session).invoke(
        {"messages": role_messages(WORLD_MODEL_QA, sections), "run_id": state["run_id"]},
        context=runtime.context,
        durability="exit",
    )
    answer = result.get("answer") or ""
    notes = [line.strip("- ").strip() for line in answer.splitlines() if line.strip()]
    returned = " ".join(str(m.content) for m in result.get("messages", []) if isinstance(m, ToolMessage))
    decided = {
        "notes": notes,
        "unsupported_notes": len(unsupported(notes, returned)),
        "lookups": result.get("turns", 0),
    }
    return {"notes": notes, "usage": result.get("usage", {}), "replies": result.get("replies", {}), "decided": decided}


_NOTE_WORD = re.compile(r"[a-z]{3,}")


def unsupported(notes: Sequence[str], returned: str) -> list[str]:
    """The notes whose answer (after '->', else the whole line) names nothing any tool returned: what the
    model made up or copied from its instructions."""
    seen = set(_NOTE_WORD.findall(returned.lower()))
    found = []
    for note in notes:
        finding = p.parse_finding_line(note)
        answer = finding[1] if finding else note
        words = set(_NOTE_WORD.findall(answer.lower())) - {"the", "and", "not", "are", "was", "you"}
        if words and not words & seen:
            found.append(note)
    return found


# -- DAVIS: algorithm 2 for each planned step, with §3.4's graph QA -------------------------------------
ENTITIES_LISTED = 30  # names of one kind shown when narrowing a question (the most recent ones)
DATED_RECORDED = 12  # dated facts of an answer kept in the step's trajectory line
NOT_KNOWN = "not known: memory holds nothing about it"


def entities_section(history: Sequence[DatedFact]) -> list[str]:
    """The entities memory knows, by kind (the most recent of each)."""
    by_kind: dict[str, list[str]] = {kind: [] for kind in ENTITY_TYPES}
    for name, kinds in entity_types(history).items():
        for kind in kinds:
            by_kind[kind].append(name)
    return [f"{kind}: {', '.join(names[-ENTITIES_LISTED:])}" for kind, names in by_kind.items() if names]


def graph_qa(
    question: str, history: Sequence[DatedFact], embed: EmbedFn, state: Mapping[str, Any], context: AgentContext
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """§3.4: the model narrows the question to kinds of entities (and may name two); the two most relevant
    entities of those kinds are expanded to their subgraph, whose facts, in time order, the model answers
    from. Returns (answer, what the search found, the calls' accounting)."""
    record: dict[str, Any] = {"question": question}
    if not history:
        return NOT_KNOWN, {**record, "entities": [], "dated": []}, {}
    step = state.get("step", 0)
    focus, update = ask_structured(
        context,
        node=NODE,
        schema=EntityFocus,
        system=entity_focus_prompt(ENTITY_TYPES),
        sections={p.QUESTION: question, p.ENTITIES: entities_section(history)},
        fallback=EntityFocus(),
        step=step,
    )
    seeds, facts = graph_search(question, history, embed, focus.types, focus.entities)
    lines = [f.describe() for f in facts]
    record.update(
        {
            "types": list(focus.types),
            "entities": seeds,
            "facts": len(facts),
            "from_other_runs": sum(1 for f in facts if f.source != THIS_EPISODE),
            "dated": lines[:DATED_RECORDED],
        }
    )
    if not facts:
        return NOT_KNOWN, record, merged([update])
    model = chat_model(context, NODE, max_tokens=QA_REPLY_TOKENS)
    prompt = role_messages(GRAPH_ANSWER, {p.QUESTION: question, p.DATED_FACTS: lines})
    raw = invoke_model(model, prompt, retries=context.max_retries)
    answer = (
        " ".join((raw.content if isinstance(raw.content, str) else str(raw.content)).split())[:QA_ANSWER_CHARS]
        or NOT_KNOWN
    )
    outcome = {CUT: 1} if was_cut(raw) else {}
    trace_reply(NODE, PARSED, outcome)
    answered = {"usage": {NODE: usage_of(prompt, raw).to_dict()}, "replies": {NODE: {PARSED: 1, **outcome}}}
    return answer, {**record, "answer": answer}, merged([update, answered])


def predict_step(
    given: PlanStep,
    predicted: list[str],
    state: AgentState,
    context: AgentContext,
    history: Sequence[DatedFact],
    embed: EmbedFn,
) -> tuple[PlanStep, list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    """Algorithm 2 for one step: predict the game's answer and reward from the belief, the steps before it
    (``predicted``) and the monologue M; a reply that asks a question adds (q, graphQA(q)) to M and is asked again,
    until it predicts or ``qa_turns`` questions were asked (then the planner's own expectation stands where the
    model gave none). Returns (the step with its prediction, M, the searches, the calls' accounting)."""
    preset = context.switches
    planned: PlanStep = {**given}
    monologue: list[str] = []
    searches: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    asked: set[str] = set()
    for turn in range(preset.qa_turns + 1):
        sections = {
            **situation_sections(state, preset),
            p.PREDICTED: predicted or p.NONE,
            p.PROPOSED_ACTION: planned["action"],
            p.EXPECTED: planned.get("expected") or p.NOTHING_EXPECTED,  # the planner's own guess
            p.MONOLOGUE: monologue or p.NONE,
        }
        fallback = TransitionPrediction(observation=planned.get("expected", ""), reward=planned.get("reward", ""))
        prediction, update = ask_structured(
            context,
            node=NODE,
            schema=TransitionPrediction,
            system=TRANSITION,
            sections=sections,
            fallback=fallback,
            step=state.get("step", 0),
        )
        updates.append(update)
        question = " ".join(prediction.question.split())
        if not question or turn == preset.qa_turns or question.lower() in asked:
            break
        asked.add(question.lower())
        answer, found, update = graph_qa(question, history, embed, state, context)
        updates.append(update)
        monologue.append(p.finding_line(question, answer))
        searches.append({"action": planned["action"], **found})
    if prediction.observation.strip():
        planned["expected"] = prediction.observation.strip()
    if preset.expected_rewards and prediction.reward.strip():
        planned["reward"] = prediction.reward.strip()
    return planned, monologue, searches, updates


def predict_transitions(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    """Algorithm 2 for each step of the new plan (``monologue="transitions"``: the plan is written whole first)."""
    context = runtime.context
    history = world_history(state, session, context.memory_from, runtime.store)
    embed = session.memory.embedder.embed
    plan: list[PlanStep] = []
    updates: list[dict[str, Any]] = []
    notes: list[str] = []
    searches: list[dict[str, Any]] = []
    for planned in state.get("plan") or []:
        step, monologue, found, asked = predict_step(planned, p.prediction_lines(plan), state, context, history, embed)
        plan.append(step)
        notes += monologue
        searches += found
        updates += asked
    decided = {"notes": notes, "monologue": searches, "predicted": p.prediction_lines(plan)}
    checked, update = safety_checked(plan, state, context)
    return {
        "plan": plan,
        "notes": notes,
        **checked,
        "decided": {**decided, **checked.get("decided", {})},
        **merged([*updates, update]),
    }


def predict_rollout_step(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    """DAVIS's algorithm 1, line 4: algorithm 2 for the step just imagined, knowing the outcomes predicted before it;
    once ``plan_length`` steps are imagined the trajectory is the plan, else the policy imagines the next
    (graphs/agent.route_after_world_model_qa)."""
    context = runtime.context
    rollout: list[PlanStep] = [{**step} for step in state.get("rollout") or []]
    if not rollout:
        return {}
    history = world_history(state, session, context.memory_from, runtime.store)
    step, monologue, searches, updates = predict_step(
        rollout[-1], p.prediction_lines(rollout[:-1]), state, context, history, session.memory.embedder.embed
    )
    rollout[-1] = step
    notes = [*(state.get("notes") or []), *monologue]
    decided: dict[str, Any] = {"notes": monologue, "monologue": searches, "predicted": p.prediction_lines([step])}
    if len(rollout) < context.switches.plan_length:
        return {"rollout": rollout, "notes": notes, "decided": decided, **merged(updates)}
    plans = [{"subgoal": state.get("subgoal"), "steps": [s["action"] for s in rollout], "feedback": None}]
    checked, update = safety_checked(rollout, state, context)
    return {
        "plan": rollout,
        "rollout": [],
        "notes": notes,
        **checked,
        "decided": {**decided, "plans": plans, **checked.get("decided", {})},
        **merged([*updates, update]),
    }


# -- DAVIS's algorithm 1, lines 7-8: the predicted trajectory checked before any of it is played ---------------------
SAFETY_NODE = "safety_check"


def safety_checked(
    trajectory: list[PlanStep], state: AgentState, context: AgentContext
) -> tuple[dict[str, Any], dict[str, Any]]:
    """With ``safety_check``, one call judges the whole predicted ``trajectory`` (each command with its predicted
    outcome and reward) before any of it is played. Returns (what the verdict changes in the state, the call's
    accounting): only its record when it passes, nothing when no check is made. A rejected trajectory is dropped
    and the planner asked for a new plan with the reason, while the step's replans last (each new plan counts one,
    so this ends); then, as ``rejected`` says, it is played anyway or withheld (the step looks instead). An
    unreadable reply passes it, as the critic's approves (counted as a fallback). Algorithm 1 checks tau after each
    step's prediction: tau only grows, so this one check after the last sees every step those would, at one call a
    plan; and with no supervisor to alert, a rejection is a new plan."""
    preset = context.switches
    if not preset.safety_check or not trajectory:
        return {}, {}
    sections = {
        **situation_sections(state, preset),
        p.PREDICTED: p.prediction_lines(trajectory),
    }
    verdict, update = ask_structured(
        context,
        node=SAFETY_NODE,
        schema=SafetyVerdict,
        system=SAFETY_CHECK,
        sections=sections,
        fallback=SafetyVerdict(safe=True),
        step=state.get("step", 0),
    )
    record = {"trajectory": sections[p.PREDICTED], "safe": verdict.safe, "reason": verdict.reason or None}
    if verdict.safe:
        return {"decided": {"safety": [{**record, "then": "played"}]}}, update
    reason = verdict.reason.strip() or "no reason given"
    commands = "; ".join(step["action"] for step in trajectory)
    then, rejection = after_rejection(state, preset, "safety", f"the plan '{commands}', before it was played,", reason)
    if then == "replanned":  # the new plan starts a new rollout
        rejection = {**rejection, "plan": [], "rollout": []}
    return {**rejection, "decided": {"safety": [{**record, "then": then}]}}, update
