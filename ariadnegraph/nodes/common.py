"""What every LLM-backed node does the same way: load the role's model (bounded replies, its own
prompt-cache slot), ask for a structured reply (repair, re-ask, recorded fallback), and report the
call's usage and reply outcome under the node's name."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.callbacks import dispatch_custom_event
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.past import ANSWER_SHOWN, EpisodePast
from ..agent.presets import Preset
from ..agent.records import Feedback, FeedbackSource, PlanStep, feedback, feedback_of
from ..agent.session import Session
from ..agent.state import HISTORY_KEPT, AgentState, add_usage
from ..controller.rules import offered_commands, shown_commands
from ..controller.steps import confirmations
from ..controller.view import View
from ..envs.families import GENERIC, GameFamily, family_named, family_of
from ..envs.text import checklist, safe_command
from ..models import FALLBACK, StructuredResult, call_structured, is_local, is_no_model, load_chat_model
from ..models.local.server import SLOTS
from ..tracing import name_model_calls
from .prompts import EXPLORE_COMMAND, GO_TO_COMMAND

T = TypeVar("T", bound=BaseModel)

ROLES = ("summarizer", "extraction", "qa", "planner", "critic", "actor")  # AgentContext.<role>_model overrides each


@dataclass(frozen=True)
class ModelNode:
    """A node that calls a model: the role whose model it uses, and its prompt-cache slot on a local server."""

    role: str
    slot: int | None  # consecutive prompts of one slot share their prefix in its KV cache (None: any free slot)


# The one table of the nodes that call a model (their names key the accounting, the replies and the trace).
MODEL_NODES: dict[str, ModelNode] = {
    "summarizer": ModelNode("summarizer", 0),
    "relation_retriever": ModelNode("extraction", 1),
    "outdated_check": ModelNode("extraction", 1),  # AriGraph's second extraction call: the relation retriever's slot
    "world_model_qa": ModelNode("qa", 2),
    "planner": ModelNode("planner", 3),
    "critic": ModelNode("critic", 4),
    "actor": ModelNode("actor", 5),
    "exploration_check": ModelNode("planner", 6),
    "aggregator": ModelNode("summarizer", 7),  # the server has 8 slots (models.local.server.SLOTS)
    "importance": ModelNode("extraction", 1),  # Simulacra's memory roles, in the slots of the roles it does not run
    "insights": ModelNode("summarizer", 0),
    "reflection": ModelNode("planner", None),
    "safety_check": ModelNode("critic", None),  # DAVIS's check of the predicted trajectory: a critic's judgement
    "thoughts": ModelNode("planner", None),  # AgentKit's thought graph
    # the task's question (nodes/worked_out.py): the world model's knowledge, in the QA role's slot (the presets that
    # ask it run no world-model QA)
    "worked_out": ModelNode("qa", 2),
}
# Who chose a command (``by`` of records.PlanStep and records.ActorDecision): the model, or code (a list read followed,
# the way to what it needs walked, the moves of a route the model chose, a guard's reason: nodes/guards.Reason, a given
# script, a fallback for an unusable reply)
BY_MODEL = "model"
BY_LIST = "list"
BY_WALK = "walk"  # toward what the next step needs, seen in another room (controller/steps.way_to_step): no model
BY_ROUTE = "route"
BY_SCRIPT = "script"
BY_FALLBACK = "fallback"
BY_ORACLE = "oracle"
BY_WITHHELD = "withheld"  # a command the critic (or a plan the safety check) rejected, not sent: a look instead (STMA)
BY_RANDOM = "random"  # drawn at random from the valid commands (the random_walk switch)
BY_CONTROLLER = "way forward"  # the controller's first candidate, where no language model chooses (--model none)
BY_WORKED = "worked out"  # the move that carries out what the model worked out of the task (nodes/worked_out.py)
BY_TOOL = "tool"  # the take of a thing the task needs carried, lying here (controller/propose.tool_here): no model
# Issues a node finds in a reply after reading it (models.structured and models.tool_json name the others)
INADMISSIBLE = "inadmissible"  # a command that is not among the valid ones
UNGROUNDED = "ungrounded"  # a fact naming something the text it was read from never mentions
REPLY_EVENT = "ariadne_reply"  # custom callback event: one per structured call (tracing.CallLog writes it)


def check_models(context: AgentContext) -> None:
    """Load every role's model once, so a bad model string fails before an episode writes anything
    (and a local model's server is up before the first step); ``none`` loads nothing."""
    for role in ROLES:
        if not is_no_model(context.model_for(role)):
            _load(context, role, slot=None, max_tokens=None)


LOCAL_REQUEST_TIMEOUT = 900.0  # a local model on 2 cores reads ~35 prompt tokens/s: a 16k-token prompt takes ~8 minutes


def chat_model(
    context: AgentContext, node: str, *, part: str | None = None, max_tokens: int | None = None
) -> BaseChatModel:
    """The model ``node`` calls (its role's, MODEL_NODES), pinned to the node's prompt-cache slot; a node without one
    that asks several prompts in turn (AgentKit's thought graph) names the ``part`` asking, which keeps a slot of its
    own, so each part's prompt prefix stays cached from one step to the next."""
    calling = MODEL_NODES[node]
    slot = calling.slot if calling.slot is not None or part is None else zlib.crc32(part.encode()) % SLOTS
    name_model_calls(f"{node}.{part} ({calling.role})" if part else f"{node} ({calling.role})")  # its trace's name
    return _load(context, calling.role, slot=slot, max_tokens=max_tokens)


def _load(context: AgentContext, role: str, *, slot: int | None, max_tokens: int | None) -> BaseChatModel:
    spec = context.model_for(role)
    timeout = max(context.request_timeout, LOCAL_REQUEST_TIMEOUT) if is_local(spec) else context.request_timeout
    return load_chat_model(
        spec,
        base_url=context.base_url,
        timeout=timeout,
        max_retries=context.max_retries,
        max_tokens=max_tokens,
        slot=slot,
    )


def episode_family(state: Mapping[str, Any]) -> GameFamily:
    """The episode's game family, as the environment node resolved it at the first step (a state checkpointed before
    families were kept is resolved from its env spec). A node with the run's session reads ``session.family``."""
    return family_named(state.get("family")) or (family_of(state["env"]) if state.get("env") else GENERIC)


def controller_view(state: Mapping[str, Any], context: AgentContext, session: Session) -> View:
    """What the controller reads of this step (controller/view.py): the one place a node's state becomes its view (the
    family as the environment node resolved it for the episode)."""
    return View(
        family=episode_family(state),
        switches=context.switches,
        memory=session.memory,
        past=session.past,
        goal=state.get("goal") or "",
        observation=state.get("observation") or "",
        location=state.get("location"),
        inventory=tuple(state.get("inventory") or ()),
        valid=tuple(state.get("admissible") or ()),
        readings=tuple(state.get("readings") or ()),
        step=state.get("step", 0),
        score=float(state.get("score", 0.0) or 0.0),
        progress_step=state.get("progress_step", 0),
        replans=state.get("replans", 0),
        avoid=frozenset(state.get("avoid") or ()),
        env=state.get("env"),
        worked_out=tuple((kept["question"], kept["answer"]) for kept in state.get("worked_out") or ()),
    )


def environment_section(state: Mapping[str, Any]) -> str | None:
    """The ENVIRONMENT section: what kind of world the episode is in (None before the env is known)."""
    return episode_family(state).brief_for(state.get("goal") or "") if state.get("env") else None


def role_messages(system: str, sections: Mapping[str, object]) -> list[BaseMessage]:
    return [SystemMessage(content=system), HumanMessage(content=p.render_sections(sections))]


def trace_reply(
    node: str, outcome: str, issues: Mapping[str, int], *, tries: int = 1, errors: list[str] | None = None
) -> None:
    """The verdict on one model reply as a trace event (``calls.jsonl`` gets a ``reply`` line)."""
    try:
        dispatch_custom_event(
            REPLY_EVENT,
            {"node": node, "outcome": outcome, "issues": dict(issues), "tries": tries, "errors": (errors or [])[-2:]},
        )
    except RuntimeError:  # called outside a graph run (no parent run to attach the event to)
        pass


def reply_update(node: str, step: int, result: StructuredResult) -> dict[str, Any]:
    """The state update accounting for one structured call, and its trace event."""
    counts = result.counts()
    trace_reply(node, result.outcome, result.issues, tries=result.tries, errors=result.errors)
    update: dict[str, Any] = {"usage": {node: result.usage.to_dict()}, "replies": {node: counts}}
    if result.fell_back:
        update["fallbacks"] = [f"step {step}: {node} used its fallback after {result.tries} tries: {result.errors[-1]}"]
    return update


def ask_structured(
    context: AgentContext,
    *,
    node: str,
    schema: type[T],
    system: str,
    sections: Mapping[str, object],
    fallback: T,
    step: int,
    reply_tokens: int | None = None,
) -> tuple[T, dict[str, Any]]:
    """The parsed reply (or ``fallback``) and the state update that accounts for the call; ``reply_tokens``: the
    reply's budget when this call needs less than the schema's."""
    model = chat_model(context, node, max_tokens=reply_tokens or getattr(schema, "reply_tokens", None))
    result = call_structured(
        model,
        schema,
        role_messages(system, sections),
        max_tries=context.structured_tries,
        fallback=fallback,
        retries=context.max_retries,
    )
    return result.value, reply_update(node, step, result)


def merged(updates: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The accounting of several calls of a node (usage, reply outcomes, fallbacks) as one state update."""
    usage: dict[str, dict[str, int]] = {}
    replies: dict[str, dict[str, int]] = {}
    fallbacks: list[str] = []
    for update in updates:
        usage = add_usage(usage, update.get("usage"))
        replies = add_usage(replies, update.get("replies"))
        fallbacks += update.get("fallbacks") or []
    return {"usage": usage, "replies": replies, **({"fallbacks": fallbacks} if fallbacks else {})}


EPISODE_RETRIEVALS = ("arigraph", "rag", "simulacra")  # the retrievals that fetch past observations (episodes)


def fell_back(update: Mapping[str, Any], node: str) -> bool:
    """Whether ``node``'s model reply in ``update`` was unusable (its recorded fallback was used)."""
    return bool((update.get("replies") or {}).get(node, {}).get(FALLBACK))


def with_issue(update: dict[str, Any], node: str, issue: str, n: int = 1) -> dict[str, Any]:
    """``update`` also counting an issue the node found in a reply after reading it (e.g. an
    inadmissible command, an ungrounded triplet)."""
    if not n:
        return update
    replies = {k: dict(v) for k, v in (update.get("replies") or {}).items()}
    counts = replies.setdefault(node, {})
    counts[issue] = counts.get(issue, 0) + n
    return {**update, "replies": replies}


def history_section(history: list[dict[str, Any]] | None, length: int | None, full_text: bool) -> list[str] | str:
    """The recent steps a role reads: ``length`` of them (None: all), compact or whole (prompting's formats)."""
    records = list(history or [])
    if length is not None:
        records = records[-length:] if length > 0 else []
    return p.history_transcript(records) if full_text else p.history_lines(records)


def recent_history(state: Mapping[str, Any], past: EpisodePast, length: int | None) -> list[dict[str, Any]]:
    """The steps a window of ``length`` (None: the whole episode) needs, as {step, action, observation}: the
    state's own window (the last ``HISTORY_KEPT`` steps), or the index of the past for a longer one."""
    window = list(state.get("history") or [])
    if len(window) < HISTORY_KEPT or (length is not None and length <= len(window)):
        return window  # the whole episode so far (the window is not full yet), or enough of it
    return [
        {"step": r["step"], "action": r["action"], "observation": r["observation"]}
        for r in past.records(until=state.get("step", 0))
    ]


DONE_HERE_SHOWN = 8  # commands listed under DONE HERE, the latest


def done_here_section(state: Mapping[str, Any], past: EpisodePast, preset: Preset) -> list[str] | None:
    """The DONE HERE section (``loop_guard`` presets): what was tried here, and the answer it got."""
    if not preset.loop_guard:
        return None
    tried = past.tried_here(state)
    return [p.tried_line(command, answer, count) for command, (count, answer) in tried.items()][-DONE_HERE_SHOWN:]


def extra_commands(preset: Preset) -> list[str] | None:
    """The EXTRA COMMANDS section: 'go to' and 'explore' where the actor expands them on the KG's map."""
    extra = [GO_TO_COMMAND] if preset.go_to else []
    extra += [EXPLORE_COMMAND] if preset.explore else []
    return extra or None


PROGRESS_SHOWN = 12  # the latest commands that raised the score


def progress_section(past: EpisodePast, preset: Preset) -> list[str] | str | None:
    """The PROGRESS section (``progress_shown`` presets): each command that raised the score, with the first line
    of the game's answer (what is already done, so not to be done again)."""
    if not preset.progress_shown:
        return None
    done = []
    for record in past.score_rises():
        done.append(
            p.progress_line(
                record.get("action") or "", p.first_line(record["observation"], ANSWER_SHOWN), record["score"]
            )
        )
    return done[-PROGRESS_SHOWN:] or p.NO_PROGRESS


def readings_section(state: Mapping[str, Any], past: EpisodePast, preset: Preset) -> list[str] | str | None:
    """The TEXTS READ section (``pin_readings`` presets): each text read, word for word; with ``progress_shown``
    the items of its lists marked (in inventory, done: reported by an answer that raised the score, to do)."""
    if not preset.pin_readings:
        return None
    readings = state.get("readings") or []
    if not readings or not preset.progress_shown:
        return readings or p.NOTHING_READ
    reports = confirmations(past)
    return [
        "\n".join(
            p.marked_line(line, mark) for line, mark in checklist(reading.splitlines(), reports, state.get("inventory"))
        )
        for reading in readings
    ]


def belief_section(state: Mapping[str, Any], preset: Preset) -> str | None:
    """The BELIEF section of a deciding role (planner, chooser, critic, inner monologue), when it reads one."""
    return state.get("belief", "") if preset.belief_read else None


def working_memory(
    state: AgentState, context: AgentContext, session: Session, preset: Preset | None = None
) -> dict[str, object]:
    """What the preset shows its deciding roles (planner, ReAct actor); sections it lacks are left out. The valid
    commands are offered as the controller offers them (controller/rules.py: what the family's rules forbid left out,
    asking memory what a holder holds)."""
    preset = preset or context.switches
    history = preset.history_length
    past, view = session.past, controller_view(state, context, session)
    return {
        p.ENVIRONMENT: environment_section(state),
        p.GOAL: state.get("goal", ""),
        p.LESSONS: state.get("lessons") or None,  # only in a later trial, or a run seeded from a memory namespace
        p.READINGS: readings_section(state, past, preset),
        p.PROGRESS: progress_section(past, preset),
        p.DONE_HERE: done_here_section(state, past, preset),
        p.COMMANDS: extra_commands(preset),
        p.OBSERVATION: state.get("observation", ""),
        p.LOCATION: state.get("location") or p.UNKNOWN,
        p.INVENTORY: p.inventory_text(state.get("inventory")),
        p.ADMISSIBLE: shown_commands(view.family, view.goal, view.inventory, offered_commands(view)),
        p.BELIEF: belief_section(state, preset),
        p.MEMORY: (state.get("memory_text") or []) if preset.memory_facts_shown else None,
        p.EPISODES: (state.get("episodes_text") or []) if preset.retrieval in EPISODE_RETRIEVALS else None,
        p.INSIGHTS: (state.get("insights") or []) if preset.retrieval == "simulacra" else None,
        p.EXPERIENCES: (state.get("experiences_text") or []) if preset.retrieval == "rap" else None,
        p.SPATIAL: (state.get("spatial_belief") or p.NONE) if preset.aggregator != "off" else None,
        p.EXPLORATION: (state.get("unexplored") or []) if preset.unexplored_exits else None,
        p.NOTES: (state.get("notes") or []) if preset.qa_turns != 0 else None,
        p.PLAN: p.plan_lines(state.get("plan")),
        **feedback_section(state.get("feedback"), p.NONE),
        p.REFLECTIONS: (state.get("reflections") or []) if preset.reflections else None,
        # the whole episode only grows (cache-friendly, early); a window slides every step (late)
        p.FULL_HISTORY if history is None else p.HISTORY: history_section(
            recent_history(state, past, history), history, preset.history_full_text
        )
        if history != 0
        else None,
    }


def feedback_section(value: Feedback | str | None, empty: str | None) -> dict[str, str | None]:
    """The planner's section on why it is asked again, headed by who sent the step back: the actor's guards (SENT
    BACK) or the critic and the safety check (CRITIC FEEDBACK); ``empty`` when nothing did."""
    record = feedback_of(value)
    if record is None:
        return {p.FEEDBACK: empty}
    return {p.SENT_BACK if record["by"] == "actor" else p.FEEDBACK: record["text"]}


def after_rejection(
    state: Mapping[str, Any], preset: Preset, by: FeedbackSource, rejected: str, why: str
) -> tuple[str, dict[str, Any]]:
    """What a rejection (the critic's of a command, the safety check's of a plan) leads to, and the update: while the
    step's replans last, back to the planner told why ("replanned"); past them, with ``rejected="withheld"``, a look
    played in its place ("withheld"); else it is played all the same ("played", no update)."""
    if state.get("replans", 0) < preset.max_replans:
        return "replanned", {"needs_plan": True, "feedback": feedback(by, f"{rejected} was rejected: {why}".strip())}
    if preset.rejected == "withheld":  # STMA sends no rejected command: this step looks, the next replans
        look: PlanStep = {"action": safe_command(state.get("admissible") or []), "expected": "", "by": BY_WITHHELD}
        return "withheld", {
            "needs_plan": False,
            "plan": [look],
            "feedback": feedback(by, f"{rejected} was rejected again and not played: {why}".strip()),
        }
    return "played", {}
