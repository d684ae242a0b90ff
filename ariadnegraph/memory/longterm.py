"""Memory that outlives a run: LangGraph's Store (SQLite), one namespace per agent and environment family.

A namespace holds what an agent learned in a family of worlds (``cooking``, ``scienceworld.boil``, ...; the
family of an env spec is :func:`ariadnegraph.envs.registry.env_family`):

* ``("ariadne", agent, family, "facts")``: triplets it knew at the end of its earlier runs (``memory save``),
  keyed by the triplet, with their sources; a later run starts knowing them;
* ``("ariadne", agent, family, "transitions")``: the dated transitions of gold trajectories of training
  variations (DAVIS's protocol, ``memory seed-gold``): every fact each gold run learned, with the run and
  the step; history the world model questions (memory/transitions.py), never a later run's current state;
* ``("ariadne", agent, family, "lessons")``: reflections written after failed trials (Reflexion).

A row this code did not write (a value that is not an object, a triplet that is not three texts) is never read
as something else: the readers skip it and name it (``LongTermMemory.skipped``: its namespace and key), so
one bad row costs that row, not the Store; a writer (``memory save``) and a run about to be seeded from the
namespace (``play --memory-from``) refuse it first (:meth:`LongTermMemory.check`).

The Store's file is ``config.memory_store_path`` (``--store``, ``$ARIADNE_STORE``). A run started with
``--memory-from AGENT`` has its memory seeded with its namespace's facts before the
first step (:meth:`WorldMemory.seed`), its world model shown the namespace's transitions, and its planner
shown the latest lessons. Namespaces never see each
other: another agent, or the same agent in another family, starts empty.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from langgraph.store.base import BaseStore
from langgraph.store.sqlite import SqliteStore

from ..runs import check_output
from .facts import Triplet
from .transitions import DatedFact

ROOT = "ariadne"
LESSONS_SHOWN = 3  # Reflexion keeps the last few reflections
_PAGE = 500
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def check_name(value: str, what: str = "agent") -> str:
    if not _NAME.match(value or ""):
        raise ValueError(f"memory namespace {what} '{value}' must be 1-64 letters, digits, '_', '.' or '-'")
    return value


@dataclass(frozen=True)
class Namespace:
    """One agent's memory of one family of worlds."""

    agent: str
    family: str

    def __post_init__(self) -> None:
        check_name(self.agent, "agent")
        check_name(self.family, "family")

    @property
    def _label(self) -> str:
        # LangGraph's Store refuses a namespace label with a period, and ScienceWorld's families are
        # "scienceworld.TASK": the Store's label spells the period as a colon (no name holds a colon).
        return self.family.replace(".", ":")

    @property
    def facts(self) -> tuple[str, ...]:
        return (ROOT, self.agent, self._label, "facts")

    @property
    def lessons(self) -> tuple[str, ...]:
        return (ROOT, self.agent, self._label, "lessons")

    @property
    def transitions(self) -> tuple[str, ...]:
        return (ROOT, self.agent, self._label, "transitions")

    def __str__(self) -> str:
        return f"{self.agent}/{self.family}"


class StoreDamaged(ValueError):
    """A Store row that is not what this code writes, refused by a writer or a run's check (readers skip it)."""


@contextmanager
def _read_only(path: Path) -> Iterator[SqliteStore]:
    """The Store at ``path`` opened read-only (SQLite's ``mode=ro``: no file, journal or table is made);
    StoreMissing without one, StoreDamaged when it is not a Store this code can read."""
    if not path.is_file():
        raise StoreMissing(
            f"no memory store at {path}: `ariadne memory save` or `memory seed-gold` creates one (see --store)"
        )
    connection = sqlite3.connect(
        f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False, isolation_level=None
    )
    try:
        store = SqliteStore(connection)
        try:
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            ours = {"store", "store_migrations"} <= tables
            version = connection.execute("SELECT max(v) FROM store_migrations").fetchone()[0] if ours else None
        except sqlite3.DatabaseError as exc:
            raise StoreDamaged(f"{path} is not a memory store ({' '.join(str(exc).split())})") from None
        if version is None:
            raise StoreDamaged(f"{path} is not a memory store (it has no LangGraph Store tables)")
        if version != len(SqliteStore.MIGRATIONS) - 1:  # a reader never migrates; the next writer does
            raise StoreDamaged(
                f"memory store {path} has LangGraph Store schema {version}, this version reads "
                f"{len(SqliteStore.MIGRATIONS) - 1} (`ariadne memory save` or `seed-gold` brings an older one "
                "up to date)"
            )
        store.is_setup = True  # its tables are there, at this version: reading runs no migration
        yield store
    finally:
        connection.close()


def _fact_key(triplet: Triplet) -> str:
    return "|".join(" ".join(part.lower().split()) for part in triplet)


class StoreMissing(FileNotFoundError):
    """A Store read (``memory show``, ``--memory-from``) where there is none: nothing is created."""


