"""A declared thought graph (:mod:`.spec`) compiled to a LangGraph StateGraph, and the agent node that
runs it once per game step.

Each declared node becomes a graph node. It composes its prompt the way AgentKit's default compose
does (the database entries and episode inputs it reads, then its dependencies' outputs, then its own
question), asks for its output fields as a schema (the node that chooses the command gets the valid
commands as an enum), and its after-query writes the database and may add temporary nodes: those are
evaluated right after it, once, for this step only (they are not part of the compiled graph). It may also
remove nodes and edges after it for this step (AgentKit section 2.2): a removed node stays in the compiled
graph but returns at once without a call, so LangGraph still starts the nodes after it, which compose
without its output (the state's ``removed`` and ``removed_edges`` start empty each step). A reply that
cannot be read is sent back with the problem (``call_structured``), then falls back.

The database persists across steps in the agent's state (``thought_db``); each entry keeps what is
written to it as the graph's ``keep`` declares (:mod:`.database`: a step history, a knowledge base that
accumulates, one list per skill). The chooser's repeat count plays its command that many times, the
later ones without a thought pass (AgentKit section 4.1: ``repeat_number``).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Collection
from functools import cache
from typing import Annotated, Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field, create_model
from typing_extensions import TypedDict

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.state import AgentState, add_usage
from ..controller.rules import shown_commands
from ..envs.text import safe_command
from ..models import call_structured
from ..nodes.common import (
    chat_model,
    environment_section,
    episode_family,
    reply_update,
    role_messages,
)
from ..nodes.schemas import action_choice
from . import database
from .spec import DB_PREFIX, FIELD_CHARS, TEMPLATE, NodeSpec, ThoughtSpec, When, load_thoughts, thoughts_for

NODE = "thoughts"
REPEAT_MOST = 6  # the actor plans at most the next 6 steps (AgentKit F.1, actor-actions): no longer repeat
# Entries of the database the runtime keeps (not declared by a graph): the command still to be repeated,
# and the observation the last thought pass saw (the o_{T-1} AgentKit's knowledge base compares with o_T).
REPEAT_KEY, SEEN_KEY = "_repeat", "_seen"
GAME_START = "(the game starts)"


def merge_outputs(
    left: dict[str, dict[str, str]] | None, right: dict[str, dict[str, str]] | None
) -> dict[str, dict[str, str]]:
    return {**(left or {}), **(right or {})}


class ThoughtState(TypedDict, total=False):
    inputs: dict[str, Any]  # this step's episode inputs (observation, valid commands, ...)
    db: Annotated[dict[str, Any], merge_outputs]  # the database, as it stands after this step's writes
    outputs: Annotated[dict[str, dict[str, str]], merge_outputs]  # node name -> its fields, this step
    ran: Annotated[list[str], operator.add]  # nodes evaluated this step, temporary ones included, in order
    removed: Annotated[list[str], operator.add]  # declared nodes removed for this step (skipped)
    removed_edges: Annotated[list[tuple[str, str]], operator.add]  # (from, to): from's output hidden from to
    usage: Annotated[dict[str, dict[str, int]], add_usage]
    replies: Annotated[dict[str, dict[str, int]], add_usage]


def output_schema(node: NodeSpec, valid: list[str]) -> type[BaseModel]:
    fields: dict[str, Any] = {
        name: (str, Field(description=text, max_length=FIELD_CHARS)) for name, text in node.output.items()
    }
    if node.choose:
        # The chooser asks for the actor's schema (the command as an enum of the valid ones, under a
        # grammar) plus its other fields, which may be left empty.
        base = action_choice(valid)
        fields.pop(node.choose)
        extra: dict[str, Any] = {
            name: (str, Field(default="", description=field.description, max_length=FIELD_CHARS))
            for name, (_, field) in fields.items()
        }
        return create_model(base.__name__, __base__=base, **extra)
    return create_model(f"{node.name.title().replace('_', '')}Thought", **fields)


def _section_name(key: str) -> str:
    return key.removeprefix(DB_PREFIX).replace("_", " ").upper()


def compose(
    node: NodeSpec,
    inputs: dict[str, Any],
    db: dict[str, Any],
    outputs: dict[str, dict[str, str]],
    spec: ThoughtSpec | None = None,
    hidden: Collection[str] = (),
) -> dict[str, object]:
    """AgentKit's default compose: the ENVIRONMENT brief every node is given, what the node reads, its
    dependencies' outputs, then its question. A dependency removed this step (it has no output) or whose
    edge to this node was removed (``hidden``) is left out, as the paper's removal takes the edge away."""
    sections: dict[str, object] = {p.ENVIRONMENT: inputs.get("environment") or None}
    keep = spec.keep if spec is not None else {}
    for key in node.reads:
        value = database.shown(db, keep, key.removeprefix(DB_PREFIX)) if key.startswith(DB_PREFIX) else inputs.get(key)
        sections[_section_name(key)] = value if isinstance(value, list) else ("" if value is None else str(value))
    for dependency in node.after:
        if dependency in hidden or dependency not in outputs:
            continue
        sections[_section_name(dependency)] = "\n".join(f"{k}: {v}" for k, v in outputs[dependency].items())
    sections[p.QUESTION] = node.prompt
    return sections


