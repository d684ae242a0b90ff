"""Structured replies of the roles: flat and small, because small models fill them.

Field descriptions are part of the prompt a model sees where the provider shows the schema (OpenAI);
llama.cpp only turns it into a grammar, so each role's prompt also shows the JSON (nodes.prompts).
Every string has a ``maxLength`` and every list a ``maxItems``: under a grammar a local model cannot
run on, and other providers read them as instructions. A reply past a bound is clipped when read,
not rejected (a bound is a budget, not a correctness rule). ``reply_tokens`` is the ``max_tokens`` of
the role's requests: room for a full-size reply of ordinary words, though not for every field at its
bound at once; a reply that does reach it is cut, and read as far as it goes (models.structured).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, create_model


def text(limit: int, description: str, default: str | None = None) -> Any:
    """A string field of at most ``limit`` characters (clipped when read)."""
    options: dict[str, Any] = {"description": description, "json_schema_extra": {"maxLength": limit}}
    if default is not None:
        options["default"] = default
    return Field(**options)


def _clip(limit: int):
    return AfterValidator(lambda value: value[:limit])


def _keep(limit: int):
    return BeforeValidator(lambda value: value[:limit] if isinstance(value, list) else value)


Name = Annotated[str, _clip(60), Field(json_schema_extra={"maxLength": 60})]
Triplet = Annotated[list[Name], Field(min_length=3, max_length=3, json_schema_extra={"maxItems": 3, "minItems": 3})]


def _complete(triplets: list[list[str]]) -> list[list[str]]:
    """The triplets that name all three parts: a reply's shape is checked here, once, where it comes in (memory
    takes what the nodes pass on as it is)."""
    return [t for t in triplets if all(part.strip() for part in t)]


Triplets = Annotated[list[Triplet], AfterValidator(_complete)]


class Belief(BaseModel):
    """Summarizer: the agent's running belief about the task and the world (STMA's temporal belief)."""

    reply_tokens: ClassVar[int] = 360
    belief: Annotated[str, _clip(1200)] = text(
        1200,
        "what matters for the goal: instructions read (word for word), progress made, "
        "what is still to do; a few short lines",
    )


class ParagraphSummary(Belief):
    """Summarizer, AriGraph's way (appendix E's summarization prompt): the situation in at most three paragraphs."""

    reply_tokens: ClassVar[int] = 600
    belief: Annotated[str, _clip(2400)] = text(
        2400,
        "at most three short paragraphs: what the attempted commands came to, what the situation is now, and what "
        "matters for the goal's plan",
    )


class TrajectorySummary(Belief):
    """Summarizer, STMA's way (appendix D.1): the history buffer told afresh each time, step by step, then whole."""

    reply_tokens: ClassVar[int] = 1000
    belief: Annotated[str, _clip(4000)] = text(
        4000,
        "one line a step (its command, what came of it, each move with its direction); texts read, word for word, "
        "under a heading of their own; then what the steps add up to and what the agent seems to be after",
    )


class Extraction(BaseModel):
    """Relation retriever: facts the observation states, and stored facts it shows are no longer true."""

    reply_tokens: ClassVar[int] = 480
    triplets: Annotated[Triplets, _keep(14)] = Field(
        default_factory=list,
        description="[subject, relation, object] facts the observation states",
        json_schema_extra={"maxItems": 14},
    )
    outdated: Annotated[Triplets, _keep(6)] = Field(
        default_factory=list,
        description="known facts (from KNOWN FACTS) that are no longer true",
        json_schema_extra={"maxItems": 6},
    )


class TransitionExtraction(BaseModel):
    """DAVIS's relation retriever (§3.2): the transition (o_t, a_t, o_t+1) summarized first, then its facts."""

    reply_tokens: ClassVar[int] = 600
    transition: Annotated[str, _clip(400)] = text(
        400, "what the LAST ACTION did, from the OBSERVATION BEFORE to the OBSERVATION, in one or two sentences", ""
    )
    triplets: Annotated[Triplets, _keep(14)] = Field(
        default_factory=list,
        description="[subject, relation, object] facts the transition's summary states",
        json_schema_extra={"maxItems": 14},
    )
    outdated: Annotated[Triplets, _keep(6)] = Field(
        default_factory=list,
        description="known facts (from KNOWN FACTS) the transition ended",
        json_schema_extra={"maxItems": 6},
    )


