"""The faults the fake OpenAI server (``testing.openai_server``) can be told to answer with: which kinds there are, one
fault (its kind, when it is due, what it carries) and the plan of faults a server works through, request by request."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

FAULT_KINDS = {
    "429": "HTTP 429 rate limit, with Retry-After / retry-after-ms headers (retry_after seconds)",
    "500": "HTTP 500 server error",
    "delay": "answer normally after sleeping `seconds` (exercises client timeouts)",
    "truncated": "HTTP 200 whose JSON body is cut in half",
    "ignore_schema": "a plain-text reply (`content`) with no tool calls, ignoring any tools or json_schema",
    "fenced": "the JSON content of a json_schema reply wrapped in prose and a ```json fence (as many local models do)",
    "empty_choices": "HTTP 200 with an empty choices list",
    "disconnect": "close the connection without answering",
}


@dataclass
class Fault:
    """One injected fault: after ``after`` chat requests, spoil the next ``times`` (``None``: all)."""

    kind: str
    after: int = 0
    times: int | None = 1
    retry_after: float = 1.0  # 429: seconds the client is told to wait
    seconds: float = 1.0  # delay: seconds before answering
    content: str | None = None  # ignore_schema: the reply text
    fired: int = 0

    def __post_init__(self) -> None:
        self.kind = str(self.kind)
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind '{self.kind}' (choose {', '.join(FAULT_KINDS)})")
        if self.after < 0 or (self.times is not None and self.times < 0):
            raise ValueError("fault 'after' and 'times' must not be negative")
        if self.retry_after < 0 or self.seconds < 0:
            raise ValueError("fault 'retry_after' and 'seconds' must not be negative")

    @classmethod
    def from_spec(cls, spec: Fault | Mapping[str, Any]) -> Fault:
        if isinstance(spec, Fault):
            return spec
        if not isinstance(spec, Mapping) or "kind" not in spec:
            raise ValueError(f"a fault spec is an object with a 'kind', got {spec!r}")
        known = {f.name for f in fields(cls)} - {"fired"}
        unknown = set(spec) - known
        if unknown:
            raise ValueError(f"unknown fault field(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(known))})")
        return cls(**dict(spec))

    def due(self, count: int) -> bool:
        return count > self.after and (self.times is None or self.fired < self.times)


class FaultPlan:
    """Faults consulted once per chat request (thread-safe). Subclass and override :meth:`next` for
    any other policy (e.g. by request content)."""

    def __init__(self, faults: Iterable[Fault | Mapping[str, Any]] = ()) -> None:
        self._lock = threading.Lock()
        self.faults: list[Fault] = []
        self.count = 0
        self.set(faults)

    def set(self, faults: Iterable[Fault | Mapping[str, Any]] | Mapping[str, Any]) -> None:
        """Replace the faults and restart the request count (``after`` counts from here)."""
        if isinstance(faults, Mapping):
            faults = faults.get("faults", [faults]) if "kind" not in faults else [faults]
        parsed = [Fault.from_spec(f) for f in faults]
        with self._lock:
            self.faults, self.count = parsed, 0

    def clear(self) -> None:
        self.set([])

    def next(self, request: Mapping[str, Any]) -> Fault | None:
        """Count one chat request; the fault that spoils it, if any (at most one per request)."""
        with self._lock:
            self.count += 1
            for fault in self.faults:
                if fault.due(self.count):
                    fault.fired += 1
                    return fault
        return None

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            return {"count": self.count, "faults": [asdict(f) for f in self.faults]}
