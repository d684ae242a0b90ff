"""The live view of an episode in the terminal (``ariadne play --verbose``, the default on a terminal): each
step's observation, the plan, the critic's verdicts and the command as the graph's nodes write them, read
from LangGraph's stream (``updates``, and ``tasks`` for a node's start). On a terminal a spinner names the
node at work and its elapsed time (a model call can take tens of seconds), with colour; anywhere else
(a pipe, a log file) plain lines, one per event, with no control codes.

One format owner: what a node's update says is worded once (:func:`events`); the two views only lay it out."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any, TextIO

from .agent.events import node_events
from .agent.records import How
from .runs import score_text

# kind of event -> rich style on a terminal
STYLES = {
    "observation": "",
    "belief": "dim",
    "notes": "dim",
    "plan": "cyan",
    "verdict": "green",
    "rejected": "bold red",
    "command": "bold yellow",
    "score": "magenta",
}
SHOWN_CHARS = 600  # of an observation; a live view is for following along, the trajectory keeps every word


def _short(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _verdict(event: dict[str, Any]) -> tuple[str, str]:
    proposed = event.get("proposed") or "(nothing)"
    approved = event.get("approved")
    words = [f"'{proposed}' " + ("approved" if approved else "rejected" if approved is False else "played unjudged")]
    if event.get("valid") is False:
        words.append("not a valid command here")
    if event.get("outcome_matches") is not None:
        went = "went as expected" if event["outcome_matches"] else "did not go as expected"
        words.append(f"'{event.get('last_action')}' {went}")
    rejected = approved is False or event.get("outcome_matches") is False
    if rejected and event.get("feedback"):
        words.append(_short(event["feedback"], 160))
    return ("rejected" if rejected else "verdict"), "; ".join(words)


def events(node: str, values: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """What a node's update shows, as (kind, text), worded from its structured events (agent/events.py, which a
    LangGraph client streams as they are); nothing for nodes with nothing to show."""
    for event in node_events(node, {}, values):
        kind = event["event"]
        if kind == "step":
            yield "observation", _short(event["observation"], SHOWN_CHARS)
            score = score_text(event.get("score") or 0, event.get("max_score") or 0)
            over = "won" if event.get("won") else "lost" if event.get("lost") else "over" if event.get("done") else ""
            yield "score", f"{score}{f', {over}' if over else ''}"
        elif kind == "belief":
            yield "belief", _short(event["belief"], 240)
        elif kind == "notes":
            yield "notes", _short(" | ".join(event["notes"]), 240)
        elif kind == "plan":
            yield "plan", _short(f"{event['subgoal']} -> {', '.join(event['steps']) or '(no steps)'}", 240)
        elif kind == "verdict":
            yield _verdict(event)
        elif kind == "command":
            note = f" ({event['how']})" if event.get("how") not in (None, How.GROUNDED, How.AS_WRITTEN) else ""
            yield "command", f"{event['command']}{note}"


class _Step:
    """The step a line belongs to: an observation is the step just played; a decision, the next one's."""

    def __init__(self) -> None:
        self.played: int | None = None

    def upcoming(self) -> int:
        return 0 if self.played is None else self.played + 1

    def of(self, node: str, values: dict[str, Any]) -> int:
        if node == "environment" and isinstance(values.get("step"), int):
            self.played = values["step"]
            return self.played
        return self.upcoming()


class PlainView:
    """One line per event, for a pipe or a log: ``step 3  command: open door``."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.step = _Step()

    def __enter__(self) -> "PlainView":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def node_started(self, node: str) -> None:
        return None  # a log has no use for a spinner

    def node_updated(self, node: str, values: dict[str, Any]) -> None:
        step = self.step.of(node, values)
        for kind, text in events(node, values):
            print(f"step {step:>3}  {kind}: {text}", file=self.out, flush=True)


class _Working:
    """The spinner line: the node at work and how long it has been working, re-drawn by rich's refresh thread."""

    def __init__(self) -> None:
        from rich.spinner import Spinner

        self.spinner = Spinner("dots", style="cyan")
        self.node: str | None = None
        self.step = 0
        self.since = time.monotonic()

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.text import Text

        if self.node is not None:
            self.spinner.update(
                text=Text(f" step {self.step} · {self.node} · {time.monotonic() - self.since:.1f} s", style="dim")
            )
            yield self.spinner


class TerminalView:
    """The live view on a terminal: coloured lines above a spinner that names the running node."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console
        from rich.live import Live

        self.console = console or Console(highlight=False)
        self.working = _Working()
        self.live = Live(self.working, console=self.console, transient=True, refresh_per_second=8)
        self.step = _Step()

    def __enter__(self) -> "TerminalView":
        self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.working.node = None
        self.live.stop()

    def node_started(self, node: str) -> None:
        self.working.node, self.working.since = node, time.monotonic()
        self.working.step = self.step.upcoming()

    def node_updated(self, node: str, values: dict[str, Any]) -> None:
        from rich.text import Text

        step = self.step.of(node, values)
        self.working.node = None
        for kind, text in events(node, values):
            line = Text()
            line.append(f"step {step:>3}  ", style="dim")
            line.append(f"{kind}: ", style="bold")
            line.append(text, style=STYLES.get(kind, ""))
            self.console.print(line)
        if node == "environment":
            self.console.rule(style="dim")


def live_view(verbose: bool | None, stream: TextIO | None = None) -> PlainView | TerminalView | None:
    """The view ``--verbose`` asks for: None (the one-line-per-step progress) unless asked, or by default on a
    terminal; plain lines when the output is not a terminal."""
    stream = stream or sys.stdout
    terminal = stream.isatty()
    if verbose is False or (verbose is None and not terminal):
        return None
    return TerminalView() if terminal else PlainView(stream)