class BeliefExtraction(Extraction):
    """STMA's relation retriever: the facts a whole belief states (its map, where things are, the recipe), restated
    every step, so room for more of them than one observation holds (STMA's own example has 17)."""

    reply_tokens: ClassVar[int] = 1200
    triplets: Annotated[Triplets, _keep(40)] = Field(
        default_factory=list,
        description="[subject, relation, object] facts the belief states, each thing at its latest place",
        json_schema_extra={"maxItems": 40},
    )


class Outdated(BaseModel):
    """Outdated detection (AriGraph): the known facts the new ones replace."""

    reply_tokens: ClassVar[int] = 320
    outdated: Annotated[Triplets, _keep(12)] = Field(
        default_factory=list,
        description="facts from KNOWN FACTS that a fact of NEW FACTS replaces",
        json_schema_extra={"maxItems": 12},
    )


class SpatialBelief(BaseModel):
    """Aggregator: the retrieved facts organised into plain sentences, with simple spatial inferences."""

    reply_tokens: ClassVar[int] = 450
    text: Annotated[str, _clip(1500)] = text(1500, "where things are and how places connect, in short sentences")


# One game command as a model writes it, with what the game's answer should say (an expansion's command). No
# docstring and the schema's old title: a docstring becomes a "description" in the JSON schema a provider is sent.
class CommandReply(BaseModel):
    model_config = ConfigDict(title="Command")

    action: Annotated[str, _clip(80)] = text(80, "one game command")
    expected: Annotated[str, _clip(80)] = text(80, "a short phrase the game's answer should contain", default="")


# A plan's step as a model writes it (agent/records.PlanStep once it is in the state); titled as before, like
# CommandReply.
class StepReply(CommandReply):
    model_config = ConfigDict(title="PlanStep")

    action: Annotated[str, _clip(80)] = text(80, "one command, or 'go to <place>' for a known place")
    expected: Annotated[str, _clip(80)] = text(
        80, "a short phrase the game's answer should contain if it works", default=""
    )
    reward: Annotated[str, _clip(8)] = text(8, "predicted score change, e.g. '+1' or '0' (when asked for)", default="")


class Plan(BaseModel):
    """Planner: the current subgoal and the next actions with their expected outcomes (DAVIS)."""

    reply_tokens: ClassVar[int] = 420
    subgoal: Annotated[str, _clip(120)] = text(120, "the subgoal these steps achieve")
    reasoning: Annotated[str, _clip(200)] = text(200, "one sentence on why", default="")
    steps: Annotated[list[StepReply], _keep(8)] = Field(
        description="the actions to run in order, as many as are already known", json_schema_extra={"maxItems": 8}
    )


class SubGoal(BaseModel):
    sub_goal: Annotated[str, _clip(120)] = text(120, "the sub-goal, worded as before until it is done")
    reason: Annotated[str, _clip(160)] = text(160, "its progress so far, and why it serves the main goal", default="")


class GoalPlan(BaseModel):
    """Planner, AriGraph's way (appendix E): the main goal, sub-goals in priority order with their progress, and the
    agent's emotion; a command is chosen from them by the ReAct choice."""

    reply_tokens: ClassVar[int] = 360
    main_goal: Annotated[str, _clip(160)] = text(160, "the main goal")
    plan_steps: Annotated[list[SubGoal], _keep(5)] = Field(
        description="the sub-goals, the most urgent first (at least one)", json_schema_extra={"maxItems": 5}
    )
    emotion: Annotated[str, _clip(80)] = text(80, "the agent's current emotion and why, briefly", default="")


