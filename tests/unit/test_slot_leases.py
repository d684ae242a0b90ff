"""Slot leases (models/local/slots.py): a local server never has two requests in flight on one slot, whether they
come from threads of one process or from two processes; a busy slot's request takes a free one, else waits."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from ariadnegraph.models.local.slots import SlotLeasingTransport

HOLD = 0.2  # seconds the fake server keeps a request on its slot once the others it expects are in flight
GATHER = 5.0  # the longest it waits for them (a loaded machine starts threads late)


class SlotWatcher:
    """What the fake llama.cpp server saw: the slot of each request, and any slot asked for while busy."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        self.expect = 1  # requests to gather in flight before any is answered (set by a test)
        self.in_flight = 0
        self.busy: set[int] = set()
        self.slots: list[int | None] = []
        self.overlaps: list[int] = []


def _fake_server(watcher: SlotWatcher) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            slot = body.get("id_slot")
            with watcher.arrived:
                watcher.slots.append(slot)
                if slot in watcher.busy:
                    watcher.overlaps.append(slot)
                watcher.busy.add(slot)
                watcher.in_flight += 1
                watcher.arrived.notify_all()
                watcher.arrived.wait_for(lambda: watcher.in_flight >= watcher.expect, timeout=GATHER)
            time.sleep(HOLD)
            with watcher.arrived:
                watcher.busy.discard(slot)
                watcher.in_flight -= 1
            reply = {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "fake",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": f"slot {slot}"}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def fake():
    watcher = SlotWatcher()
    server = _fake_server(watcher)
    yield watcher, f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions"
    server.shutdown()


def _concurrently(call, count: int) -> list[str]:
    """``call(i)`` for i in 0..count-1, each in its own thread, all at once; their results in order."""
    results: list[str] = [""] * count

    def run(i: int) -> None:
        results[i] = call(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _post_all(client: httpx.Client, url: str, bodies: list[dict]) -> list[str]:
    return _concurrently(
        lambda i: client.post(url, json=bodies[i]).json()["choices"][0]["message"]["content"], len(bodies)
    )


def test_the_fake_server_sees_requests_that_share_a_slot_without_leases(fake):
    watcher, url = fake
    watcher.expect = 3  # all three in flight at once
    _post_all(httpx.Client(), url, [{"id_slot": 1}] * 3)
    assert watcher.overlaps  # the detector the tests below rely on


def test_threads_pinned_to_one_slot_never_share_it_and_a_busy_slot_sends_to_a_free_one(fake, tmp_path):
    watcher, url = fake
    watcher.expect = 2  # two slots: two in flight at once, the others wait
    client = httpx.Client(transport=SlotLeasingTransport(tmp_path / "locks", slots=2))
    replies = _post_all(client, url, [{"id_slot": 1, "n": i} for i in range(4)])
    assert watcher.overlaps == []
    assert set(watcher.slots) == {0, 1}  # slot 1, and slot 0 while 1 was busy; the rest waited for a slot
    assert sorted(replies) == sorted(f"slot {slot}" for slot in watcher.slots)


def test_a_request_naming_no_slot_is_given_one_by_its_first_message(fake, tmp_path):
    """The same first message goes to the same slot (its cached prefix is found again), others spread."""
    watcher, url = fake
    client = httpx.Client(transport=SlotLeasingTransport(tmp_path / "locks", slots=8))
    prompts = [f"you are thought node {i}" for i in range(6)]
    for text in prompts * 2:
        client.post(url, json={"messages": [{"role": "system", "content": text}, {"role": "user", "content": "go"}]})
    assert None not in watcher.slots
    assert watcher.slots[:6] == watcher.slots[6:]
    assert len(set(watcher.slots)) > 1


_CLIENT_PROCESS = """
import sys, threading, httpx
from pathlib import Path
from ariadnegraph.models.local.slots import SlotLeasingTransport
client = httpx.Client(transport=SlotLeasingTransport(Path(sys.argv[2]), slots=1))
threads = [threading.Thread(target=client.post, args=(sys.argv[1],), kwargs={"json": {"id_slot": 0}}) for _ in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
"""


def test_two_processes_sharing_a_server_wait_for_each_others_slot(fake, tmp_path):
    watcher, url = fake
    locks = tmp_path / "locks"
    processes = [
        subprocess.Popen([sys.executable, "-c", _CLIENT_PROCESS, url, str(locks)], cwd=Path(__file__).parents[2])
        for _ in range(2)
    ]
    assert [p.wait(timeout=60) for p in processes] == [0, 0]
    assert watcher.slots == [0, 0, 0, 0]
    assert watcher.overlaps == []


def test_a_local_chat_model_leases_its_slot(fake, tmp_path, monkeypatch):
    """The chat model ``local:NAME`` builds sends through the leases, its role's slot preferred."""
    from ariadnegraph.models import chat, local

    watcher, url = fake
    monkeypatch.setattr(local, "local_base_url", lambda name: url.removesuffix("/chat/completions"))
    monkeypatch.setattr(local, "local_slot_locks", lambda name: str(tmp_path / "locks"))
    watcher.expect = 3  # eight slots: all three in flight at once, on three slots
    chat._load.cache_clear()
    try:
        model = chat.load_chat_model("local:qwen2.5-coder-1.5b", slot=5)
        replies = _post_all_invoke(model, 3)
    finally:
        chat._load.cache_clear()
    assert watcher.overlaps == []
    assert 5 in watcher.slots
    assert len(set(watcher.slots)) == 3
    assert sorted(replies)[-1] == "slot 5"


def _post_all_invoke(model, count: int) -> list[str]:
    return _concurrently(lambda i: str(model.invoke(f"question {i}").content), count)



def test_each_part_of_a_node_without_a_slot_keeps_a_slot_of_its_own(monkeypatch):
    """AgentKit's thought graph is one node asking many prompts: each thought is pinned to its own slot, so its
    prefix is cached from one step to the next; a node with a slot keeps it."""
    from ariadnegraph.agent.context import AgentContext
    from ariadnegraph.models.local.server import SLOTS
    from ariadnegraph.nodes import common

    pinned: list = []
    monkeypatch.setattr(common, "_load", lambda context, role, *, slot, max_tokens: pinned.append(slot))
    context = AgentContext(model="scripted")
    parts = ["gate", "subgoals", "unknowns", "actor", "reflection", "plan_sketch"]
    for part in parts * 2:
        common.chat_model(context, "thoughts", part=part)
    assert pinned[:6] == pinned[6:]
    assert all(0 <= s < SLOTS for s in pinned)
    assert len(set(pinned)) > 1
    common.chat_model(context, "planner", part="anything")
    assert pinned[-1] == common.MODEL_NODES["planner"].slot