class LongTermMemory:
    """The Store behind every namespace (open it as a context manager): the SQLite file at a path, or a
    Store that is already open (a graph's ``runtime.store``, which its owner closes).

    ``write``: the file is created if missing (never in a run's folder: runs.check_output); a reader
    (False) opens it read-only, and a missing file is :class:`StoreMissing`, a file that is no Store
    :class:`StoreDamaged`: reading never creates or changes a byte."""

    def __init__(self, source: str | Path | BaseStore, *, write: bool = True) -> None:
        self._stack = ExitStack()
        self.skipped: list[str] = []  # the damaged rows the readers passed over, one line each (namespace and key)
        if isinstance(source, BaseStore):
            self.store: BaseStore = source
            self.where = "the memory store"
            return
        path = Path(source)
        self.where = str(path)
        check_output(path, "the memory store")  # a Store is never in a run's folder, read or written
        if not write:
            self.store = self._stack.enter_context(_read_only(path))
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        store = self._stack.enter_context(SqliteStore.from_conn_string(str(path)))
        store.setup()
        self.store = store

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> "LongTermMemory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _all(self, namespace: tuple[str, ...]) -> Iterator[Any]:
        """The namespace's items that hold an object (one that does not is skipped and named)."""
        offset = 0
        while True:
            page = self.store.search(namespace, limit=_PAGE, offset=offset)
            for item in page:
                if tuple(item.namespace) == namespace:
                    if isinstance(item.value, dict):
                        yield item
                    else:
                        self._skip(item, f"holds {json.dumps(item.value)[:40]}, not an object")
            if len(page) < _PAGE:
                return
            offset += _PAGE

    def _row(self, item: Any, problem: str) -> str:
        return f"{self.where}: row {'/'.join(item.namespace[1:])} '{str(item.key)[:60]}' is damaged ({problem})"

    def _skip(self, item: Any, problem: str) -> None:
        if (line := self._row(item, problem)) not in self.skipped:
            self.skipped.append(line)

    def _damaged(self, item: Any, problem: str) -> NoReturn:
        raise StoreDamaged(f"{self._row(item, problem)}; delete it or the namespace")

    def check(self, ns: Namespace) -> None:
        """Read every row of the namespace as a run would: a damaged one is refused (StoreDamaged, naming it)
        before anything is written."""
        skipped = len(self.skipped)
        self.facts(ns)
        self.lessons(ns, limit=0)
        self.transitions(ns)
        if len(self.skipped) > skipped:
            raise StoreDamaged(f"{self.skipped[skipped]}; delete it or the namespace")

    def add_facts(self, ns: Namespace, triplets: Iterable[Triplet], source: str) -> int:
        """Remember ``triplets`` (from ``source``: a run id, ``gold:ENV:vN``); returns how many were new."""
        added = 0
        for triplet in dict.fromkeys((t[0], t[1], t[2]) for t in triplets):
            key = _fact_key(triplet)
            found = self.store.get(ns.facts, key)
            if found is not None and not isinstance(found.value, dict):
                self._damaged(found, f"holds {json.dumps(found.value)[:40]}, not an object")
            sources = list((found.value.get("sources") if found else None) or [])
            added += found is None
            self.store.put(ns.facts, key, {"triplet": list(triplet), "sources": [*sources, source][-20:]}, index=False)
        return added

    def facts(self, ns: Namespace) -> list[Triplet]:
        """Every triplet of the namespace, oldest first."""
        items = sorted(self._all(ns.facts), key=lambda item: item.created_at)
        found: list[Triplet] = []
        for item in items:
            triplet = item.value.get("triplet")
            if isinstance(triplet, list) and len(triplet) == 3 and all(isinstance(part, str) for part in triplet):
                found.append((triplet[0], triplet[1], triplet[2]))
            else:
                self._skip(item, f"its triplet is {json.dumps(triplet)[:60]}, not three texts")
        return found

    def add_transitions(self, ns: Namespace, transitions: Iterable[DatedFact], source: str) -> int:
        """Keep the dated transitions of run ``source`` (a gold run), replacing what an earlier reading of
        the same source kept; returns how many were kept."""
        for item in list(self._all(ns.transitions)):
            if item.value.get("source") == source:
                self.store.delete(ns.transitions, item.key)
        kept = 0
        for n, transition in enumerate(t for t in transitions if t.source == source):
            self.store.put(ns.transitions, f"{source}|{transition.step:06d}|{n:05d}", transition.to_dict(), index=False)
            kept += 1
        return kept

    def transitions(self, ns: Namespace) -> list[DatedFact]:
        """Every dated transition of the namespace: by source in the order they were read, then by step."""
        items = sorted(self._all(ns.transitions), key=lambda item: (item.created_at, item.key))
        found = []
        for item in items:
            try:
                found.append(DatedFact.from_dict(item.value))
            except (KeyError, TypeError, ValueError) as exc:
                self._skip(item, f"not a dated transition: {type(exc).__name__} {exc}"[:120])
        return found

    def add_lessons(self, ns: Namespace, lessons: Iterable[str], source: str) -> None:
        known = {str(item.value.get("text")) for item in self._all(ns.lessons)}
        for n, lesson in enumerate(lessons):
            if lesson.strip() and lesson.strip() not in known:
                self.store.put(
                    ns.lessons, f"{time.time_ns()}-{n}", {"text": lesson.strip(), "source": source}, index=False
                )

    def lessons(self, ns: Namespace, limit: int = LESSONS_SHOWN) -> list[str]:
        """The newest ``limit`` lessons, oldest first."""
        items = []
        for item in sorted(self._all(ns.lessons), key=lambda item: item.key):
            if isinstance(item.value.get("text"), str):
                items.append(item)
            else:
                self._skip(item, "its lesson has no text")
        return [str(item.value["text"]) for item in items[-limit:]] if limit else []

    def namespaces(self) -> list[Namespace]:
        found = {(n[1], n[2]) for n in self.store.list_namespaces(prefix=(ROOT,)) if len(n) == 4}
        return [Namespace(agent, family) for agent, family in sorted(found)]
