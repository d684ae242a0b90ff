"""The scripted memory-QA answerer reads its context, never the benchmark: in a process where the question
generator, its templates and its timeline cannot be imported, it still answers — from a transcript, or
from the KG tools' text — and what it cannot see it cannot answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from langchain_core.messages import AIMessage

from ariadnegraph.evals.memqa.answerers import TranscriptAnswerer, agent_turns
from ariadnegraph.evals.memqa.episodes import load_episode
from ariadnegraph.evals.memqa.generate import generate
from ariadnegraph.evals.memqa.prompts import MEMORY_RULES
from ariadnegraph.evals.memqa.scorer import score
from tests.unit.test_memqa_ground_truth import write_run

BLOCKED = ("ariadnegraph.evals.memqa.templates", "ariadnegraph.evals.memqa.index", "ariadnegraph.evals.memqa.generate",
           "ariadnegraph.evals.memqa.answerers", "ariadnegraph.evals.memqa.evaluate")

CHILD = """
import importlib.abc, json, sys, types
BLOCKED = set(sys.argv[3].split(","))
TOUCHED = []

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in BLOCKED:
            TOUCHED.append(name)
            raise ImportError(f"the scripted answerer imported {name}")
        return None

class Poisoned(types.ModuleType):
    # stands in sys.modules for a blocked module, as if something had loaded it: any use of it is recorded
    def __getattr__(self, attribute):
        TOUCHED.append(f"{self.__name__}.{attribute}")
        raise AttributeError(f"the scripted answerer used {self.__name__}.{attribute}")

sys.meta_path.insert(0, Refuse())
for name in BLOCKED:
    sys.modules[name] = Poisoned(name)
from langchain_core.messages import HumanMessage, SystemMessage
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.graphs.qa import local_ask_graph
from ariadnegraph.models import load_chat_model

jobs = json.loads(open(sys.argv[1]).read())
model = load_chat_model("scripted")
out = []
for job in jobs:
    if job["kind"] == "memory":
        result = local_ask_graph.invoke({"run_id": "hand", "question": job["question"], "as_of": job["horizon"]},
                                  context=AgentContext(model="scripted", run_dir=sys.argv[2]))
        out.append(result.get("answer") or "")
    else:
        out.append(model.invoke([SystemMessage(content=job["system"]), HumanMessage(content=job["human"])]).content)
