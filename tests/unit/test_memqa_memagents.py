"""EMemBench's memory agents (Mem0, LangMem), the real libraries: each is given a recorded run's turns, retrieves the
top_k memories for a question, and the answering model answers from those (the scripted double writes each turn down
word for word and reads the memories it is shown); building a memory is counted apart from answering; nothing they
do leaves loopback; a missing library is one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from ariadnegraph.cli import main
from ariadnegraph.config import MEMQA_MEMORY_AGENTS
from ariadnegraph.evals.memqa import evaluate as pipeline
from ariadnegraph.evals.memqa.answerers import agent_turns, check_answerers, extract_answer, make_answerer
from ariadnegraph.evals.memqa.memagents import AGENTS, INSTALL, TOP_K
from ariadnegraph.evals.memqa.prompts import render_memories, render_transcript
from ariadnegraph.evals.memqa.report import cost_table, costs
from ariadnegraph.evals.memqa.scorer import score
from ariadnegraph.prompting import RETRIEVED, parse_sections
from ariadnegraph.testing.openai_server import serve
from tests.unit.test_memqa_ground_truth import STEPS, write_run

# found, not imported: mem0 reads its telemetry switch when first imported, which memagents does (with it off)
pytestmark = pytest.mark.skipif(
    find_spec("langmem") is None or find_spec("mem0") is None, reason=f"the memory agents' libraries: {INSTALL}"
)


@pytest.fixture
def hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ARIADNE_CACHE_DIR", str(tmp_path / "cache"))  # Mem0's id file, if mem0 is first imported here
    write_run(tmp_path, "hand", memory=True)  # a run the pipeline checks: with the agent's own memory
    return tmp_path


def test_the_agents_are_the_ones_config_names() -> None:
    assert set(AGENTS) == set(MEMQA_MEMORY_AGENTS) == {"mem0", "langmem"}


@pytest.mark.parametrize("kind", MEMQA_MEMORY_AGENTS)
def test_each_agent_answers_from_the_top_k_memories_it_retrieved_of_the_runs_turns(hand: Path, kind: str) -> None:
    items = pipeline.questions(hand, "hand", per_type=2, seed=3)
    answer = make_answerer(kind, hand, "hand", "scripted")
    turns = {render_transcript([t]) for t in agent_turns(hand, "hand")}
    asked = next(i for i in items if i.template == "A_action")  # "At step 14, what action did you execute?"
    retrieved = answer.retrieved(asked)
    assert len(STEPS) > TOP_K
    assert len(retrieved) == TOP_K
    assert set(retrieved) <= turns  # memories of the run's turns (the double keeps each word for word)
    prompt = answer.prompt(asked)
    assert parse_sections(prompt[-1].content)[RETRIEVED] == render_memories(retrieved)
    # one model call per turn to build the memory, counted apart from answering
    assert answer.ingest_usage[asked.horizon].calls == len(STEPS)
    assert answer.ingest_usage[asked.horizon].prompt_tokens > 0
    reply = answer(asked)
    # the turn the question asks of is among the memories retrieved for it, and the answer read from it is right
    assert any(m.startswith(f"[step {asked.evidence[0]}] >") for m in retrieved), retrieved
    assert score(asked.answer, extract_answer(reply), asked.answer_type) == 1


def test_an_agent_builds_its_memory_of_the_turns_up_to_the_horizon_only(hand: Path) -> None:
    items = pipeline.questions(hand, "hand", horizon=5, per_type=1, seed=1)
    answer = make_answerer("langmem", hand, "hand", "scripted")
    memory = answer.memory(items[0].horizon)
    kept = memory.retrieve("step", 50)
    assert sorted(int(m.split("]")[0].removeprefix("[step ")) for m in kept) == [0, 1, 2, 3, 4, 5]


def test_rows_and_the_cost_table_say_what_building_and_answering_cost(hand: Path) -> None:
    rows = pipeline.evaluate(hand, ["hand"], answerers=("full-history", "mem0"), per_type=1, seed=1)
    spent = costs(rows)
    assert spent["full-history"]["ingest"]["calls"] == 0
    assert spent["full-history"]["answer"]["calls"] == sum(1 for r in rows if r["answerer"] == "full-history") > 0
    assert spent["mem0"]["ingest"]["calls"] == len(STEPS)  # built once for the run, however many questions
    assert spent["mem0"]["answer"]["calls"] == sum(1 for r in rows if r["answerer"] == "mem0")
    assert all(r["ingest_usage"]["calls"] == len(STEPS) for r in rows if r["answerer"] == "mem0")
    table = cost_table(spent)
    assert "mem0" in table
    assert f"{len(STEPS):>14}" in table


def test_a_missing_library_is_one_line_before_anything_runs(
    hand: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "mem0", None)  # as if mem0ai were not installed
    with pytest.raises(ValueError, match="answerer 'mem0' needs"):
        check_answerers(["full-history", "mem0"])
    check_answerers(["langmem"])
    out = hand / "items.jsonl"
    args = ["memqa", "hand", "--run-dir", str(hand), "--answerer", "full-history", "--answerer", "mem0"]
    assert main([*args, "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"ariadne: error: answerer 'mem0' needs: {INSTALL}\n"
    assert INSTALL == 'pip install -e ".[memagents]"'
    assert not out.exists()


CHILD = """
import json, platform, socket, subprocess, sys
platform.uname().processor  # cached before the guard: the OpenAI client's headers ask it (a local `uname -p`)
TRIED = []
LOOPBACK = ("127.0.0.1", "::1", "localhost")

