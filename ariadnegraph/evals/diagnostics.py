"""Per-role diagnostics: each role's mistakes in one run, measured against the game's truth.

A run's trajectory says, for each command, what every role decided on the way to it (``decided``: the
belief, the facts extracted, the inner monologue's notes, the plans, the critic's verdicts, the actor's
grounding; written by the nodes, see ``agent.state.record_decisions``); ``oracle.jsonl`` says what was
true at each step (facts, the player's place and inventory, the score, and in TextWorld the commands
that win from there: ``policy``). Nothing here is shown to the agent.

What is counted, per step and in total (a decision is charged to the step whose command it led to):

- **planner**: plans whose first step was a valid command when planned (or a 'go to' a place already
  visited); plan steps on a winning path (among the commands that win from there where the game knows them,
  TextWorld's ``policy``; elsewhere among the gold path's commands not yet played, :func:`remaining_gold`);
- **actor**: commands played that are neither the plan's step nor a close spelling of it (drift: the
  model mapped a plan step to another command, or nothing usable came back);
- **critic**: rejections of the command the winning path takes next (false rejections); approvals of
  commands that then failed (nothing changed in the world, no score, and not a command that only
  looks); outcome verdicts against what happened (a "mismatch" for a command that changed the world or
  raised the score, a "match" for one that did neither);
- **summarizer**: whether the belief names every ingredient of the recipe once the recipe has been seen
  (cooking games), whether it changes when the world does, and how much of it is the ENVIRONMENT
  brief copied;
- **extraction**: memory fidelity per step (``evals.fidelity``) and facts whose relation cannot hold (an
  exit to something that is not a direction, a room next to a thing, a thing inside a direction);
- **inner monologue**: notes that name nothing any tool returned;
- **loops**: a (place, inventory, command) played again; the steps since the score last rose.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..agent.integrity import checked_copies
from ..agent.presets import system_label
from ..agent.records import How
from ..controller.guards import Reason
from ..envs.families import family_of
from ..envs.text import go_to_target, ground_command
from ..memory.conflicts import DIRECTION_RELATIONS
from ..models import model_label
from ..nodes.actor import GUARD_HOW, TAKES_FIRST
from ..nodes.common import BY_MODEL as MODEL_CHOICE
from ..nodes.common import BY_WORKED as WORKED_CHOICE
from ..runs import RunDir
from ..vocabulary import DIRECTIONS
from .fidelity import MissingOracle, rooms_of, run_fidelity, truth_triplets

LOOKING = ("look", "examine", "read", "inventory", "check", "x ")  # commands that only show, never change the world
ROLES = ("planner", "choice", "actor", "critic", "summarizer", "extraction", "monologue", "loops")
PAYOFF_STEPS = 5  # a choice paid when the score rose within this many steps of it (the step's own included)


def _words(command: str | None) -> str:
    return " ".join((command or "").lower().split())


def _looks(command: str | None) -> bool:
    return _words(command).startswith(LOOKING)


@dataclass
class StepDiagnosis:
    """One step's counts (the decisions that led to its command, and its outcome)."""

    step: int
    command: str | None
    plans: int = 0
    plans_valid: int = 0  # plans whose first step was a valid command then (or a 'go to' a visited place)
    plan_steps: int = 0
    plan_on_path: int | None = None  # plan steps among the winning commands (None: the game gives no winning path)
    drift: bool = False
    # plan steps the actor returned to the planner (invalid, a repeat, a stall, ruled out by the rules)
    sent_back: int = 0
    ruled_out: int = 0  # of those, steps the game family's rules rule out (the rules shield)
    # the actor played something else than the plan: "explore" (pacing), "fallback" (replans used up), "take first"
    # (a step not valid now that names a thing to take here), "keys first" (a key here, a lock to unlock), "goal in
    # reach" (what the goal names, taken here): nodes/actor.GUARD_HOW
    instead: str | None = None
    false_rejections: int = 0
    failed_approvals: int = 0
    wrong_outcome_verdicts: int = 0
    verdicts: int = 0
    belief_holds_recipe: bool | None = None
    belief_changed: bool | None = None
    world_changed: bool = False
    extraction_precision: float | None = None
    impossible_facts: list[list[str]] = field(default_factory=list)
    notes: int = 0
    unsupported_notes: int = 0
    repeated: bool = False  # (place, inventory, command) played before
    since_score: int = 0  # steps since the score last rose
    # the controller's proposal and who chose among it (nodes/choice.choice_record): "model", or code's source
    chosen_by: str | None = None
    candidates: int = 0
    override: bool = False  # the model chose another command than the controller's first candidate
    told_left_out: bool = False  # the model chose a command the controller left out, was told so and asked again
    vetoed: bool = False  # the model chose a command the controller left out: its first candidate played instead
    paid: bool | None = None  # the score rose within PAYOFF_STEPS of the choice (None: no choice this step)
    # the task's question asked of the model this step (nodes/worked_out.py), and whether its answer named an option
    question_asked: bool = False
    question_answered: bool = False


