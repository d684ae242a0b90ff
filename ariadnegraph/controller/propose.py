"""The controller's proposal for the next command: forced (an instruction read or the goal says what to play, and a
valid command does it; the way to what it needs, seen elsewhere), or a short ranked list of candidates for the model
to choose among, each with where it came from. With no language model (``--model none``) the first candidate plays.
The move that carries out what the model worked out of the task (controller/worked.py) is forced too.

What is not offered: what was sent back this step, what was played twice from this very situation, a placement tried
there that scored nothing and what lost score there (``loop_guard``),
what changes nothing and was played here once (``object_memory``), and what the game family's rules say ruins the game
(``rules_shield``: controller/rules.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..envs.text import placing
from .candidates import Candidate, Source
from .guards import Situation, is_no_op, shown_again, taken_thing, takes_to_weigh, uses_of_carried, ways_forward
from .rules import offered_commands
from .steps import NextStep, goal_step_here, next_step, step_command, way_to_step
from .view import View
from .worked import worked_move

MAX_CANDIDATES = 12  # candidates a model is shown, best first (it may still name any valid command)
# of them, at most this many uses of a thing carried (after what code would play): every place a thing may go, in a
# room of furniture (where it belongs is the model's to know; a cut list, in the commands' order, hid the right one)
MAX_CARRIED = 8
_FORCING = {"said": Source.SAID, "listed": Source.LISTED, "goal": Source.GOAL, "key": Source.KEY}
_FORCED_WHY = {
    "said": "the game says to play it now",
    "listed": "the next item of a list read",
    "goal": "the goal's next step, done here",
    "key": "a text read said the key held opens it",
}


@dataclass(frozen=True)
class Proposal:
    """What the controller proposes: ``candidates``, best first (the first is what code alone plays); ``forced``: the
    first is played with no model asked; ``offered``: the valid commands a model may choose among (those not avoided);
    ``avoided``: the valid commands left out (sent back, repeats, what changes nothing again, what the rules forbid);
    ``step``: the next step it was worked out for, if any."""

    candidates: tuple[Candidate, ...]
    forced: bool
    offered: tuple[str, ...]
    avoided: frozenset[str] = frozenset()
    step: NextStep | None = None

    @property
    def first(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


def propose(view: View) -> Proposal:
    """The controller's proposal for this step (module docstring)."""
    switches = view.switches
    avoid = set(view.avoid)
    if switches.loop_guard:
        raised, lowered = view.score_changes
        avoid |= {command for command, (times, _) in view.tried.items() if times >= 2 and command not in raised}
        # a thing put somewhere from this very situation that did not raise the score: the same placement again is
        # the same dead end (one that did raise it, since undone, is the way back to that score)
        avoid |= {command for command in view.tried if placing(command) and command not in raised}
        avoid |= lowered  # what lost score from here loses it again (taking back a thing placed where it scored)
    offered = offered_commands(view)
    step = next_step(view) if switches.follow_lists else None
    unavoided = [command for command in offered if command not in avoid]
    if step and step.word_for_word and (command := step_command(view, step.text, unavoided)):
        # what the game says now or the list read says to do, and one valid command does it word for word (even a
        # command that changes nothing, played before: a game that says to examine a thing twice)
        return _forced(Candidate(command, _FORCING[step.kind], _FORCED_WHY[step.kind]), unavoided, avoid, step)
    if switches.object_memory:  # what changes nothing is played once (controller/guards.no_op_again)
        family = view.family  # (a text that changes each time it is read is no repeat: family.rereads)
        avoid |= {command for command in view.tried if is_no_op(command, family) and not family.rereads(command)}
        avoid |= {command for command in view.past.played() if shown_again(command) and not family.rereads(command)}
    choices = [command for command in offered if command not in avoid] or offered
    if worked := worked_move(view, [command for command in offered if command not in avoid]):
        # the model worked out which thing the task means (controller/worked.py): code takes it and puts it in place
        return _forced(worked, choices, avoid, step)
    if switches.object_memory and (tool := tool_here(view, choices)):
        # a thing the task needs carried lies here (the family's tools): code takes it before it walks on
        return _forced(tool, choices, avoid, step)
    if step and not step.word_for_word and (command := goal_step_here(view, step, choices)):
        # nothing read yet: the goal's step (or a lock a note named), done here, unless it changes nothing again
        return _forced(Candidate(command, _FORCING[step.kind], _FORCED_WHY[step.kind]), choices, avoid, step)
    if step and switches.object_memory and (walk := way_to_step(view, step, choices)):
        # what the step needs, memory saw in another room: the way there is code's
        return _forced(Candidate(walk[0], Source.WALK, walk[1]), choices, avoid, step)
    left_out = frozenset(view.valid) - set(choices)
    return Proposal(_ranked(view, choices), forced=False, offered=tuple(choices), avoided=left_out, step=step)


def tool_here(view: View, choices: list[str]) -> Candidate | None:
    """The take of a thing the task needs carried (``family.tools_for``), when it lies here and is not carried."""
    carried = " ".join(view.inventory).lower()
    for tool in view.family.tools_for(view.goal):
        if tool in carried:
            continue
        take = next((c for c in choices if taken_thing(c) == tool), None)
        if take:
            return Candidate(take, Source.TOOL, f"the task needs the {tool} carried")
    return None


def _forced(candidate: Candidate, offered: list[str], avoid: set[str], step: NextStep | None) -> Proposal:
    return Proposal((candidate,), True, tuple(offered), frozenset(avoid), step)


def _ranked(view: View, choices: list[str]) -> tuple[Candidate, ...]:
    """What code would play, best first (controller/guards.ways_forward), among the commands offered, each once (the
    first of them all when none is offered: the way forward's own choice still plays with no model); then what can be
    done with a thing carried, and where which thing to take is the task itself each take here, for the model to
    weigh (where it belongs, which one the task means): code plays none of those on its own, bar a use of a thing
    carried when it has nothing else."""
    allowed, seen = set(choices), set()
    situation = Situation(view, "", None)
    every = list(ways_forward(situation))
    uses = uses_of_carried(view, choices)[:MAX_CARRIED]
    takes = takes_to_weigh(situation, choices)
    ranked: list[Candidate] = []
    for candidate in every:
        if len(ranked) >= max(MAX_CANDIDATES - len(uses) - len(takes), 1):
            break
        if candidate.command in allowed and candidate.command not in seen:
            seen.add(candidate.command)
            ranked.append(candidate)
    ranked += [use for use in uses if use.command not in {c.command for c in ranked}]
    # none of code's own moves is offered (each a repeat or a dead end here): a use of a thing carried comes first;
    # only with none of those does code's own first choice stand, left out or not (never a take to weigh: which
    # thing is the model's)
    ranked = ranked or every[:1]
    ranked += [take for take in takes if take.command not in {c.command for c in ranked}]
    return tuple(ranked[:MAX_CANDIDATES])
