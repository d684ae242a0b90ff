"""An eval in LangSmith (``ariadne eval ... --langsmith``): its games as a dataset, each system (preset and model) as
an experiment on it, each episode a run of that experiment with its figures as feedback, so evals compare in
LangSmith's experiment view.

- the dataset ``ariadne SUITE``: one example per game (env, seed, variation, step limit; its group and label);
- one experiment (a LangSmith project on the dataset) per system, model and settings digest, with the eval's
  provenance as its metadata (``evals/provenance.py``): records of other settings never share one;
- a run per episode, linked to its game's example, whose outputs are the episode's figures, and feedback for each
  (``norm_score``, ``success``, ``best_norm_score``, ``steps``, ``llm_calls``, ``cost_usd`` when known).

Ids are derived from the records (uuid5), and what was sent is listed in ``langsmith.json`` beside
``episodes.jsonl``: publishing again sends only the episodes not sent yet. The client is LangSmith's own, with its
variables (``LANGSMITH_API_KEY``, ``LANGSMITH_ENDPOINT``)."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..models import model_label
from ..runs import write_output
from .plan import EvalError, EvalPlan

PUBLISHED_FILE = "langsmith.json"
NAMESPACE = uuid.UUID("8d4d3f2e-5a49-4b8c-9d2e-6a1c2b7f0e11")  # ours: the ids of what an eval publishes
FEEDBACK = ("norm_score", "best_norm_score", "steps", "llm_calls", "cost_usd")


def dataset_name(plan: EvalPlan) -> str:
    return f"ariadne {plan.suite.name}"


def game_key(record: Mapping[str, Any]) -> str:
    return (
        f"{record['env']}|seed={record.get('seed')}|variation={record.get('variation')}|steps={record.get('max_steps')}"
    )


def experiment_name(record: Mapping[str, Any]) -> str:
    """One experiment per system, model and settings (the digest of what plays the games, evals/provenance.py)."""
    digest = (record.get("provenance") or {}).get("system") or "unrecorded"
    return f"{record.get('suite', '?')} · {record['preset']} · {record['model']} · {digest[:8]}"


def _published(out: Path) -> set[str]:
    path = out / PUBLISHED_FILE
    if not path.is_file():
        return set()
    try:
        return set(json.loads(path.read_text())["episodes"])
    except (ValueError, KeyError, TypeError):
        raise EvalError(f"{path} is damaged: delete it to publish every episode again") from None


def publish(plan: EvalPlan, records: Sequence[Mapping[str, Any]], client: Any = None) -> dict[str, int]:
    """Send the eval's played episodes not sent yet; returns how many examples, experiments and runs were new."""
    from langsmith import Client

    client = client or Client(auto_batch_tracing=False)
    played = [r for r in records if not r.get("failed")]
    done = _published(plan.out)
    pending = [r for r in played if r["key"] not in done]
    counts = {"examples": 0, "experiments": 0, "runs": 0}
    if not pending:
        return counts
    name = dataset_name(plan)
    if client.has_dataset(dataset_name=name):
        dataset = client.read_dataset(dataset_name=name)
    else:
        dataset = client.create_dataset(name, description=f"{plan.suite.description}. Protocol: {plan.suite.paper}.")
    known = {str(example.id) for example in client.list_examples(dataset_id=dataset.id)}
    games = {game_key(r): r for r in pending}
    examples = {key: uuid.uuid5(NAMESPACE, f"{name}|{key}") for key in games}
    new = [
        {
            "id": examples[key],
            "inputs": {k: r.get(k) for k in ("env", "seed", "variation", "max_steps")},
            "metadata": {"group": r.get("group"), "label": r.get("label")},
        }
        for key, r in games.items()
        if str(examples[key]) not in known
    ]
    if new:
        client.create_examples(dataset_id=dataset.id, examples=new)
        counts["examples"] = len(new)
    projects: dict[str, Any] = {}
    for record in pending:
        project = experiment_name(record)
        if project not in projects and client.has_project(project):
            projects[project] = client.read_project(project_name=project).id
        if project not in projects:
            projects[project] = client.create_project(
                project,
                reference_dataset_id=dataset.id,
                metadata={
                    "suite": record.get("suite"),
                    "preset": record["preset"],
                    "model": record["model"],
                    "model_label": model_label(record["model"]),
                    "command": plan.command,
                    **(record.get("provenance") or {}),
                },
            ).id
            counts["experiments"] += 1
        _send_episode(client, record, project, projects[project], examples[game_key(record)])
        counts["runs"] += 1
        done.add(record["key"])
        _write_published(plan.out, done)  # after each episode: a cut connection loses nothing already sent
    return counts


def _send_episode(client: Any, record: Mapping[str, Any], project: str, project_id: Any, example: uuid.UUID) -> None:
    run_id = uuid.uuid5(NAMESPACE, f"{project}|{record['key']}")
    provenance = record.get("provenance") or {}
    end = dt.datetime.now(dt.UTC)
    client.create_run(
        name=f"{record['preset']} on {record.get('label') or record['env']}",
        inputs={k: record.get(k) for k in ("env", "seed", "variation", "max_steps")},
        run_type="chain",
        id=run_id,
        project_name=project,
        reference_example_id=example,
        outputs={
            k: record.get(k)
            for k in ("won", "score", "max_score", "norm_score", "best_norm_score", "steps", "llm_calls", "run_id")
        },
        start_time=end - dt.timedelta(seconds=float(record.get("wall_seconds") or 0.0)),
        end_time=end,
        extra={"metadata": {"key": record["key"], "attempt": record.get("attempt"), **provenance}},
    )
    scores = {"success": 1.0 if record.get("won") else 0.0}
    numbers = {k: record.get(k) for k in FEEDBACK}
    scores |= {k: float(v) for k, v in numbers.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for key, score in scores.items():
        client.create_feedback(run_id, key=key, score=score, trace_id=run_id, session_id=project_id)


def _write_published(out: Path, done: set[str]) -> None:
    write_output(out / PUBLISHED_FILE, json.dumps({"episodes": sorted(done)}, indent=1) + "\n")