@dataclass
class RunDiagnosis:
    run_id: str
    steps: list[StepDiagnosis]
    totals: dict[str, dict[str, Any]]
    system: str = ""  # what played, as every surface names it (agent.presets.system_label): ORACLE runs say so
    model: str = ""  # the model, as every surface names it (models.model_label): 'none (no language model)'

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "system": self.system,
            "model": self.model,
            "totals": self.totals,
            "steps": [asdict(s) for s in self.steps],
        }


def recipe_of(facts: Iterable[Sequence[str]]) -> set[str]:
    """The ingredients a TextWorld cooking recipe lists (``base(item, ingredient_k)``, ``in(ingredient_k, RECIPE)``)."""
    facts = [tuple(f) for f in facts]
    slots = {f[1] for f in facts if len(f) == 3 and f[0] == "in" and f[2] == "RECIPE"}
    return {f[1].lower() for f in facts if len(f) == 3 and f[0] == "base" and f[2] in slots}


def remaining_gold(walkthrough: Sequence[str], played: Sequence[str | None]) -> list[str]:
    """Where the game gives no winning commands from each state (TextWorldExpress, ScienceWorld: a gold path
    from the start only): the gold path's commands not yet played, in order; an approximation of the winning
    path from here that holds while the agent has not undone what it did."""
    left = [_words(c) for c in walkthrough]
    for command in played:
        if _words(command) in left:
            left.remove(_words(command))
    return left


def impossible(triplet: Sequence[str], rooms: set[str]) -> bool:
    """A fact whose relation cannot hold: an exit to something that is not a direction, a direction
    relation between things that are not rooms (when the rooms are known), a thing inside a direction."""
    if len(triplet) != 3:
        return True
    subject, relation, obj = (" ".join(str(x).lower().split()) for x in triplet)
    if relation == "has exit":
        return obj not in DIRECTIONS
    if relation in DIRECTION_RELATIONS:
        return bool(rooms) and (subject not in rooms or obj not in rooms)
    if relation in ("in", "on"):
        return obj in DIRECTIONS
    return False


def _reason(record: dict[str, Any]) -> str | None:
    """The guard's reason code of an actor record (controller/guards.Reason); a trajectory written before reason codes
    said it in its why alone, which is read for those."""
    if record.get("reason"):
        return str(record["reason"])
    return Reason.RULED_OUT if " is ruled out: " in (record.get("why") or "") else None