def fill(template: str, answer: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    """A store template with the node's fields ({field}) and earlier nodes' ({node.field}) filled in."""

    def value(match: re.Match[str]) -> str:
        name, field_name = match.group(1), match.group(2)
        return answer.get(name, "") if not field_name else (outputs.get(name) or {}).get(field_name, "")

    return TEMPLATE.sub(value, template).strip()


def _write(
    db: dict[str, Any], node: NodeSpec, answer: dict[str, str], spec: ThoughtSpec, outputs: dict[str, dict[str, str]]
) -> dict[str, Any]:
    """The after-query's database writes, each kept as the graph declares (in the order the node stores them)."""
    writes: dict[str, Any] = {}
    for key, template in node.store.items():
        writes.update(
            database.write({**db, **writes}, spec.keep, key.removeprefix(DB_PREFIX), fill(template, answer, outputs))
        )
    return writes


def _holds(when: When, answer: dict[str, str], db: dict[str, Any], spec: ThoughtSpec) -> bool:
    """Whether an addition's or a removal's condition holds for this answer and database."""
    if when.every:
        steps = database.steps_under(db, spec.keep, when.count)
        return steps > 0 and steps % when.every == 0
    return answer.get(when.field, "").strip().lower().startswith(when.equals)


def evaluate(
    node: NodeSpec,
    spec: ThoughtSpec,
    inputs: dict[str, Any],
    db: dict[str, Any],
    outputs: dict[str, dict[str, str]],
    context: AgentContext,
    hidden: Collection[str] = (),
) -> dict[str, Any]:
    """One node: compose, query, after-query (database writes, removals, temporary nodes). Returns a state
    update."""
    valid = list(inputs.get("valid_commands") or [])
    schema = output_schema(node, valid)
    fallback_fields = {name: "" for name in node.output}
    if node.choose:
        fallback_fields.pop(node.choose)
        fallback_fields["action"] = safe_command(valid)
    model = chat_model(context, NODE, part=node.name)  # each thought keeps its own prompt-cache slot
    messages = role_messages(spec.system, compose(node, inputs, db, outputs, spec, hidden))
    result = call_structured(
        model,
        schema,
        messages,
        max_tries=context.structured_tries,
        fallback=schema(**fallback_fields),
        retries=context.max_retries,
    )
    answer = {k: str(v) for k, v in result.value.model_dump().items()}
    if node.choose:
        answer[node.choose] = answer.pop("action")
    accounting = reply_update(f"{NODE}.{node.name}", int(inputs.get("step") or 0), result)
    writes = _write(db, node, answer, spec, outputs)
    update: dict[str, Any] = {
        "outputs": {node.name: answer},
        "db": writes,
        "ran": [node.name],
        "usage": accounting["usage"],
        "replies": accounting["replies"],
    }
    removals = [r for r in node.removes if _holds(r, answer, {**db, **writes}, spec)]
    if removals:  # the spec checked that each comes after this node: LangGraph has not started them
        update["removed"] = [name for r in removals for name in r.nodes]
        update["removed_edges"] = [edge for r in removals for edge in r.edges]
    for addition in node.adds:
        if _holds(addition, answer, {**db, **writes}, spec):
            # A temporary node: evaluated now, after the node that added it (and the ones it added before),
            # and gone at the end of the step.
            extra = evaluate(addition.node, spec, inputs, {**db, **writes}, {**outputs, **update["outputs"]}, context)
            update |= {
                "outputs": {**update["outputs"], **extra["outputs"]},
                "db": {**writes, **extra["db"]},
                "ran": update["ran"] + extra["ran"],
                "usage": add_usage(update["usage"], extra["usage"]),
                "replies": add_usage(update["replies"], extra["replies"]),
            }
            writes = update["db"]
    return update


def _graph_node(node: NodeSpec, spec: ThoughtSpec):
    def run(state: ThoughtState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        if node.name in (state.get("removed") or []):
            return {}  # removed for this step: no call, and LangGraph still starts the nodes after it
        hidden = {start for start, end in state.get("removed_edges") or [] if end == node.name}
        db, outputs = state.get("db") or {}, state.get("outputs") or {}
        return evaluate(node, spec, state["inputs"], db, outputs, runtime.context, hidden)

    run.__name__ = node.name
    return run


def build_thoughts(spec: ThoughtSpec) -> StateGraph[ThoughtState, AgentContext, ThoughtState, ThoughtState]:
    """The declared DAG as a StateGraph: a node starts when all its dependencies are done (a removed one is done at
    once, so LangGraph's static DAG runs what AgentKit's Kahn traversal of the graph without it would)."""
    builder = StateGraph(ThoughtState, context_schema=AgentContext)
    needed_by = {n.name: [m.name for m in spec.nodes if n.name in m.after] for n in spec.nodes}
    for node in spec.nodes:
        builder.add_node(node.name, _graph_node(node, spec))
    for node in spec.nodes:
        if not node.after:
            builder.add_edge(START, node.name)
        elif len(node.after) == 1:
            builder.add_edge(node.after[0], node.name)
        else:
            builder.add_edge(list(node.after), node.name)  # waits for every dependency
        if not needed_by[node.name]:
            builder.add_edge(node.name, END)
    return builder


@cache
def compiled_thoughts(name_or_path: str):
    spec = load_thoughts(name_or_path)
    return spec, build_thoughts(spec).compile(name=f"thoughts:{spec.name}", checkpointer=False)


def repeats(text: str) -> int:
    """The chooser's repeat count: the first whole number in its answer, 1 to REPEAT_MOST (1 when none)."""
    found = re.search(r"\d+", text or "")
    return max(1, min(REPEAT_MOST, int(found.group()))) if found else 1


def _last_action(state: AgentState, pending: dict[str, Any] | None) -> str:
    last = state.get("last_action") or p.START_ACTION
    times = int((pending or {}).get("times") or 1)
    return f"{last} ({times} times in a row)" if times > 1 and (pending or {}).get("command") == last else last


def episode_inputs(state: AgentState, db: dict[str, Any], pending: dict[str, Any] | None) -> dict[str, Any]:
    """What a thought node may read of this step (``reads:`` names them). The valid commands are those a model is
    shown (ScienceWorld lists about a thousand: the family's cut); what the chooser picks is checked against all."""
    family, goal, inventory = episode_family(state), state.get("goal") or "", state.get("inventory") or []
    return {
        "goal": state.get("goal", ""),
        "observation": state.get("observation", ""),
        "valid_commands": shown_commands(family, goal, inventory, list(state.get("admissible") or [])),
        "inventory": p.inventory_text(state.get("inventory")),
        "location": state.get("location") or p.UNKNOWN,
        "step": state.get("step", 0),
        "last_action": _last_action(state, pending),
        "score": state.get("score", 0),
        "environment": environment_section(state) or "",
        "manual": family.manual() or "",
        "previous_observation": db.get(SEEN_KEY) or GAME_START,
    }


SKILL_DECIDED = "skill"  # the trajectory line's record of the skill a command was played under (AgentKit fig. 4)


def thoughts(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """The agent node: one pass of the thought graph written for this environment chooses this step's
    command, and how often to play it; a command still to be repeated is played without a pass."""
    context = runtime.context
    env = state.get("env") or ""
    spec, graph = compiled_thoughts(thoughts_for(context.switches.thoughts or "", env, context.preset))
    valid = list(state.get("admissible") or [])
    db = {**spec.start(), **(state.get("thought_db") or {})}
    pending = db.get(REPEAT_KEY) or {}
    if (
        int(pending.get("left") or 0) > 0
        and state.get("last_action") == pending.get("command")
        and (pending["command"] in valid or not valid)
    ):
        left = int(pending["left"]) - 1
        return {
            "command": pending["command"],
            "thought_db": {**db, REPEAT_KEY: {**pending, "left": left}},
            "thought_trace": [],
            "reason": f"repeat {int(pending['times']) - left} of {pending['times']}",
            "decided": {SKILL_DECIDED: [str(db.get("skill") or "")]},
        }
    observation = state.get("observation", "")
    inputs = episode_inputs(state, db, pending)
    result = graph.invoke({"inputs": inputs, "db": db, "outputs": {}}, context=context, durability="exit")
    answer = (result.get("outputs") or {}).get(spec.action_node.name, {})
    chosen = answer.get(spec.action_node.choose or "", "")
    command = chosen if chosen in valid or not valid else safe_command(valid)
    times = repeats(answer.get(spec.action_node.repeat, "")) if spec.action_node.repeat else 1
    thought_db = {
        **(result.get("db") or {}),
        SEEN_KEY: observation,
        REPEAT_KEY: {"command": command, "times": times, "left": times - 1},
    }
    return {
        "command": command,
        "thought_db": thought_db,
        "subgoal": str(thought_db.get("subgoals", ""))[:200],
        "usage": result.get("usage") or {},
        "replies": result.get("replies") or {},
        "thought_trace": result.get("ran") or [],
        "decided": {SKILL_DECIDED: [str(thought_db.get("skill") or "")]},  # the step's line: actions per skill
    }