class Decision(BaseModel):
    """Planner (``plan_choice``): a sentence of reasoning (required, first: the grammar makes the model think
    before it commits), then the next command written out. The sentence has room for working something out (a sum,
    which amount is smallest): bound at 120 characters, two thirds of a 1.5B's sentences were cut there, the working
    with them."""

    reply_tokens: ClassVar[int] = 140
    reasoning: Annotated[str, _clip(240)] = Field(
        description="one sentence: what the goal needs now", json_schema_extra={"minLength": 12, "maxLength": 240}
    )
    action: Annotated[str, _clip(80)] = text(80, "the command, as VALID COMMANDS lists it")


class WorkedOut(BaseModel):
    """The task's question (envs/families/base.Question), worked out: a line of working first (the sum, the amounts
    in one unit), then the option it comes to, copied."""

    reply_tokens: ClassVar[int] = 180  # (a working of quantities is mostly digits, a token each)
    working: Annotated[str, _clip(160)] = Field(
        description="one line: the working, ending with its result",
        json_schema_extra={"minLength": 3, "maxLength": 160},
    )
    answer: Annotated[str, _clip(80)] = text(80, "one of OPTIONS, copied")


class Weighing(BaseModel):
    """A weighed question (envs/families/base.Scale): every option given its number on the scale, one field per
    option named as the option (:func:`weighing_for` builds the form per question; the fields are the form's, so a
    grammar makes the model write a number for each and nothing else)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def numbers(self) -> dict[str, float]:
        """Each option's number, by the option's name."""
        return {name: float(value) for name, value in self.model_dump(by_alias=True).items()}


WEIGHING_TOKENS_EACH = 12  # a number and its key's quotes and comma; the key itself is the grammar's


def weighing_for(options: tuple[str, ...]) -> type[Weighing]:
    """The form of a weighed question: one required number per option, keyed by the option's name."""
    fields: dict[str, Any] = {
        f"option_{i}": (float, Field(alias=option, description=f"the number for {option}"))
        for i, option in enumerate(options)
    }
    return create_model(Weighing.__name__, __base__=_WeighingForm, **fields)


class _WeighingForm(Weighing):
    model_config = ConfigDict(extra="ignore")  # (a form has its fields only: no other key in its grammar)


class Reflection(BaseModel):
    """After a failed trial (Reflexion): what went wrong and what to do differently next time."""

    reply_tokens: ClassVar[int] = 200
    reflection: Annotated[str, _clip(400)] = text(
        400, "two or three sentences: the mistake, and what to do instead next trial"
    )


class Importance(BaseModel):
    """Simulacra (Park et al.): how much an observation matters, rated when it is stored."""

    reply_tokens: ClassVar[int] = 16
    score: int = Field(ge=1, le=10, description="1: nothing that matters; 10: decisive for the goal")


class Insights(BaseModel):
    """Simulacra (Park et al.): reflections on the recent observations, kept and shown with memory."""

    reply_tokens: ClassVar[int] = 200
    insights: Annotated[list[Annotated[str, _clip(160)]], _keep(3)] = Field(
        description="at most three lessons or conclusions about the world and the task",
        json_schema_extra={"maxItems": 3},
    )


class ExplorationCheck(BaseModel):
    """Exploration check (AriGraph appendix B): does the plan need exploring?"""

    reply_tokens: ClassVar[int] = 24
    explore: bool = Field(
        description="true when the subgoal needs finding, locating or reaching something not yet seen"
    )


class Critique(BaseModel):
    """Critic: did the last action do what was expected, and may the proposed action run."""

    reply_tokens: ClassVar[int] = 120
    outcome_matches: bool = Field(
        default=True, description="the actual outcome agrees with the expected one (true when nothing was expected)"
    )
    action_approved: bool = Field(description="the proposed action can be run now and serves the goal")
    feedback: Annotated[str, _clip(200)] = text(
        200, "why not, and what to do instead; empty when all is well", default=""
    )


