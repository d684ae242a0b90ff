"""What every LLM-backed node does the same way: load the role's model (bounded replies, its own
prompt-cache slot), ask for a structured reply (repair, re-ask, recorded fallback), and report the
call's usage and reply outcome under the node's name."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

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
from ..envs.families import GENERIC, GameFamily, Standing, family_named, family_of
from ..envs.text import TO_DO, checklist, goal_steps_left, list_item, safe_command
from ..memory import WorldMemory
from ..memory import objects as om
from ..models import FALLBACK, StructuredResult, call_structured, is_local, load_chat_model
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
}
# Who chose a command (``by`` of records.PlanStep and records.ActorDecision): the model, or code (a list read followed,
# the way to what it needs walked, the moves of a route the model chose, a guard's reason: nodes/guards.Reason, a given
# script, a fallback for an unusable reply)
BY_MODEL = "model"
BY_LIST = "list"
BY_WALK = "walk"  # toward what the next step needs, seen in another room (nodes/choice.walk_to_step): no model asked
BY_ROUTE = "route"
BY_SCRIPT = "script"
BY_FALLBACK = "fallback"
BY_ORACLE = "oracle"
BY_WITHHELD = "withheld"  # a command the critic (or a plan the safety check) rejected, not sent: a look instead (STMA)
BY_RANDOM = "random"  # drawn at random from the valid commands (the random_walk switch)
# Issues a node finds in a reply after reading it (models.structured and models.tool_json name the others)
INADMISSIBLE = "inadmissible"  # a command that is not among the valid ones
UNGROUNDED = "ungrounded"  # a fact naming something the text it was read from never mentions
REPLY_EVENT = "ariadne_reply"  # custom callback event: one per structured call (tracing.CallLog writes it)


def check_models(context: AgentContext) -> None:
    """Load every role's model once, so a bad model string fails before an episode writes anything
    (and a local model's server is up before the first step)."""
    for role in ROLES:
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
    families were kept is resolved from its env spec)."""
    return family_named(state.get("family")) or (family_of(state["env"]) if state.get("env") else GENERIC)


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


MAX_GO_TO_CHOICES = 8  # 'go to <place>' choices offered beside the game's commands (nearest places first)


def go_to_choices(state: Mapping[str, Any], memory: WorldMemory) -> list[str]:
    """'go to <place>' for the known places the KG's map reaches from here (AriGraph's navigation)."""
    here = memory.location() or state.get("location")
    return [f"go to {place}" for place in memory.reachable_places(here)[:MAX_GO_TO_CHOICES]] if here else []


def offered_commands(state: Mapping[str, Any], context: AgentContext, memory: WorldMemory | None = None) -> list[str]:
    """The valid commands a deciding role is offered: all of them, but for those the game family's rules say ruin
    the episode (``rules_shield``: GameFamily.ruinous) and, with ``pin_readings`` and ``progress_shown``, a text already
    kept in TEXTS READ read again (it shows nothing new; a small model re-reads what the goal says to read)."""
    valid = list(state.get("admissible") or [])
    preset = context.switches
    if preset.pin_readings and preset.progress_shown:
        read = {reading.split(":\n", 1)[0].strip().lower() for reading in state.get("readings") or []}
        valid = [command for command in valid if command.strip().lower() not in read]
    if not preset.rules_shield or not state.get("env"):
        return valid
    return within_rules(state, valid, memory)


def breaks_rules(state: Mapping[str, Any], command: str, memory: WorldMemory | None = None) -> str | None:
    """Why the game family's rules say ``command`` ruins the episode, given what the state holds (what is carried, the
    texts read, the goal) and what memory has seen in a holder, else None: the one place the rules are asked
    (GameFamily.ruinous)."""
    contents = None
    if memory is not None:
        view = memory.current()

        def contents(holder: str) -> list[str]:
            return om.contents(view, memory.key(holder))

    standing = Standing(
        inventory=list(state.get("inventory") or []),
        readings=list(state.get("readings") or []),
        goal=state.get("goal") or "",
        contents=contents,
    )
    return episode_family(state).ruinous(command, standing)


def within_rules(state: Mapping[str, Any], commands: Sequence[str], memory: WorldMemory | None = None) -> list[str]:
    """``commands`` without those the game family's rules say ruin the episode (``breaks_rules``)."""
    return [command for command in commands if breaks_rules(state, command, memory) is None]