def _host(address):
    return address[0] if isinstance(address, tuple) else str(address)

connect = socket.socket.connect
def guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and _host(address) not in LOOPBACK:
        TRIED.append(f"connect {address}")
        raise OSError("no network in this test")
    return connect(self, address)
socket.socket.connect = guarded_connect
socket.socket.connect_ex = lambda self, address: guarded_connect(self, address) or 0
getaddrinfo = socket.getaddrinfo
def guarded_getaddrinfo(host, *args, **kwargs):
    if host not in LOOPBACK and host is not None:
        TRIED.append(f"resolve {host}")
        raise socket.gaierror("no network in this test")
    return getaddrinfo(host, *args, **kwargs)
socket.getaddrinfo = guarded_getaddrinfo
class NoChild:
    def __init__(self, *args, **kwargs):
        TRIED.append(f"subprocess {args[:1]}")
        raise OSError("no child process in this test")
subprocess.Popen = NoChild

from ariadnegraph.evals.memqa.evaluate import evaluate
rows = evaluate(sys.argv[1], ["hand"], answerers=("mem0", "langmem"), per_type=1, seed=1, model="openai:scripted",
                base_url=sys.argv[2], paraphrase_with="off")
built = sorted({(r["answerer"], r["ingest_usage"]["calls"]) for r in rows})
print(json.dumps({"tried": TRIED, "rows": len(rows), "built": built}))
"""


def test_nothing_they_do_leaves_loopback(hand: Path) -> None:
    """A fresh process (mem0 and langmem imported there) whose sockets reach loopback only and which may start no
    child process: both agents build their memories and answer through the OpenAI-compatible test server."""
    server, url = serve()
    try:
        env = {**os.environ, "ARIADNE_CACHE_DIR": str(hand / "cache"), "PYTHONPATH": str(Path(__file__).parents[2])}
        env.pop("MEM0_DIR", None)
        env.pop("MEM0_TELEMETRY", None)  # memagents turns it off itself
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(hand), url], capture_output=True, text=True, env=env, timeout=600
        )
        requests = len(server.requests)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["tried"] == []
    assert found["built"] == [["langmem", len(STEPS)], ["mem0", len(STEPS)]]
    assert requests >= 2 * len(STEPS) + found["rows"]  # every model call went to the loopback server
    assert (hand / "cache" / "mem0" / "config.json").is_file()  # Mem0's own file went under our cache
