"""A one-node graph that plays a random-baseline episode: the server entry point until the agent lands.

It keeps ``langgraph.json`` loadable and lets ``langgraph dev`` serve something real: send
``{"env": "cooking:1", "seed": 1, "max_steps": 20}`` and get the episode summary back.
"""

from __future__ import annotations

import os
from typing import TypedDict

from langgraph.graph import END, START, StateGraph

from ariadnegraph.evals.baselines import play_baseline


class EpisodeRequest(TypedDict, total=False):
    env: str
    seed: int | None
    max_steps: int


class EpisodeState(EpisodeRequest, total=False):
    run_id: str
    score: float
    max_score: float
    won: bool
    steps: int


def play_episode(state: EpisodeState) -> dict:
    summary = play_baseline(
        state.get("env") or "cooking:1",
        seed=state.get("seed"),
        max_steps=state.get("max_steps") or 20,
        run_root=os.environ.get("ARIADNE_RUN_DIR", "runs"),
    )
    return {k: getattr(summary, k) for k in ("run_id", "score", "max_score", "won", "steps")}


builder = StateGraph(EpisodeState, input_schema=EpisodeRequest)
builder.add_node("play_episode", play_episode)
builder.add_edge(START, "play_episode")
builder.add_edge("play_episode", END)
graph = builder.compile(name="baseline")