def shown_commands(state: Mapping[str, Any], commands: Sequence[str], keep: Sequence[str | None] = ()) -> list[str]:
    """The commands a model is shown of ``commands`` (valid ones): the game family's cut where it lists too many to
    read (GameFamily.shown_commands), the goal and what is carried making one relevant; ``keep`` always (the step
    proposed, a fallback: a choice the schema must admit)."""
    focus = " ".join([state.get("goal") or "", *(state.get("inventory") or [])])
    return episode_family(state).shown_commands(commands, focus, [c for c in keep if c])


def explore_moves(state: Mapping[str, Any], memory: WorldMemory) -> list[PlanStep] | None:
    """'explore' as single moves: along the map to the nearest place with an exit not taken yet, then through
    it (each with the room it should reach; the last one's is not known); None when no such exit is left."""
    here = memory.location() or state.get("location")
    if not here:
        return None
    best: list[PlanStep] | None = None
    for place, directions in memory.unexplored_exits().items():
        if not directions:
            continue
        moves = [] if memory.key(place) == memory.key(here) else memory.path(here, place)
        if moves is not None and (best is None or len(moves) + 1 < len(best)):
            route: list[PlanStep] = [{"action": f"go {d}", "expected": room} for d, room in moves]
            best = [*route, {"action": f"go {sorted(directions)[0]}", "expected": ""}]
    return best


def extra_commands(preset: Preset) -> list[str] | None:
    """The EXTRA COMMANDS section: 'go to' and 'explore' where the actor expands them on the KG's map."""
    extra = [GO_TO_COMMAND] if preset.go_to else []
    extra += [EXPLORE_COMMAND] if preset.explore else []
    return extra or None


PROGRESS_SHOWN = 12  # the latest commands that raised the score


def confirmations(past: EpisodePast) -> list[str]:
    """What confirms an item of a list read as done: each command that raised the score, with the game's answer."""
    return [f"{record['action']}\n{record['observation']}" for record in past.score_rises()]


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


def next_item(state: Mapping[str, Any], context: AgentContext, past: EpisodePast) -> tuple[str | None, str] | None:
    """The first item marked to do in the lists of the texts read (the latest text first), as (its list's heading,
    the item); once every item is done, what the goal asks last (no heading); None when no list was read
    (``pin_readings`` with ``progress_shown``)."""
    preset = context.switches
    if not (preset.pin_readings and preset.progress_shown) or not state.get("readings"):
        return None
    reports = confirmations(past)
    listed = False
    for reading in reversed(state["readings"]):
        heading = None
        for line, mark in checklist(reading.splitlines(), reports, state.get("inventory")):
            if line.strip().endswith(":"):
                heading = line.strip()
            listed = listed or mark is not None
            if mark == TO_DO:
                return heading, list_item(line)
    steps = episode_family(state).goal_steps(state.get("goal") or "")
    return (None, steps[-1]) if listed and steps else None


def goal_step_left(state: Mapping[str, Any], context: AgentContext, past: EpisodePast) -> str | None:
    """Nothing read yet: what a goal of several steps ("read the recipe, cook, eat"; a family may read one step from
    several clauses: "focus on the sodium chloride") asks first, then, once a command
    that raised the score carried a step out, the step after it (``pin_readings`` with ``progress_shown``)."""
    preset = context.switches
    if not (preset.pin_readings and preset.progress_shown) or state.get("readings"):
        return None
    goal, family = state.get("goal") or "", episode_family(state)
    rises = past.score_rises()
    # what each command did, as the game's answer names it too ("focus on water" for 'focus on substance in fountain')
    done = [r.get("action") or "" for r in rises] + [
        family.what_was_done(r.get("action") or "", r.get("observation") or "") for r in rises
    ]
    left = goal_steps_left(goal, done, family.goal_steps(goal), family.carries_out, family.instructs)
    return left[0] if left else None


def said_now(state: Mapping[str, Any], context: AgentContext) -> str | None:
    """The command the game's latest text says to play now, as the game family reads it (Simon says), with
    ``pin_readings`` and ``progress_shown`` (what the NEXT STEP is shown with)."""
    preset = context.switches
    if not (preset.pin_readings and preset.progress_shown):
        return None
    return episode_family(state).said_to_play(state.get("observation") or "")


