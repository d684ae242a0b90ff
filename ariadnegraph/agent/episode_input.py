"""What an episode is started with (CLI, Studio, SDK), checked before anything is written, and the
recursion budget LangGraph needs to play it to its end. The environment node checks a client's input
with these; ``play`` checks its own before it starts the graph."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..envs.registry import check_split
from ..runs import check_run_id
from .context import AgentContext

MAX_STEPS_LIMIT = 100_000  # far beyond any episode here; bounds the recursion limit LangGraph is given
SEED_LIMIT = 2**31  # game generators take 32-bit seeds


def check_episode_input(state: Mapping[str, Any]) -> None:
    """The caller's input (CLI, Studio, SDK), checked before anything is written."""
    if not state.get("env") or not isinstance(state["env"], str):
        raise ValueError('the episode input needs \'env\' (text), e.g. {"env": "cooking:1", "seed": 1}')
    if state.get("run_id") is not None:
        check_run_id(state["run_id"])
    if state.get("split") is not None and not isinstance(state["split"], str):
        raise ValueError(f"the episode input's 'split' must be text, got {state['split']!r:.60}")
    if state.get("max_steps") is None:
        raise ValueError(
            f"the episode input needs 'max_steps' (an integer between 1 and {MAX_STEPS_LIMIT:,}), e.g. "
            '{"env": "cooking:1", "seed": 1, "max_steps": 50}'
        )
    check_numbers(max_steps=state.get("max_steps"), seed=state.get("seed"), variation=state.get("variation"))
    check_split(state["env"], state.get("split"))
    for name in ("lessons", "script"):
        value = state.get(name)
        if value is not None and not (isinstance(value, list) and all(isinstance(x, str) for x in value)):
            raise ValueError(f"the episode input's '{name}' must be a list of strings")


def check_numbers(*, max_steps: object, seed: object, variation: object) -> None:
    """The numbers an episode is started with: integers in the ranges the games and LangGraph take."""
    if max_steps is not None and (type(max_steps) is not int or not 1 <= max_steps <= MAX_STEPS_LIMIT):
        raise ValueError(f"max steps must be an integer between 1 and {MAX_STEPS_LIMIT:,}, got {max_steps!r}")
    for name, value in (("seed", seed), ("variation", variation)):
        if value is not None and (type(value) is not int or not 0 <= value < SEED_LIMIT):
            raise ValueError(f"{name} must be an integer between 0 and {SEED_LIMIT - 1}, got {value!r}")


def nodes_per_step(context: AgentContext) -> int:
    """The most graph nodes one step can run: the memory path, the thinking, the critic and the planner
    again for each replan it may ask for, the actor and the approval. LangGraph's recursion limit counts them. A plan
    is two nodes (the planner, and the world model's monologue or predictions), or two for each step DAVIS's rollout
    imagines."""
    preset = context.switches
    rollout = preset.monologue == "rollout" and preset.qa_turns != 0
    planning = 2 * preset.plan_length if rollout else 2
    early_critic = preset.memory_cadence == "plan"  # STMA's cadence: a plan's later step is judged before memory
    return 9 + early_critic + planning * (1 + preset.max_replans)


def recursion_limit(context: AgentContext, max_steps: int) -> int:
    """The recursion limit an episode of ``max_steps`` needs (the first step and ``finish`` included)."""
    return nodes_per_step(context) * (max_steps + 1) + 2


def check_recursion_budget(state: Mapping[str, Any], context: AgentContext, remaining: int | None) -> None:
    """A run that could not reach the episode's end within LangGraph's recursion limit is refused at its
    start (a step costs at most ``nodes_per_step``; a budget that holds at one step holds at the next)."""
    if remaining is None or not state.get("max_steps"):
        return
    needed = nodes_per_step(context) * (state["max_steps"] - state.get("step", -1)) + 1
    if remaining < needed:
        raise ValueError(
            f"an episode of {state['max_steps']} steps needs a recursion limit of at least "
            f"{recursion_limit(context, state['max_steps'])} (the run's config 'recursion_limit'); this run has "
            f"{remaining} left"
        )