assert not TOUCHED, TOUCHED
assert all(isinstance(sys.modules[name], Poisoned) for name in BLOCKED)
print(json.dumps(out))
"""


def test_the_scripted_answerer_works_where_the_templates_cannot_be_imported(tmp_path: Path) -> None:
    write_run(tmp_path, "hand", memory=True)
    items = generate(load_episode(tmp_path, "hand"), per_type=6, seed=5)
    transcript = TranscriptAnswerer("full-history", agent_turns(tmp_path, "hand"), None, "scripted")
    jobs = []
    for item in items:
        system, human = transcript.prompt(item)
        jobs.append({"kind": "full-history", "system": system.content, "human": human.content})
        jobs.append({"kind": "memory", "question": f"{item.question}\n\n{MEMORY_RULES}", "horizon": item.horizon})
    (tmp_path / "jobs.json").write_text(json.dumps(jobs))
    child = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "jobs.json"), str(tmp_path), ",".join(BLOCKED)],
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr[-3000:]
    replies = json.loads(child.stdout.strip().splitlines()[-1])
    for offset, kind in enumerate(("full-history", "memory")):
        scores = [score(item.answer, replies[2 * n + offset].splitlines()[0], item.answer_type) for n, item in enumerate(items)]
        assert sum(scores) / len(scores) > 0.75, (kind, scores)


def test_the_memory_answerer_knows_only_what_the_kg_tools_return(tmp_path: Path) -> None:
    """The KG holds no score: a cumulative-reward question is 'not answerable' from memory but not from the transcript."""
    write_run(tmp_path, "hand", memory=True)
    items = [i for i in generate(load_episode(tmp_path, "hand"), per_type=40, seed=5) if i.template == "A_reward"]
    assert items
    from ariadnegraph.evals.memqa.answerers import extract_answer, make_answerer

    memory = make_answerer("memory", tmp_path, "hand", "scripted")
    history = make_answerer("full-history", tmp_path, "hand", "scripted")
    assert {extract_answer(memory(i)) for i in items} == {"not answerable"}
    assert all(score(i.answer, extract_answer(history(i)), i.answer_type) == 1 for i in items)


def test_no_scripted_module_names_the_ground_truth() -> None:
    """A plain reading of the double's sources: none of them imports the generator's modules."""
    scripted = Path(__file__).resolve().parents[2] / "ariadnegraph" / "testing" / "scripted"
    for source in scripted.glob("*.py"):
        text = source.read_text()
        for blocked in ("memqa.templates", "memqa.index", "memqa.generate", "memqa.answerers", "memqa.evaluate",
                        "memqa import templates", "memqa import index", "memqa import generate"):
            assert blocked not in text, f"{source.name} names {blocked}"


def test_valid_action_questions_are_answered_from_the_commands_the_transcript_lists(tmp_path: Path) -> None:
    """The transcript lists the commands the game offered when each command was typed, so A_valid_action is
    answerable from it; the KG does not keep them, so from memory it is not (a gap of the memory, measured)."""
    write_run(tmp_path, "hand", memory=True)
    items = [i for i in generate(load_episode(tmp_path, "hand"), per_type=40, seed=5) if i.template == "A_valid_action"]
    assert {i.answer for i in items} == {"yes", "no"}  # both kinds of question are asked
    from ariadnegraph.evals.memqa.answerers import extract_answer, make_answerer

    history = make_answerer("full-history", tmp_path, "hand", "scripted")
    memory = make_answerer("memory", tmp_path, "hand", "scripted")
    assert all(extract_answer(history(i)) == i.answer for i in items)
    assert {extract_answer(memory(i)) for i in items} == {"not answerable"}


def test_a_transcript_the_model_refuses_is_a_wrong_answer_not_the_end(tmp_path: Path, monkeypatch) -> None:
    """A full history longer than a local model's context is refused by the server (HTTP 400): that question
    scores 0, even a false-premise one, and the evaluation goes on."""
    import httpx
    import openai

    from ariadnegraph.evals.memqa import answerers

    def refuse(model, messages):
        response = httpx.Response(400, request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))
        raise openai.BadRequestError("the request exceeds the available context size", response=response, body=None)

    write_run(tmp_path, "hand", memory=True)
    items = generate(load_episode(tmp_path, "hand"), per_type=6, seed=5)
    monkeypatch.setattr(answerers, "invoke_model", refuse)
    history = answerers.make_answerer("full-history", tmp_path, "hand", "scripted")
    replies = [history(item) for item in items]
    assert all(reply.startswith(answerers.REFUSED) and "context size" in reply for reply in replies)
    assert not any(score(i.answer, answerers.extract_answer(r), i.answer_type) for i, r in zip(items, replies))
    assert any(i.answer == "not answerable" for i in items)  # false premises are among them, and score 0 too


def test_a_transcript_longer_than_a_local_models_context_is_refused_before_it_is_sent(tmp_path: Path, monkeypatch) -> None:
    """A local server shares one KV pool between its slots and would read a transcript longer than the model's
    context for many minutes: the answerer counts it with the server's tokenizer and refuses it (scored 0)."""
    from ariadnegraph.evals.memqa import answerers
    from ariadnegraph.models import local

    sent = []
    monkeypatch.setattr(answerers, "load_chat_model", lambda *a, **k: "model")
    monkeypatch.setattr(answerers, "invoke_model", lambda model, messages: sent.append(messages) or AIMessage(content="3"))
    write_run(tmp_path, "hand", memory=True)
    item = generate(load_episode(tmp_path, "hand"), per_type=2, seed=5)[0]
    history = answerers.make_answerer("full-history", tmp_path, "hand", "local:qwen2.5-coder-1.5b")
    context = local.get_model("qwen2.5-coder-1.5b").context
    monkeypatch.setattr(local, "local_token_count", lambda name, text: context)
    reply = history(item)
    assert reply.startswith(answerers.REFUSED)
    assert f"over the model's context of {context}" in reply
    assert not sent
    monkeypatch.setattr(local, "local_token_count", lambda name, text: context // 2)
    assert history(item) == "3"
    assert len(sent) == 1