class ReasonedCritique(BaseModel):
    """STMA's critic (appendix D.5): its reasoning first, then the verdict, then detailed feedback."""

    reply_tokens: ClassVar[int] = 400
    # required (no default): under a grammar a small model otherwise leaves it out and judges without reasoning
    reasoning: Annotated[str, _clip(600)] = text(
        600, "the situation, whether the subgoal still suits the goal, whether the command is valid and useful"
    )
    outcome_matches: bool = Field(
        default=True, description="the actual outcome agrees with the expected one (true when nothing was expected)"
    )
    action_approved: bool = Field(description="the proposed action can be run now and serves the subgoal")
    feedback: Annotated[str, _clip(600)] = text(
        600, "why not, the key problem, and what to do instead (or which subgoal to take); empty when all is well", ""
    )


class ActionChoice(BaseModel):
    """Actor: the command to send, chosen from the valid commands."""

    reply_tokens: ClassVar[int] = 120
    reasoning: Annotated[str, _clip(200)] = text(200, "one sentence", default="")
    action: Annotated[str, _clip(80)] = text(80, "exactly one of the valid commands")


class TransitionPrediction(BaseModel):
    """World model (DAVIS algorithm 2): a question for memory, or the planned command's predicted outcome."""

    reply_tokens: ClassVar[int] = 160
    question: Annotated[str, _clip(160)] = text(
        160, "one question for memory when something needed is not known; empty when predicting", default=""
    )
    observation: Annotated[str, _clip(120)] = text(120, "a short phrase the game's answer should contain", default="")
    reward: Annotated[str, _clip(8)] = text(8, "predicted score change, e.g. '+1' or '0'", default="")


class SafetyVerdict(BaseModel):
    """DAVIS's safety check (algorithm 1, lines 7-8): may the predicted trajectory be played."""

    reply_tokens: ClassVar[int] = 100
    safe: bool = Field(description="false only when a command or its predicted outcome does lasting harm")
    reason: Annotated[str, _clip(200)] = text(200, "when not safe: the command and why, in one sentence", default="")


# memory.transitions.ENTITY_TYPES (a test keeps them equal)
EntityKind = Literal["place", "thing", "state", "direction", "agent"]


class EntityFocus(BaseModel):
    """World model's graph QA (DAVIS §3.4): the kinds of entities a question is about, and the two it names."""

    reply_tokens: ClassVar[int] = 80
    types: Annotated[list[EntityKind], _keep(3)] = Field(
        default_factory=list,
        description="the kinds of entities the question is about",
        json_schema_extra={"maxItems": 3},
    )
    entities: Annotated[list[Name], _keep(2)] = Field(
        default_factory=list,
        description="at most two entities the question is most about",
        json_schema_extra={"maxItems": 2},
    )


class Expansion(BaseModel):
    """Actor (DAVIS): one plan step as the game commands that carry it out, in order."""

    reply_tokens: ClassVar[int] = 220
    commands: Annotated[list[CommandReply], _keep(8)] = Field(
        description="the commands in order; the first one valid now", json_schema_extra={"maxItems": 8}
    )


CHOICES_IN_SCHEMA = 400  # more valid commands than this are left out of the schema (a grammar that large is slow)


class CommandChoice(BaseModel):
    """Actor with no thought first (SayCan): the command to send, chosen from the valid commands."""

    reply_tokens: ClassVar[int] = 40
    action: Annotated[str, _clip(80)] = text(80, "exactly one of the valid commands")


def action_choice(valid: list[str], reasoning: bool = True) -> type[ActionChoice] | type[CommandChoice]:
    """ActionChoice (CommandChoice with no ``reasoning``) whose action must be one of ``valid``: under a grammar
    the model can only write a valid command, and elsewhere a command that is not one is sent back as a schema
    error."""
    base: type[ActionChoice] | type[CommandChoice] = ActionChoice if reasoning else CommandChoice
    if not valid or len(valid) > CHOICES_IN_SCHEMA:
        return base
    choices: Any = Literal.__getitem__(tuple(dict.fromkeys(valid)))
    return create_model(
        base.__name__, __base__=base, action=(choices, Field(description="exactly one of the valid commands"))
    )


QA_ANSWER_CHARS = 600  # the inner monologue's findings, and an answer to a user's question
QA_REPLY_TOKENS = 220  # max_tokens of a memory lookup turn or of the answer
