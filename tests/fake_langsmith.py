"""A LangSmith API on loopback that keeps what the SDK sends (datasets, examples, projects, runs, feedback) and
answers as the service does, so a test asserts what an eval published without a network. Only the calls
evals/langsmith_export.py makes are served; any other is answered 404 and recorded in ``unknown``."""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

NOW = "2026-11-29T00:00:00+00:00"
TENANT = "00000000-0000-0000-0000-000000000001"


class FakeLangSmith:
    def __init__(self) -> None:
        self.datasets: list[dict[str, Any]] = []
        self.examples: list[dict[str, Any]] = []
        self.projects: list[dict[str, Any]] = []
        self.runs: list[dict[str, Any]] = []
        self.feedback: list[dict[str, Any]] = []
        self.unknown: list[str] = []
        self.lock = threading.Lock()
        store = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self, payload: Any, status: int = 200) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                url = urlparse(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                with store.lock:
                    if url.path.endswith("/info"):
                        return self._reply({})
                    if url.path.endswith("/datasets"):
                        found = [d for d in store.datasets if query.get("name", d["name"]) == d["name"]]
                        return self._reply(found)
                    if url.path.endswith("/examples"):
                        found = [e for e in store.examples if query.get("dataset", e["dataset_id"]) == e["dataset_id"]]
                        start = int(query.get("offset", 0))
                        return self._reply(found[start : start + int(query.get("limit", 100))])
                    if url.path.endswith("/sessions"):
                        return self._reply([p for p in store.projects if query.get("name", p["name"]) == p["name"]])
                    store.unknown.append(f"GET {self.path}")
                    return self._reply({"detail": "not found"}, 404)

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
                path = urlparse(self.path).path
                with store.lock:
                    if path.endswith("/datasets"):
                        dataset = {**body, "id": str(uuid.uuid4()), "created_at": NOW, "data_type": "kv"}
                        store.datasets.append(dataset)
                        return self._reply(dataset)
                    if path.endswith("/examples/bulk"):
                        store.examples += body
                        return self._reply([{"id": e["id"]} for e in body])
                    if path.endswith("/sessions"):
                        project = {**body, "id": str(uuid.uuid4()), "tenant_id": TENANT, "start_time": NOW}
                        store.projects.append(project)
                        return self._reply(project)
                    if path.endswith("/runs"):
                        store.runs.append(body)
                        return self._reply({})
                    if path.endswith("/feedback"):
                        item = {"created_at": NOW, "modified_at": NOW, "trace_id": body.get("run_id"), **body}
                        store.feedback.append(item)
                        return self._reply(item)
                    store.unknown.append(f"POST {self.path}")
                    return self._reply({"detail": "not found"}, 404)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
