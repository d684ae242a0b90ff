"""What an episode shows as it plays: one structured event per thing a node saw or decided, derived from the node's
state update. A LangGraph client reads them as ``custom`` events (``stream_mode="custom"``: the graph's node wrapper
writes them, graphs/agent.py); the CLI's live view words them (live.py). One owner of what is shown, for both.

Each event is a dict with ``event`` (its kind) and ``step``: the step an observation came from, or the step a plan,
a verdict or a command is for (the one about to be played).

- ``step``: the game's answer: ``observation``, ``last_action`` (the command that gave it), ``score``, ``max_score``,
  ``done``, ``won``, ``lost`` (and ``run_id``);
- ``belief``: the summarizer's ``belief``; ``notes``: the inner monologue's ``notes``;
- ``plan``: ``subgoal``, ``steps`` (the commands or sub-goals planned), ``reason`` (why, where the planner said);
- ``verdict``: the critic's ``proposed`` command, ``approved`` (None: not judged), ``valid``, ``outcome_matches``
  with the ``last_action`` it judged (None: no outcome judged), ``feedback`` (on a rejection or a mismatch);
- ``command``: the ``command`` to play, ``how`` the actor got it, ``by`` (the model, or code and why) and ``reason``;
- ``stopped``: a person stopped the episode at an approval (``step``: the last step played).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STEP_EVENT_KEYS = ("run_id", "step", "last_action", "observation", "score", "max_score", "done", "won", "lost")


def node_events(node: str, state: Mapping[str, Any], update: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The events of ``node``'s ``update`` to ``state`` (the state it ran on); [] for one with nothing to show."""
    upcoming = (state.get("step") or 0) + 1
    found: list[dict[str, Any]] = []
    if node == "environment" and update.get("stopped"):  # a person stopped it at an approval: nothing was played
        found.append({"event": "stopped", "step": state.get("step") or 0, "run_id": state.get("run_id")})
    elif node == "environment" and "observation" in update:
        merged = {**state, **update}
        found.append({"event": "step", **{key: merged.get(key) for key in STEP_EVENT_KEYS}})
    elif node == "summarizer" and update.get("belief"):
        found.append({"event": "belief", "step": upcoming, "belief": update["belief"]})
    elif node == "world_model_qa" and update.get("notes"):
        found.append({"event": "notes", "step": upcoming, "notes": list(update["notes"])})
    decided = update.get("decided") or {}
    if isinstance(decided, Mapping):
        for plan in decided.get("plans") or []:
            found.append(
                {
                    "event": "plan",
                    "step": upcoming,
                    "subgoal": plan.get("subgoal") or "",
                    "steps": list(plan.get("steps") or plan.get("sub_goals") or []),
                    "reason": update.get("reason"),
                }
            )
        for verdict in decided.get("verdicts") or []:
            found.append(
                {
                    "event": "verdict",
                    "step": upcoming,
                    **{key: verdict.get(key) for key in ("proposed", "approved", "valid", "outcome_matches")},
                    "last_action": verdict.get("last_action") if verdict.get("outcome_matches") is not None else None,
                    "feedback": verdict.get("feedback"),
                }
            )
    if update.get("command"):  # the actor's, or a thought graph's (AgentKit): the command to play next
        how: Mapping[str, Any] = (decided.get("actor") or [{}])[-1] if isinstance(decided, Mapping) else {}
        found.append(
            {
                "event": "command",
                "step": upcoming,
                "command": update["command"],
                "how": how.get("how"),
                "by": how.get("by"),
                "reason": update.get("reason"),
            }
        )
    return found
