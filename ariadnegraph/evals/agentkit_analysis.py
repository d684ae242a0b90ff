"""What an AgentKit agent learned, from a finished run's files (AgentKit §4.1.2, figure 4 right; appendix E.2-E.3):
the distribution of action categories under each skill it played, and its knowledge base and skill library as the
run ended. The skill a command was played under is in each step's trajectory line (``decided.skill``, written by
the thought graph); the database is read from the run's last checkpoint."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..agent.checkpoints import checkpoint_thread, checkpointer
from ..agentkit.thoughts import SKILL_DECIDED
from ..runs import RunDir

NO_SKILL = "(no skill yet)"
_CATEGORIES = ("move", "place", "make")  # Crafter's commands by their first word; "do", "noop", "sleep" are their own


def action_category(command: str) -> str:
    """Crafter's command kinds as figure 4 groups them: move, do, place, make, sleep, noop."""
    first = command.split(" ", 1)[0].lower() if command else "noop"
    return first if first in (*_CATEGORIES, "do", "sleep", "noop") else "other"


def actions_per_skill(run: RunDir) -> dict[str, Counter[str]]:
    """skill -> how many commands of each category were played under it."""
    found: dict[str, Counter[str]] = {}
    for step in list(run.steps())[1:]:
        skills = (step.get("decided") or {}).get(SKILL_DECIDED) or []
        skill = str(skills[-1]) if skills and skills[-1] else NO_SKILL
        found.setdefault(skill, Counter())[action_category(str(step.get("action") or ""))] += 1
    return found


def learned(run: RunDir) -> dict[str, Any]:
    """The thought graph's database as the run ended: its knowledge base, skill library, subgoals and top subgoal
    (empty where the run has no thought graph or no checkpoint)."""
    if not run.checkpoints_path.is_file() and "checkpoints" not in run.meta():
        return {}
    from ..graphs.agent import build_agent_graph

    with checkpointer(run) as saver:
        snapshot = (
            build_agent_graph()
            .compile(checkpointer=saver)
            .get_state({"configurable": {"thread_id": checkpoint_thread(run.meta())}})
        )
    db = (snapshot.values or {}).get("thought_db") or {}
    return {key: db.get(key) for key in ("knowledge", "skills", "subgoals", "top_subgoal", "skill") if key in db}


def analysis_text(run: RunDir) -> str:
    """The two analyses as text: the table of action categories per skill, then what the database holds."""
    per_skill = actions_per_skill(run)
    kinds = sorted({kind for counts in per_skill.values() for kind in counts})
    lines = ["actions per skill (AgentKit fig. 4: share of each category, and the commands played)"]
    lines.append(f"{'skill':<28}" + "".join(f"{kind:>8}" for kind in kinds) + f"{'n':>6}")
    for skill, counts in per_skill.items():
        total = sum(counts.values())
        shares = "".join(f"{100 * counts[kind] / total:>7.0f}%" for kind in kinds)
        lines.append(f"{skill[:28]:<28}{shares}{total:>6}")
    state = learned(run)
    for key, title in (("knowledge", "knowledge base"), ("skills", "skill library")):
        items = state.get(key)
        if items is None:
            continue
        lines += ["", f"{title} ({len(items)})", *(f"- {item}" for item in items)]
    if state.get("top_subgoal"):
        lines += ["", f"top subgoal: {state['top_subgoal']}"]
    return "\n".join(lines)
