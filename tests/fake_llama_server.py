"""A stand-in for llama.cpp's server, started as ``ARIADNE_LLAMA_SERVER`` names it (through :func:`wrapper`): it takes
llama-server's flags, listens on ``--port`` of 127.0.0.1 and answers ``/health``, ``/tokenize`` and
``/v1/chat/completions`` at once, so the tests of how servers are shared, kept and started again run in seconds.

Chat replies come from the scripted model (the agent plays through it as through the wheel's server), or are one
fixed line with ``FAKE_LLAMA_FIXED=1`` (no LangChain import: the server is up in a fraction of a second). A chat
request that finds the file ``$FAKE_LLAMA_DIE`` removes it and kills the server before answering, as a crash would;
with ``FAKE_LLAMA_DIE_FOR_GOOD=1`` it garbles the weights first (``--model``), so no server can start on them again,
and with ``FAKE_LLAMA_DIE_ALWAYS=1`` every server dies on every chat request.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def wrapper(folder: Path) -> Path:
    """An executable that runs this server with this interpreter (what ``ARIADNE_LLAMA_SERVER`` names)."""
    path = folder / "fake-llama-server"
    path.write_text(f"#!/bin/sh\nexec {sys.executable} {Path(__file__).resolve()} \"$@\"\n")
    path.chmod(0o755)
    return path


def _fixed_reply(body: dict) -> dict:
    return {
        "id": "fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "look"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def main(argv: list[str]) -> None:
    port = int(argv[argv.index("--port") + 1])
    complete = None
    if not os.environ.get("FAKE_LLAMA_FIXED"):
        from ariadnegraph.testing.openai_server import ChatCompletionsServer

        scripted = ChatCompletionsServer(0)  # its model and OpenAI translation; its own socket is closed at once
        scripted.server_close()
        complete = scripted.complete

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _json(self, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self._json({"status": "ok"})

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if self.path.endswith("/tokenize"):
                self._json({"tokens": list(range(len(str(body.get("content", "")).split())))})
                return
            die = os.environ.get("FAKE_LLAMA_DIE")
            if os.environ.get("FAKE_LLAMA_DIE_ALWAYS"):
                os.kill(os.getpid(), signal.SIGKILL)
            if die and Path(die).exists():
                Path(die).unlink()
                if os.environ.get("FAKE_LLAMA_DIE_FOR_GOOD"):
                    with open(argv[argv.index("--model") + 1], "r+b") as weights:
                        weights.write(b"garbled")
                os.kill(os.getpid(), signal.SIGKILL)
            self._json(complete(body)[0] if complete is not None else _fixed_reply(body))

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"fake llama-server on port {port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
