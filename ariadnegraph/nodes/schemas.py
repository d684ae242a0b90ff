"""Structured outputs of the roles. Field descriptions are part of the prompt a model sees."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Belief(BaseModel):
    """Summarizer: the agent's running belief about the task and the world (STMA's temporal belief)."""

    belief: str = Field(description="What matters for the goal so far: recipe or instructions read, progress, open questions. At most ~10 short lines.")


class TripletItem(BaseModel):
    subject: str = Field(description="an entity, e.g. 'red apple' (commas allowed inside a name)")
    relation: str = Field(description="e.g. 'in', 'on', 'is', 'has exit', 'north of', 'requires'")
    object: str = Field(description="an entity or a state, e.g. 'fridge', 'open', 'sliced'")


class Extraction(BaseModel):
    """Relation retriever: facts stated by the observation, and stored facts it makes outdated."""

    triplets: list[TripletItem] = Field(default_factory=list, description="facts the observation states")
    outdated: list[TripletItem] = Field(default_factory=list, description="known facts that are no longer true")


class SpatialBelief(BaseModel):
    """Aggregator: the retrieved facts organised into plain sentences, with simple spatial inferences."""

    text: str = Field(description="where things are and how rooms connect, in short sentences")


class PlanStep(BaseModel):
    action: str = Field(description="one game command, or 'go to <location>' for a known location")
    expected: str = Field(default="", description="what the game should answer if the action works")
    reward: str = Field(default="", description="predicted score change, e.g. '+1' or '0' (when asked for)")


class Plan(BaseModel):
    """Planner: the current subgoal and the next actions with their expected outcomes (DAVIS)."""

    subgoal: str = Field(description="the subgoal these steps achieve")
    reasoning: str = Field(default="", description="one or two sentences on why")
    steps: list[PlanStep] = Field(description="the actions to run in order, as many as are already known")


class ExplorationCheck(BaseModel):
    """Exploration check (AriGraph appendix B): does the plan need exploring?"""

    explore: bool = Field(description="true when the subgoal needs finding, locating or reaching something not yet seen")


class Critique(BaseModel):
    """Critic: did the last action do what was expected, and may the proposed action run."""

    outcome_matches: bool = Field(default=True, description="the actual outcome agrees with the expected one (true when nothing was expected)")
    action_approved: bool = Field(description="the proposed action is admissible and consistent with the beliefs")
    feedback: str = Field(default="", description="why not, and what to do instead; empty when all is well")


class ActionChoice(BaseModel):
    """Actor: the admissible command that carries out the proposed action."""

    reasoning: str = Field(default="", description="one sentence")
    action: str = Field(description="exactly one of the admissible actions")
