"""The lean planner of small models (``plan_choice``, the ``ariadne`` preset): the next command, chosen.

A list read says what to do next, and when one valid command does its next item word for word it is played with
no model call (``follow_lists``), as is the way to what it needs when memory saw that in another room
(``object_memory``: ``controller.steps.way_to_step``); otherwise the model reads a lean prompt (no map text, no plan:
'go to' and 'explore' are among the choices), the next step worked out in code (NEXT STEP) and what it needs from
memory (WHERE: controller/finding.py), writes one sentence of reasoning, then the command. What was sent back this
step, played twice here already, or (``object_memory``) changes nothing and was played here once, is not offered.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.session import Session
from ..agent.state import AgentState
from ..controller.candidates import Source
from ..controller.propose import Proposal, propose
from ..controller.rules import breaks_rules, shown_commands
from ..controller.steps import NextStep, explore_moves, go_to_choices, next_step, where_section
from ..controller.view import View
from ..controller.worked import answered_now
from ..envs.text import EXPLORE, safe_command
from ..models import is_no_model
from .common import (
    BY_CONTROLLER,
    BY_FALLBACK,
    BY_LIST,
    BY_MODEL,
    BY_TOOL,
    BY_WALK,
    BY_WORKED,
    ask_structured,
    controller_view,
    feedback_section,
    fell_back,
    merged,
    working_memory,
)
from .prompts import LEFT_OUT, LEFT_OUT_WHY, PLAN_CHOICE
from .schemas import Decision, Plan, StepReply
from .worked_out import work_out

CHOICE_SECTIONS = (
    p.ENVIRONMENT,
    p.GOAL,
    p.LESSONS,
    p.READINGS,
    p.PROGRESS,
    p.LOCATION,
    p.INVENTORY,
    p.DONE_HERE,
    p.HISTORY,
    p.OBSERVATION,
)
# recent steps a choice reads (what was tried here is under DONE HERE, what raised the score under PROGRESS)
CHOICE_HISTORY = 3


def choice_sections(state: AgentState, context: AgentContext, session: Session, view: View) -> dict[str, object]:
    """What a ``plan_choice`` planner reads: lean, for a small model (no map text, no plan, no extra-command list:
    'go to' and 'explore' are among the choices), with the next step of a list read worked out in code."""
    window = min(context.switches.history_length or CHOICE_HISTORY, CHOICE_HISTORY)
    preset = replace(context.switches, history_length=window)
    shown = working_memory(state, context, session, preset)
    return {
        **{name: shown.get(name) for name in CHOICE_SECTIONS},
        p.NEXT_STEP: step.line() if (step := next_step(view)) else None,
        p.WORKED_OUT: worked_line(view),
        p.WHERE: where_section(view),
        **feedback_section(state.get("feedback"), None),
    }


def worked_line(view: View) -> str | None:
    """The model's answer to the task's question now, as the chooser reads it (when what carries it out is not
    offered, the choice is the model's again, with its answer in view)."""
    answered = answered_now(view)
    return f"{answered[0].asked} {answered[1]}" if answered else None


LIST_MARK = re.compile(r"\s*(?:\[[^\]]*\]|\([^)]*\))\s*$")  # "(here)", "[to do]": what a small model copies along
FOLLOWED = "followed in code: "  # the reasoning of a plan step a list read gave, no model asked
NO_MODEL_PLAYS = "no language model: the controller's first candidate: "  # the reasoning of a step ``none`` plays
VETOED = "the controller's first candidate, in place of what it left out: "  # a model's choice of an avoided command


def _followed(step: NextStep, command: str, why: str = "", by: str = BY_LIST) -> tuple[Plan, dict[str, Any], str]:
    """A plan of the one command that does the next step (or walks toward it: ``why``), by code."""
    shown = p.step_line(step.heading, step.text)
    reasoning = f"{FOLLOWED}{shown}: {why}" if why else f"{FOLLOWED}{shown}"
    plan = Plan(subgoal=f"{p.NEXT_STEP}: {shown}", reasoning=reasoning, steps=[StepReply(action=command)])
    return plan, {}, by


def choice_record(proposal: Proposal, chosen: str, by: str) -> dict[str, Any]:
    """What the step's trajectory line keeps of a choice (``decided["choices"]``): the candidates, what was chosen and
    by whom, and whether it overrode the controller's first candidate (the diagnostics weigh what that paid)."""
    first = proposal.first.command if proposal.first else None
    return {
        "candidates": [candidate.record() for candidate in proposal.candidates],
        "chosen": chosen,
        "by": by,
        "override": first is not None and chosen != first,
    }


def choose_command(state: AgentState, context: AgentContext, session: Session) -> tuple[Plan, dict[str, Any], str]:
    """``plan_choice``: the controller proposes (controller/propose.py); a forced proposal is played by code, else the
    model reads the candidates, writes a sentence of reasoning, then the next command, written out (after a thought,
    a small model writes the command it means; forced into an enum of commands, or asked for a number in a long list,
    it lands on another one), any valid command or a known place to go to; with no language model (``none``) the first
    candidate plays. A plan of that one step, which the actor plays when it is a valid command or sends back when not,
    and who chose it (common.BY_*); the update carries the choice's record (``choice``). First, where the task asks to
    work something out and the model has not yet, it is asked (nodes/worked_out.py); what carries its answer out is
    forced (``question`` in the update: what was asked and the answer, for the step's record)."""
    view, kept, accounting = work_out(context, controller_view(state, context, session))
    plan, update, by = _choose(state, context, session, view)
    if not (kept or accounting):
        return plan, update, by
    # the task's question was asked this step: its answer is kept, its call counted beside the choice's
    return plan, {**update, **kept, **merged([update, accounting])}, by


# the forced moves code plays whatever the step: the model's answer carried out, a tool the task needs taken
_CODE_MOVES = {Source.WORKED: BY_WORKED, Source.TOOL: BY_TOOL}


def _choose(state: AgentState, context: AgentContext, session: Session, view: View) -> tuple[Plan, dict[str, Any], str]:
    """The step's command from the controller's proposal for ``view`` (choose_command)."""
    proposal = propose(view)
    first = proposal.first
    if proposal.forced and first is not None and (by := _CODE_MOVES.get(first.source)):
        plan = Plan(subgoal=first.why, reasoning=first.why, steps=[StepReply(action=first.command)])
        return plan, {"choice": choice_record(proposal, first.command, by)}, by
    if proposal.forced and first is not None and proposal.step is not None:
        walked = first.source == Source.WALK
        plan, update, by = _followed(
            proposal.step, first.command, why=first.why if walked else "", by=BY_WALK if walked else BY_LIST
        )
        return plan, {**update, "choice": choice_record(proposal, first.command, by)}, by
    if is_no_model(context.model_for("planner")):
        command = first.command if first else safe_command(view.valid)
        plan = Plan(
            subgoal=first.why if first else "",
            reasoning=f"{NO_MODEL_PLAYS}{first.why if first else ''}",
            steps=[StepReply(action=command)],
        )
        return plan, {"choice": choice_record(proposal, command, BY_CONTROLLER)}, BY_CONTROLLER
    admissible = list(proposal.offered)
    memory = view.memory
    places = go_to_choices(memory, view.location) if context.switches.go_to and admissible else []
    if context.switches.explore and admissible and EXPLORE not in view.avoid and explore_moves(memory, view.location):
        places.append(EXPLORE)
    fallback = safe_command(view.valid)
    sections = {
        **choice_sections(state, context, session, view),
        p.CANDIDATES: [p.candidate_line(c.command, c.why) for c in proposal.candidates] or None,
        p.ADMISSIBLE: shown_commands(view.family, view.goal, view.inventory, admissible) + places,
    }
    choosable = [*admissible, *places]
    command, chosen, update, vetoed = _ask_choice(context, view, proposal, sections, choosable, fallback)
    left_out: str | None = None
    again: dict[str, Any] = {}
    if vetoed is not None:
        # a command the controller left out (a repeat, a placement that scored nothing here, what changes nothing
        # again, what the rules forbid): the model is told so and asked once more (it decides where knowledge
        # matters); a second such choice plays the controller's first candidate, and the record says what was vetoed
        # (why, in the rules' own words where they forbid it: a model told only "not offered" writes it again)
        why = breaks_rules(view, vetoed) or LEFT_OUT_WHY
        sections = {**sections, p.SENT_BACK: LEFT_OUT.format(command=vetoed, why=why)}
        left_out = vetoed
        command, chosen, again, vetoed = _ask_choice(context, view, proposal, sections, choosable, fallback)
        first_ask = {key: value for key, value in update.items() if key != "written"}
        update = {**first_ask, **again, **merged([update, again])}
    by = BY_FALLBACK if fell_back(again if left_out else update, "planner") else BY_MODEL
    told = {"left_out": left_out} if left_out else {}  # the command left out the model was told of, asked again
    if vetoed is not None and first is not None:
        record = {**choice_record(proposal, first.command, BY_CONTROLLER), **told, "vetoed": vetoed}
        plan = Plan(subgoal=chosen.reasoning, reasoning=f"{VETOED}{vetoed}", steps=[StepReply(action=first.command)])
        return plan, {**update, "choice": record}, BY_CONTROLLER
    update = {**update, "choice": {**choice_record(proposal, command, by), **told}}
    return Plan(subgoal=chosen.reasoning, reasoning=chosen.reasoning, steps=[StepReply(action=command)]), update, by


def _ask_choice(
    context: AgentContext, view: View, proposal: Proposal, sections: dict[str, Any], choosable: list[str], fallback: str
) -> tuple[str, Decision, dict[str, Any], str | None]:
    """One ask of the model: the command it means (grounded among ``choosable``), its reply, the ask's update, and
    the left-out command it named (None when it named none, or named the first candidate, which code plays anyway)."""
    chosen, update = ask_structured(
        context,
        node="planner",
        schema=Decision,
        system=PLAN_CHOICE,
        sections=sections,
        fallback=Decision(reasoning="no usable reply: a command that changes nothing", action=fallback),
        step=view.step,
    )
    written = LIST_MARK.sub("", chosen.action)  # a small model copies an item with its mark ("chop the tuna [to do]")
    command = view.family.ground(written, choosable) or written
    if command != chosen.action:  # the diagnostics judge what the model wrote, not what grounding made of it
        update = {**update, "written": chosen.action}
    vetoed = view.family.ground(written, list(proposal.avoided)) if proposal.avoided else None
    first = proposal.first.command if proposal.first else None
    return command, chosen, update, (vetoed if vetoed != first else None)