NextStepKind = Literal["said", "listed", "goal", "key"]


@dataclass(frozen=True)
class NextStep:
    """What the next step asks, and where it comes from (``kind``): ``said``, the game's latest text says to play it
    now; ``listed``, the first item to do of a list read, under its heading (no heading: every item is done and this
    is what the goal asks last); ``goal``, nothing read yet and this is a step of the goal (``first``: its first);
    ``key``, a text read said a key held opens a lock memory has not seen open (``key``: that key)."""

    kind: NextStepKind
    text: str
    heading: str | None = None
    first: bool = False
    key: str | None = None

    @property
    def word_for_word(self) -> bool:
        """Said now or listed: played even when it changes nothing and was played before (Simon says 'examine pea'
        twice). A goal's step is not: it is done once the score rises, and reading the recipe again would not."""
        return self.kind in ("said", "listed")

    def line(self) -> str:
        """The NEXT STEP section."""
        if self.kind == "said":
            return p.said_now(self.text)
        if self.kind == "goal":
            return p.goal_first(self.text) if self.first else p.goal_next(self.text)
        if self.kind == "key":
            return p.key_opens(self.text, self.key or "key")
        return p.step_line(self.heading, self.text) if self.heading is not None else p.all_done(self.text)


def next_step(state: Mapping[str, Any], context: AgentContext, session: Session) -> NextStep | None:
    """What the next step asks, in this order: what the game's latest text says to play now, else the first item to
    do of a list read (every item done: what the goal asks last), else, nothing read yet, the goal's next step, else
    (``object_memory``) a lock a text said a held key opens; None when the goal alone says what to do."""
    if said := said_now(state, context):
        return NextStep("said", said)
    if item := next_item(state, context, session.past):
        return NextStep("listed", item[1], heading=item[0])
    if (left := goal_step_left(state, context, session.past)) is not None:
        first = episode_family(state).goal_steps(state.get("goal") or "")[0]
        return NextStep("goal", left, first=left == first)
    return lock_to_open(session.memory) if context.switches.object_memory else None


def lock_to_open(memory: WorldMemory) -> NextStep | None:
    """The first lock a text read said a held key opens, not seen open yet: unlock it with that key, or, unlocked
    already, open it (a treasure hunt's notes: "The key 2 unlocks Red locker.")."""
    found = om.locks_to_open(memory.current(), memory.ever_open())
    if not found:
        return None
    # a lock memory has seen first: a name no thing has (a note read awry) never hides one that has
    seen = [lock for lock in found if memory.last_seen(lock[1]) is not None]
    key, lock, state = (seen or found)[0]
    key, lock = memory.entity_name(key), memory.entity_name(lock)
    text = f"open {lock}" if state == "closed" else f"unlock {lock} with {key}"
    return NextStep("key", text, key=key)


def needed_item(state: Mapping[str, Any], context: AgentContext, session: Session) -> str | None:
    """What the next step asks for (WHERE looks for it), or None."""
    step = next_step(state, context, session)
    return step.text if step is not None else None


def step_command(state: Mapping[str, Any], step: str, admissible: Sequence[str]) -> str | None:
    """The one valid command that does a step word for word, as written or as the game family words it; else the one
    that takes the tool the step needs and the inventory lacks ("chop the tuna": take the knife)."""
    family = episode_family(state)
    if (command := family.command_for_item(step, admissible)) is not None:
        return command
    held = " ".join(state.get("inventory") or []).lower()
    for tool in family.tools_needed(step):
        if tool not in held and (command := family.command_for_item(tool, admissible)) is not None:
            return command
    return None


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
    state: AgentState,
    context: AgentContext,
    past: EpisodePast,
    preset: Preset | None = None,
    memory: WorldMemory | None = None,
) -> dict[str, object]:
    """What the preset shows its deciding roles (planner, ReAct actor); sections it lacks are left out. ``memory``:
    what the rules shield may ask of what a holder holds (ScienceWorld's 'focus on substance in fountain')."""
    preset = preset or context.switches
    history = preset.history_length
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
        p.ADMISSIBLE: shown_commands(state, offered_commands(state, context, memory)),
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
