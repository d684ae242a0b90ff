"""Snapshots of a memory beside its event log, so a large memory reopens without replaying every event.

``snapshot/`` holds the state after the first ``events`` events of the log: every fact (open and closed)
with the display names and aliases, the episodes, and the vectors (of every fact, entity and episode)
as float32 ``.npy`` matrices, memory-mapped on open (the open facts' rows first, in the fact index's
order, so the index is a slice of the map). ``manifest.json`` names the log position
(``events`` and the log's chain value there, ``head``), the embeddings, and the XXH3-128 digest of every
file (a check against damage, not against an attacker: the log's own chain is sha256; XXH3 reads the
~200 MB of a 100k-fact snapshot about ten times faster than sha256, ~15 ms instead of ~130 ms).

A snapshot is used only when it is whole and belongs to this log: every file's hash matches the
manifest, and the log's stored chain value after event ``events`` is the manifest's ``head``. That
anchor ties the snapshot to this log's history, but it is read, not recomputed: an event payload edited
under an intact chain column passes it. Recomputing the chain over the covered events
(``EventLog.check_chain``) costs ~0.3 s at 100k facts, so it is done where a run is checked before it is
continued or read (``WorldMemory(check_log=True)``: agent/integrity.py's ``check_run``, the readers),
not on every open. The events after the snapshot are replayed (and their chain checked) as usual.
Anything else (missing, older format, other embeddings, a file that does not hash right, a log that
disagrees) and the memory is rebuilt from the log, which stays the source of truth; the next snapshot
replaces the bad one. A snapshot is written whole into a temporary folder and swapped in by renames, so
a crash leaves the old one or the new one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import xxhash

from .episodic import Episode
from .facts import Fact

SNAPSHOT_DIR = "snapshot"
MANIFEST = "manifest.json"
STATE = "state.json"
EPISODES = "episodes.json"
VECTOR_FILES = {"facts": "fact_vectors.npy", "entities": "entity_vectors.npy", "episodes": "episode_vectors.npy"}
FORMAT = 2  # 2: files digested with XXH3-128
# 1: digested with sha256 (same files otherwise), read as it is until a writer saves a new one
READABLE_FORMATS = (
    1,
    2,
)
_FACT_FIELDS = (
    "id",
    "subject",
    "relation",
    "object",
    "subject_key",
    "object_key",
    "valid_from",
    "valid_to",
    "recorded_at",
    "source",
)


@dataclass
class Snapshot:
    """A verified snapshot, ready to restore."""

    events: int
    head: str
    facts: list[Fact]
    names: dict[str, str]
    aliases: dict[str, str]
    next_id: int
    last_step: int
    episodes: Callable[[], list[Episode]]  # built on first use (see EpisodeStore)
    vector_ids: dict[str, list[Any]]  # per kind: fact ids / entity keys / episode steps, one per row
    vectors: dict[str, np.ndarray]  # per kind: the rows (memory-mapped, read-only)


def _digest(path: Path, format: int = FORMAT) -> str:
    digest: Any = xxhash.xxh3_128() if format == FORMAT else hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_snapshot(
    directory: Path,
    *,
    events: int,
    head: str,
    embeddings: str,
    facts: list[Fact],
    names: dict[str, str],
    aliases: dict[str, str],
    next_id: int,
    last_step: int,
    episodes: list[Episode],
    vector_ids: dict[str, list[Any]],
    vectors: dict[str, np.ndarray],
) -> None:
    """Write a snapshot of the state after ``events`` events (chain value ``head``) next to the log."""
    final = directory / SNAPSHOT_DIR
    staging = directory / (SNAPSHOT_DIR + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    state = {
        "facts": [[getattr(f, name) for name in _FACT_FIELDS] for f in facts],
        "names": names,
        "aliases": aliases,
        "next_id": next_id,
        "last_step": last_step,
        "vector_ids": vector_ids,
    }
    (staging / STATE).write_bytes(orjson.dumps(state))
    rows = [[e.step, e.text, e.action, sorted(e.fact_ids), e.score] for e in episodes]
    (staging / EPISODES).write_bytes(orjson.dumps(rows))
    for kind, name in VECTOR_FILES.items():
        np.save(staging / name, np.ascontiguousarray(vectors[kind], dtype=np.float32))
    files = {name: _digest(staging / name) for name in (STATE, EPISODES, *VECTOR_FILES.values())}
    manifest = {"format": FORMAT, "events": events, "head": head, "embeddings": embeddings, "files": files}
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=1))
    for path in staging.iterdir():  # on disk before the swap: a crash then leaves a whole snapshot
        with path.open("rb") as handle:
            os.fsync(handle.fileno())
    old = directory / (SNAPSHOT_DIR + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    staging.rename(final)
    shutil.rmtree(old, ignore_errors=True)


def read_snapshot(directory: Path, *, embeddings: str, chain_at) -> Snapshot | None:
    """The snapshot beside the log, if it is whole and agrees with the log (``chain_at(n)``: the log's
    chain value after event n); else None."""
    folder = directory / SNAPSHOT_DIR
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        version = manifest.get("format")
        if version not in READABLE_FORMATS or manifest.get("embeddings") != embeddings:
            return None
        events, head = int(manifest["events"]), str(manifest["head"])
        if chain_at(events) != head:
            return None  # another log's, or one the log was rewritten under
        files = manifest["files"]
        if any(
            _digest(folder / name, version) != files.get(name) for name in (STATE, EPISODES, *VECTOR_FILES.values())
        ):
            return None
        episodes_text = (folder / EPISODES).read_bytes()  # read (and hashed) now; parsed when first used
        state = orjson.loads((folder / STATE).read_bytes())
        # copy-on-write maps: nothing is read until used, and an index may change rows without touching the file
        vectors = {kind: np.load(folder / name, mmap_mode="c") for kind, name in VECTOR_FILES.items()}
        vector_ids = {kind: list(state["vector_ids"][kind]) for kind in VECTOR_FILES}
        if any(len(vector_ids[kind]) != vectors[kind].shape[0] for kind in VECTOR_FILES):
            return None
        return Snapshot(
            events=events,
            head=head,
            facts=[_fact(row) for row in state["facts"]],
            names=dict(state["names"]),
            aliases=dict(state["aliases"]),
            next_id=int(state["next_id"]),
            last_step=int(state["last_step"]),
            episodes=lambda: [_episode(row) for row in orjson.loads(episodes_text)],
            vector_ids=vector_ids,
            vectors=vectors,
        )
    except (OSError, ValueError, KeyError, TypeError, IndexError, orjson.JSONDecodeError):
        return None


# Frozen dataclasses set each field through object.__setattr__; a snapshot's 100k rows are already
# checked (by hash), so they are put into the instances' dicts directly: ~6x faster, the same objects.
def _fact(row: list[Any]) -> Fact:
    fact = object.__new__(Fact)
    fact.__dict__.update(zip(_FACT_FIELDS, row))
    return fact


def _episode(row: list[Any]) -> Episode:
    episode = object.__new__(Episode)
    score = row[4] if len(row) > 4 else None  # (a snapshot written before scores were kept has four columns)
    episode.__dict__.update(step=row[0], text=row[1], action=row[2], fact_ids=frozenset(row[3]), score=score)
    return episode
