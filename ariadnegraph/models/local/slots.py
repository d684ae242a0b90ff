"""Slot leases: never two requests in flight at once on one slot of a local server.

llama.cpp answers concurrent requests pinned to the same slot (``id_slot``) from a KV cache they both write: on the
1.5B's server, four concurrent requests "reply with the secret word" on one slot came back wrong 4 times in 24 ("Z",
"ZILLA" for ZEBRA), and never when each had a slot of its own or none was named. One server is shared by processes
(eval workers; a ``play`` beside another, or beside ``ariadne models serve``) and by threads (the LangGraph
server's runs), each pinning its roles to the same slot numbers. So every chat request to a local server first takes
a lease on its slot: an exclusive ``flock`` on a file per slot of that server, which excludes other processes and other
threads alike (each request opens its own file description), held until the whole reply is read and dropped by the
kernel if the process dies. A request whose slot is busy takes a free one (its role's cached prefix is lost there,
its answer is its own); with every slot busy it waits for the first to free. A request naming no slot is given one
by its first message (the same prompt's prefix goes to the same slot, as llama.cpp's own choice by similarity would
keep it), so the server never picks a slot a pinned request is about to wait for.

A request the server could not take or cut off because the server went away (killed, crashed) is sent again to the
server that replaces it (``reconnect``): a run outlives its server.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

CHAT_PATH = "/chat/completions"
WAIT_POLL = 0.05  # seconds between looks at the slots when all are busy


@contextlib.contextmanager
def lease(lock_dir: Path, slots: int, preferred: int | None) -> Iterator[int]:
    """Hold a slot of the server whose locks are in ``lock_dir``: ``preferred`` if free, else any free one; with every
    slot busy, whichever frees first (polled: a local request can take minutes)."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    first = preferred if preferred is not None and 0 <= preferred < slots else 0
    order = [first, *(k for k in range(slots) if k != first)]
    while True:
        for slot in order:
            handle = (lock_dir / f"slot-{slot}.lock").open("a")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            try:
                yield slot
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
                handle.close()
            return
        time.sleep(WAIT_POLL)


def prefix_slot(body: dict, slots: int) -> int:
    """The slot a request that names none prefers: one per first message, so its cached prefix is found again."""
    messages = body.get("messages") or [{}]
    return zlib.crc32(json.dumps(messages[0], sort_keys=True).encode()) % slots


# (the port of a server that refused or cut off a request, how many times this request met that) -> the port and
# lock folder of the server to send it to now, or None: send it nowhere else
Reconnect = Callable[[int, int], "tuple[int, Path] | None"]
# what a server that went away does to a request: refuses the connection, or closes it with no reply; a timeout is
# a slow reply, not a vanished server
VANISHED = (httpx.NetworkError, httpx.RemoteProtocolError)


class SlotLeasingTransport(httpx.BaseTransport):
    """An httpx transport that sends each chat request to a local server under a lease on its slot (the body's
    ``id_slot`` is the slot it prefers, rewritten to the one leased) and reads the whole reply before the lease ends.
    ``reconnect``: where to send a request the server refused or cut off (see :data:`Reconnect`; it raises once the
    request has met too many servers going away)."""

    def __init__(
        self,
        lock_dir: Path,
        slots: int,
        inner: httpx.BaseTransport | None = None,
        reconnect: Reconnect | None = None,
    ) -> None:
        self.lock_dir = lock_dir
        self.slots = slots
        self.inner = inner or httpx.HTTPTransport()
        self.reconnect = reconnect
        self.moved: tuple[int, Path] | None = None  # the server that replaced the one this client was made for

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST" or not request.url.path.endswith(CHAT_PATH):
            return self.inner.handle_request(request)
        body = json.loads(request.read() or b"{}")
        met = 0  # servers that went away under this request
        while True:
            url, lock_dir = request.url, self.lock_dir
            if self.moved is not None:
                url, lock_dir = url.copy_with(port=self.moved[0]), self.moved[1]
            try:
                return self._send(request, url, lock_dir, body)
            except VANISHED:
                met += 1
                moved = self.reconnect(url.port or 80, met) if self.reconnect is not None else None
                if moved is None:
                    raise
                self.moved = moved

    def _send(self, request: httpx.Request, url: httpx.URL, lock_dir: Path, body: dict) -> httpx.Response:
        with lease(lock_dir, self.slots, body.get("id_slot", prefix_slot(body, self.slots))) as slot:
            body = {**body, "id_slot": slot}
            content = json.dumps(body).encode()
            headers = httpx.Headers(request.headers)
            headers["content-length"] = str(len(content))
            headers["host"] = url.netloc.decode("ascii")
            pinned = httpx.Request(request.method, url, headers=headers, content=content, extensions=request.extensions)
            response = self.inner.handle_request(pinned)
            try:
                raw = b"".join(response.iter_raw())  # raw: the headers still describe its encoding
            finally:
                response.close()
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=httpx.ByteStream(raw),
            extensions=response.extensions,
            request=request,
        )

    def close(self) -> None:
        self.inner.close()
