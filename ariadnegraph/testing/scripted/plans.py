"""The scripted double's AriGraph planner (appendix E's main goal and sub-goals): the double's own plan, each of its
commands a sub-goal, so the ReAct choice that reads them plays what the double would have."""

from __future__ import annotations

from collections.abc import Mapping

from ... import prompting as p
from ...nodes.schemas import GoalPlan, SubGoal
from . import policy


def goal_plan(s: Mapping[str, str]) -> GoalPlan:
    decided = policy.plan(s)
    goals = [SubGoal(sub_goal=step.action, reason=decided.subgoal) for step in decided.steps if step.action.strip()]
    return GoalPlan(main_goal=s.get(p.GOAL, ""), plan_steps=goals or [SubGoal(sub_goal="look")], emotion="calm")