def diagnose(run: RunDir) -> RunDiagnosis:
    """The diagnostics of a run (read from ``run``'s files: give a checked copy)."""
    lines = list(run.steps())
    oracle = list(run.oracle_steps())
    if len(oracle) < len(lines):
        raise MissingOracle(f"run {run.run_id} has no oracle for steps {len(oracle)}..{len(lines) - 1}")
    meta = run.meta()
    brief = _brief(meta)
    try:
        fidelity = {p.step: p.precision for p in run_fidelity(run).points}
    except (MissingOracle, FileNotFoundError):
        fidelity = {}
    recipe = recipe_of(oracle[0]["facts"]) if oracle else set()
    rooms = {room for record in oracle for room in rooms_of(truth_triplets(record.get("facts") or []))}
    recipe_seen = False
    visited: set[str] = set()
    played: Counter[tuple[Any, ...]] = Counter()
    belief: str | None = None
    last_rise = 0
    steps: list[StepDiagnosis] = []
    for t, line in enumerate(lines):
        truth = oracle[t]
        if truth.get("location"):
            visited.add(str(truth["location"]).lower())
        seen_before = recipe_seen  # the decisions on this line were made before its observation
        text = line["observation"].lower()
        recipe_seen = recipe_seen or bool(recipe) and all(item in text for item in recipe) and "ingredient" in text
        if t == 0:
            continue
        before = oracle[t - 1]
        policy = before.get("policy") or remaining_gold(
            oracle[0].get("walkthrough") or [], [r.get("action") for r in lines[1:t]]
        )
        decided = line.get("decided") or {}
        command = line.get("action")
        d = StepDiagnosis(step=t, command=command, world_changed=_world_changed(before, truth))
        _read_plans(
            d, decided, lines[t - 1].get("valid") or [], visited, {_words(c) for c in policy} if policy else None
        )
        _read_actor(d, decided)
        _read_choice(d, decided)
        outcome_worked = steps[-1].world_changed if steps else False
        _read_verdicts(d, decided, _words(policy[0]) if policy else None, outcome_worked)
        if "belief" in decided:
            belief = _read_belief(d, str(decided["belief"]), belief, recipe if seen_before else set())
        d.extraction_precision = fidelity.get(t - 1)
        d.impossible_facts = [list(f) for f in decided.get("extracted") or [] if impossible(f, rooms)]
        d.notes = len(decided.get("notes") or [])
        d.unsupported_notes = int(decided.get("unsupported_notes") or 0)
        key = (str(before.get("location") or "").lower(), _inventory_key(before), _words(command))
        played[key] += 1
        d.repeated = played[key] > 1  # the same command from the same place with the same inventory
        if truth.get("score", 0) > before.get("score", 0):
            last_rise = t
        d.since_score = t - last_rise
        if d.chosen_by is not None:  # the score at the steps from this one on, against the step before it
            later = [float(o.get("score") or 0) for o in oracle[t : t + PAYOFF_STEPS]]
            d.paid = bool(later) and max(later) > float(before.get("score") or 0)
        steps.append(d)
    context = meta["context"]
    return RunDiagnosis(
        run_id=run.run_id,
        steps=steps,
        totals=_totals(steps, brief, belief, fidelity),
        system=system_label(str(context.get("preset")), context.get("switch_overrides")),
        model=model_label(str(context.get("model") or "")),
    )


def _read_choice(d: StepDiagnosis, decided: Mapping[str, Any]) -> None:
    """The step's last choice among the controller's candidates (a replan makes another), and the task's question
    asked of the model on the way to it (nodes/worked_out.py)."""
    asked = [q for q in decided.get("questions") or [] if isinstance(q, Mapping) and q.get("called")]
    d.question_asked = bool(asked)
    d.question_answered = any(q.get("answer") for q in asked)
    choices = decided.get("choices") or []
    if not choices or not isinstance(choices[-1], Mapping):
        return
    choice = choices[-1]
    d.chosen_by = str(choice.get("by") or "")
    d.candidates = len(choice.get("candidates") or [])
    d.override = bool(choice.get("override")) and d.chosen_by == MODEL_CHOICE
    d.told_left_out = bool(choice.get("left_out"))
    d.vetoed = bool(choice.get("vetoed"))


def _world_changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether a step changed the game's true facts or raised its score (two oracle records)."""
    facts_before = {tuple(f) for f in before.get("facts") or []}
    return {tuple(f) for f in after.get("facts") or []} != facts_before or after.get("score", 0) > before.get(
        "score", 0
    )


def _inventory_key(record: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(sorted(str(i).lower() for i in record.get("inventory") or []))


def _read_belief(d: StepDiagnosis, text: str, previous: str | None, recipe: set[str]) -> str:
    """The belief of a step: whether it changed and whether it holds the recipe (``recipe``: its items, once the
    recipe was seen; else empty); returns it, normalised, for the next step."""
    words = " ".join(text.lower().split())
    if recipe:
        d.belief_holds_recipe = all(item in words for item in recipe)
    d.belief_changed = previous is not None and words != previous
    return words


def _brief(meta: Mapping[str, Any]) -> str:
    """The brief the roles were shown, the task's part too ("" for an env this version no longer knows)."""
    env = meta["env"]
    try:
        return family_of(env).brief_for(str(meta.get("goal") or ""))
    except Exception:
        return ""


def _read_plans(
    d: StepDiagnosis, decided: Mapping[str, Any], valid: list[str], visited: set[str], path: set[str] | None
) -> None:
    """The plans of a step: how many, how many start with a command the game takes (or a 'go to' a place seen),
    and how many of their steps are on the winning path (``path``: None when the game gives none)."""
    for plan in decided.get("plans") or []:
        actions = plan.get("steps") or []
        if actions:
            d.plans += 1
            first = plan.get("written") or actions[0]  # as the model wrote it, before grounding
            target = go_to_target(first)
            d.plans_valid += (
                not valid
                or ground_command(first, valid) is not None
                or (target is not None and _words(target) in visited)
            )
        for action in actions:
            d.plan_steps += 1
            if path is not None:
                d.plan_on_path = (d.plan_on_path or 0) + (_words(action) in path)


def _read_actor(d: StepDiagnosis, decided: Mapping[str, Any]) -> None:
    """The actor's records of a step: steps sent back (and ruled out), what a guard played instead, and a drift (the
    model's mapping of an invalid step to a command it does not name)."""
    records = decided.get("actor") or []
    records = records if isinstance(records, list) else [records]
    d.sent_back = sum(r.get("how") == How.SENT_BACK for r in records)
    d.ruled_out = sum(r.get("how") == How.SENT_BACK and _reason(r) == Reason.RULED_OUT for r in records)
    actor = records[-1] if records else {}
    d.instead = actor.get("how") if actor.get("how") in GUARD_HOW.values() else None
    # (a fallback after the step was sent back is the actor refusing it on purpose, counted apart: not a drift)
    if actor.get("planned") and (
        actor.get("how") == How.MODEL or (actor.get("how") == How.FALLBACK and not d.sent_back)
    ):
        d.drift = (
            ground_command(actor["planned"], [actor.get("played") or ""]) is None
            and go_to_target(actor["planned"]) is None
        )


def _read_verdicts(
    d: StepDiagnosis, decided: Mapping[str, Any], next_on_path: str | None, outcome_worked: bool
) -> None:
    """The critic's verdicts of a step against the truth: a rejection of the winning path's next command, an approval
    of a command that changed nothing, an outcome judged wrongly (``outcome_worked``: whether the last step's did)."""
    for verdict in decided.get("verdicts") or []:
        if not verdict.get("judged"):
            continue
        d.verdicts += 1
        proposed = _words(verdict.get("proposed"))
        if verdict.get("approved") is False and next_on_path is not None and proposed == next_on_path:
            d.false_rejections += 1
        if (
            verdict.get("approved") is True
            and proposed == _words(d.command)
            and not d.world_changed
            and not _looks(d.command)
        ):
            d.failed_approvals += 1
        if verdict.get("outcome_matches") is not None and d.step >= 2:
            if verdict["outcome_matches"] != outcome_worked and not _looks(verdict.get("last_action")):
                d.wrong_outcome_verdicts += 1


def _ratio(part: float, whole: float) -> float | None:
    return round(part / whole, 3) if whole else None


def _totals(
    steps: list[StepDiagnosis], brief: str, last_belief: str | None, fidelity: Mapping[int, float | None]
) -> dict[str, dict[str, Any]]:
    plan_steps = sum(s.plan_steps for s in steps)
    on_path = [s.plan_on_path for s in steps if s.plan_on_path is not None]
    held = [s.belief_holds_recipe for s in steps if s.belief_holds_recipe is not None]
    changed = [s.belief_changed for s in steps if s.belief_changed is not None and s.world_changed]
    brief_lines = {" ".join(line.lower().split()) for line in brief.splitlines() if line.strip()}
    belief_lines = [" ".join(line.lower().split()) for line in (last_belief or "").splitlines() if line.strip()]
    precisions = [p for p in fidelity.values() if p is not None]
    longest = 0
    for s in steps:
        longest = max(longest, s.since_score)
    chosen = [s for s in steps if s.chosen_by is not None]
    by_model = [s for s in chosen if s.chosen_by == MODEL_CHOICE]
    overrides = [s for s in by_model if s.override]
    agreed = [s for s in by_model if not s.override]
    worked = [s for s in chosen if s.chosen_by == WORKED_CHOICE]
    return {
        "planner": {
            "plans": sum(s.plans for s in steps),
            "valid": _ratio(sum(s.plans_valid for s in steps), sum(s.plans for s in steps)),
            "steps": plan_steps,
            "on_winning_path": _ratio(sum(on_path), plan_steps) if on_path else None,
        },
        "choice": {
            "choices": len(chosen),
            "by_model": len(by_model),
            "by_code": len(chosen) - len(by_model),
            "overrides": len(overrides),
            "told_left_out": sum(s.told_left_out for s in chosen),
            "vetoed": sum(s.vetoed for s in chosen),
            "override_rate": _ratio(len(overrides), len(by_model)),
            "override_paid": _ratio(sum(bool(s.paid) for s in overrides), len(overrides)),
            "agreement_paid": _ratio(sum(bool(s.paid) for s in agreed), len(agreed)),
            # the task's questions the model was asked, those it answered with an option, the moves code played to
            # carry the answers out, and the share of those after which the score rose
            "questions": sum(s.question_asked for s in steps),
            "answered": sum(s.question_answered for s in steps),
            "worked_moves": len(worked),
            "worked_paid": _ratio(sum(bool(s.paid) for s in worked), len(worked)),
        },
        "actor": {
            "commands": len(steps),
            "drift": sum(s.drift for s in steps),
            "drift_rate": _ratio(sum(s.drift for s in steps), len(steps)),
            "sent_back": sum(s.sent_back for s in steps),
            "ruled_out": sum(s.ruled_out for s in steps),
            "explored_instead": sum(s.instead == "explore" for s in steps),
            "fallbacks": sum(s.instead == "fallback" for s in steps),
            "took_first": sum(s.instead in TAKES_FIRST for s in steps),
        },
        "critic": {
            "verdicts": sum(s.verdicts for s in steps),
            "false_rejections": sum(s.false_rejections for s in steps),
            "failed_approvals": sum(s.failed_approvals for s in steps),
            "wrong_outcome_verdicts": sum(s.wrong_outcome_verdicts for s in steps),
        },
        "summarizer": {
            "beliefs": sum(s.belief_changed is not None for s in steps)
            + (1 if steps and last_belief is not None else 0),
            "holds_recipe": _ratio(sum(held), len(held)) if held else None,
            "changes_with_world": _ratio(sum(changed), len(changed)) if changed else None,
            "copied_brief_lines": _ratio(sum(line in brief_lines for line in belief_lines), len(belief_lines))
            if belief_lines
            else None,
        },
        "extraction": {
            "precision": round(sum(precisions) / len(precisions), 3) if precisions else None,
            "impossible_facts": sum(len(s.impossible_facts) for s in steps),
        },
        "monologue": {"notes": sum(s.notes for s in steps), "unsupported": sum(s.unsupported_notes for s in steps)},
        "loops": {
            "repeats": sum(s.repeated for s in steps),
            "longest_without_score": longest,
            "since_score_at_end": steps[-1].since_score if steps else 0,
        },
    }


def mistakes(step: StepDiagnosis) -> list[str]:
    """A step's mistakes in words (the report shows them beside the step)."""
    found = []
    if step.plans_valid < step.plans:
        found.append(f"{step.plans - step.plans_valid} of {step.plans} plans began with a command not valid then")
    if step.drift:
        found.append("the actor played another command than the plan's step")
    for count, one, many in (
        (step.false_rejections, "rejection of the winning command", "rejections of the winning command"),
        (step.failed_approvals, "approval of a command that failed", "approvals of commands that failed"),
        (step.wrong_outcome_verdicts, "wrong outcome verdict", "wrong outcome verdicts"),
        (len(step.impossible_facts), "impossible fact extracted", "impossible facts extracted"),
        (step.unsupported_notes, "note no tool returned", "notes no tool returned"),
    ):
        if count:
            found.append(f"{count} {one if count == 1 else many}")
    if step.belief_holds_recipe is False:
        found.append("the belief lacks the recipe")
    if step.repeated:
        found.append("repeats a command at the same place with the same inventory")
    return found


def run_diagnosis(run_dir: str | Path, run_id: str) -> RunDiagnosis:
    """The diagnostics of a saved run, read from a checked copy (the run's own files are never opened)."""
    with checked_copies(run_dir, [run_id]) as copies:
        return diagnose(RunDir.open(copies, run_id))


LEGEND = (
    "choice: the controller's proposals; by model: chosen by the model among them; override: the model chose another "
    f"than the first candidate; paid: the score rose within {PAYOFF_STEPS} steps of the choice; questions: the task's "
    "questions asked of the model (answered: with an option), whose answers code carried out (worked moves)",
    "plans v/n p/s: plans whose first step was valid / plans made; plan steps on a winning path / plan steps",
    "drift: the actor played another command than the plan's step",
    "critic fr/fa/wo: rejections of the winning command / approvals of commands that failed / wrong outcome verdicts",
    "belief: whether the summarizer's belief holds the recipe; extr.p: the share of extracted facts the game holds",
    "imposs.: extracted facts that cannot hold; notes u/n: monologue notes no tool returned / notes",
    "repeat: the same command at the same place with the same inventory as before; since: steps since the score rose",
    "— : not measured (the game gives no winning path, or the preset has no such role)",
)


def render_diagnosis(diagnosis: RunDiagnosis, every: int = 1) -> str:
    """The totals per role, then one line per step (every ``every``-th, and every step with a mistake)."""
    played = f" ({diagnosis.system}, {diagnosis.model})" if diagnosis.model else f" ({diagnosis.system})"
    out = [f"run {diagnosis.run_id}{played}: per-role diagnostics against the game's truth", ""]
    for role, figures in diagnosis.totals.items():
        out.append(
            f"{role:<11} " + ", ".join(f"{k.replace('_', ' ')} {'—' if v is None else v}" for k, v in figures.items())
        )
    out += [
        "",
        "step  command                          plans v/n p/s  drift  critic fr/fa/wo  belief  extr.p  imposs.  notes "
        "u/n  repeat  since",
    ]
    for s in diagnosis.steps:
        found = mistakes(s)
        if s.step % every and not found:
            continue
        plan = (
            f"{s.plans_valid}/{s.plans} {'—' if s.plan_on_path is None else s.plan_on_path}/{s.plan_steps}"
            if s.plans
            else "—"
        )
        belief = "—" if s.belief_holds_recipe is None else ("recipe" if s.belief_holds_recipe else "no rcp")
        precision = "—" if s.extraction_precision is None else f"{s.extraction_precision:.2f}"
        out.append(
            f"{s.step:>4}  {(s.command or '')[:32]:<32} {plan:>13}  {'yes' if s.drift else '':>5}  "
            f"{s.false_rejections}/{s.failed_approvals}/{s.wrong_outcome_verdicts:<9}  {belief:>6}  {precision:>6}  "
            f"{len(s.impossible_facts):>7}  {s.unsupported_notes}/{s.notes:<7} {'yes' if s.repeated else '':>6}  "
            f"{s.since_score:>5}" + (f"  {'; '.join(found)}" if found else "")
        )
    return "\n".join([*out, "", *LEGEND])
