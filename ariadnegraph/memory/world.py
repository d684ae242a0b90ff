"""``WorldMemory``: the agent's memory — temporal KG + episodes + vectors + durable log, behind one API.

One call per agent step, :meth:`WorldMemory.observe`, records the observation as an episodic vertex,
closes the facts it makes outdated, adds the new ones, embeds what is new (once) and commits it all in
one SQLite transaction. This module is the storage side (opening, replaying the log, snapshots, Chroma,
writes); reading goes through the query API it mixes in (:mod:`.queries`: views as of a step, retrieval,
the map).

On disk (``path``): ``memory.sqlite`` (the event log, the source of truth) and ``chroma/`` (vectors).
``ARIADNE_CHROMA_URL`` (or ``chroma_url=``) sends vectors to a Chroma server instead.
"""

from __future__ import annotations

import glob
import os
import shutil
import uuid
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, cast

import numpy as np
from langchain_core.embeddings import Embeddings

from ..config import FULL_DISK, embeddings_setting, is_full_disk, setting
from . import spatial
from .bulk import collector_paused
from .conflicts import ConflictRules
from .embeddings import CachedEmbedder, VectorIndex, embeddings_spec, make_embeddings
from .episodic import Episode, EpisodeStore
from .facts import Fact, Triplet
from .normalize import EntityNormalizer
from .objects import HistoryDigest
from .queries import MemoryQueries
from .snapshot import SNAPSHOT_DIR, Snapshot, read_snapshot, write_snapshot
from .store import EventLog, MemoryCorrupted, MemoryWriteFailed, VectorServerUnavailable
from .temporal_kg import KG_EVENTS, FactChange, TemporalKG
from .vectorstore import CHROMA_URL_ENV, ChromaVectors, make_client

MEMORY_FILE = "memory.sqlite"
SNAPSHOT_MIN_EVENTS = 2_000  # a memory closed with at least this many events past its snapshot writes a new one


def _unreachable(exc: BaseException) -> bool:
    """A connection that failed (refused, reset, timed out), as Chroma's HTTP client reports it."""
    text = f"{type(exc).__name__} {exc}".lower()
    return isinstance(exc, (ConnectionError, TimeoutError)) or any(
        word in text for word in ("connect", "connection", "timed out", "timeout", "unreachable")
    )


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def _built(embeddings: Embeddings | str | None) -> Embeddings:
    return embeddings if isinstance(embeddings, Embeddings) else make_embeddings(embeddings)


def _create(directory: Path, **settings: Any) -> None:
    """Create a new memory at ``directory`` whole or not at all: its log, settings and Chroma collections are
    made in a folder beside it, closed, then renamed to it. A full disk or a kill midway leaves no half-made
    memory (a Chroma file cut at 0 bytes is not a memory the run checks can tell from a damaged one), only a
    hidden ``.NAME.*.tmp`` folder, removed by the next creation. An existing folder that holds other files is
    written in place."""
    if directory.is_dir() and any(directory.iterdir()):
        return  # made where it is opened
    for stale in directory.parent.glob(f".{glob.escape(directory.name)}.*.tmp"):  # creations cut short by a kill
        shutil.rmtree(stale, ignore_errors=True)
    staging = directory.with_name(f".{directory.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        staging.mkdir(parents=True)
        EventLog(staging / MEMORY_FILE).close()
        WorldMemory(staging, **settings).close()  # the settings recorded, Chroma's collections made
        os.replace(staging, directory)  # (onto an empty folder, or none)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, Exception) and is_full_disk(exc, directory.parent):  # named as asked for, not as staged
            raise MemoryWriteFailed(f"memory {directory} could not be created: {FULL_DISK}") from exc
        raise


class WorldMemory(MemoryQueries):
    """Temporal knowledge graph with episodic memory, vector search and crash-safe persistence (its queries:
    :class:`~.queries.MemoryQueries`)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        embeddings: Embeddings | str | None = None,
        new_embeddings: str | None = None,
        aliases: dict[str, str] | None = None,
        rules: ConflictRules | None = None,
        chroma_url: str | None = None,
        vector_flush_steps: int = 50,
        check_log: bool = False,
        rewind_to: int | None = None,
        write_guard: Callable[[], AbstractContextManager[None]] | None = None,
    ) -> None:
        """``new_embeddings``: what a memory created here is built with where neither ``embeddings`` nor the setting
        (``$ARIADNE_EMBEDDINGS``) says (a preset's default); a saved memory keeps its own.
        ``check_log``: also recompute the log's hash chain over the events a snapshot covers (see
        ``_open_storage``); the run checks (agent/integrity.py) and readers ask for it. ``rewind_to``: keep
        only what was recorded up to that step's episode (-1: only facts seeded before the first step) and
        cut the rest from the log once the kept part has loaded (a resumed or forked run continues from
        the memory its checkpoint saw). ``write_guard``: held around every write of the files (the run's write gate,
        ``RunDir.writing``, for a run's live memory), so a reader copying them never sees half a write."""
        self.directory = Path(path) if path is not None else None
        self._writing = write_guard or nullcontext
        self._log: EventLog | None = None
        if self.directory is not None:
            with self._writing():
                if not (self.directory / MEMORY_FILE).is_file():
                    # built once, for the creation and here
                    embeddings = _built(embeddings or embeddings_setting() or new_embeddings)
                    _create(self.directory, embeddings=embeddings, chroma_url=chroma_url)
                self._log = EventLog(self.directory / MEMORY_FILE)
            # a saved memory is read with the embeddings it was built with; a new one with the setting's
            embeddings = embeddings or self._log.get_meta("embeddings")
        try:
            self.embeddings = _built(embeddings or embeddings_setting() or new_embeddings)
        except BaseException:
            if self._log is not None:
                self._log.close()
            raise
        self.embedder = CachedEmbedder(self.embeddings)
        self.kg = TemporalKG(EntityNormalizer({**spatial.PLAYER_ALIASES, **(aliases or {})}), rules)
        self.digest = HistoryDigest()
        self.kg.watchers.append(self.digest.add)  # before anything is put back from disk
        self.episodes = EpisodeStore()
        # fact id -> steps of the episodes linked to it (None: not built)
        self._episodes_by_fact: dict[int, list[int]] | None = {}
        dim = getattr(self.embeddings, "dim", None) or len(self.embeddings.embed_query("dimension probe"))
        self.fact_index = VectorIndex(dim)  # open facts only
        self.entity_index = VectorIndex(dim)  # every entity ever seen, by key
        self.episode_index = VectorIndex(dim)  # every episode, by step
        self.vector_flush_steps = vector_flush_steps
        self._pending_vectors: dict[str, list[tuple[str, str]]] = {kind: [] for kind in ChromaVectors.KINDS}
        self._pending_steps = 0
        self._vectors: ChromaVectors | None = None
        self._chroma_url: str | None = None
        # vectors also go to Chroma (for other readers, and without a snapshot)
        self._persist_vectors = self.directory is not None
        self._snapshot_events = 0  # log events the snapshot on disk covers
        self._dirty = False  # written to since opened: only a writer leaves a new snapshot (readers work on copies)
        # the newest episode's step (None: not yet known, a snapshot's episodes are deferred)
        self._last_episode: int | None = -1
        if self.directory is not None:
            try:
                with self._writing():  # a rewind cuts the log; a first open records settings, makes Chroma's files
                    self._open_storage(chroma_url or setting(CHROMA_URL_ENV), check_log, rewind_to)
            except BaseException:  # a damaged log or vector store: refused, and no file left open
                self._release_files()
                raise

    # -- storage -----------------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, **kwargs: Any) -> "WorldMemory":
        """Reopen a saved memory; raises FileNotFoundError if none is there, MemoryCorrupted if damaged."""
        if not (Path(path) / MEMORY_FILE).exists():
            raise FileNotFoundError(f"no memory at {path} (expected {MEMORY_FILE})")
        return cls(path, **kwargs)

    def _open_storage(self, chroma_url: str | None, check_log: bool = False, rewind_to: int | None = None) -> None:
        assert self.directory is not None
        assert self._log is not None
        keep = self._events_through(rewind_to) if rewind_to is not None else None
        spec = self._log.get_meta("embeddings")
        if spec is None:
            self._log.set_meta("embeddings", embeddings_spec(self.embeddings))
            self._log.set_meta("namespace", f"m{uuid.uuid4().hex[:16]}")
        elif spec != embeddings_spec(self.embeddings):
            raise ValueError(
                f"memory at {self.directory} was built with embeddings '{spec}', not "
                f"'{embeddings_spec(self.embeddings)}'"
            )
        self._chroma_url = chroma_url
        if chroma_url:
            # a server is shared and may go away: every step's vectors are sent with the step, so a
            # failure stops the episode at that step (resumable) rather than at the next flush
            self.vector_flush_steps = 1
        with collector_paused():  # a large memory's facts are built in one go (memory/bulk.py)
            snapshot = read_snapshot(
                self.directory, embeddings=embeddings_spec(self.embeddings), chain_at=self._log.chain_at
            )
        stale = snapshot is not None and keep is not None and snapshot.events > keep  # covers steps being cut
        if stale:
            snapshot = None
        if snapshot is not None and check_log:
            # A snapshot is tied to the log by the stored chain value at its last event; only recomputing the
            # chain from the payloads shows an event edited under it (the replay does that for later events).
            # That costs ~0.35 s at 100k facts, as much as the open itself (~0.45 s), so plain opens (a writer
            # resuming after the check, an eval worker) keep the anchor check and the full
            # recompute runs where a run is checked before it is continued or read (integrity.check_run) and in
            # readers that open a saved memory without that check (session.memory_view).
            self._log.check_chain(snapshot.events)
        try:
            # vectors come from a verified snapshot; Chroma is opened when first written to (a server
            # at once: it must be there), and read back only when there is no snapshot
            if chroma_url or snapshot is None:
                self._chroma()
            if snapshot is None and self._vectors is not None:
                for kind in ChromaVectors.KINDS:
                    for text, vector in self._vectors.load(kind).values():
                        self.embedder.remember(text, vector)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # Chroma's errors, and its Rust core's panics (not Exceptions) on a damaged file
            self._release_files()
            if is_full_disk(exc, self.directory):  # its files could not be written: nothing is damaged
                raise MemoryWriteFailed(
                    f"vector store {chroma_url or self.directory / 'chroma'} could not be written: {FULL_DISK}"
                ) from None
            if chroma_url and _unreachable(exc):
                raise VectorServerUnavailable(
                    f"the Chroma server at {chroma_url} cannot be reached ({_one_line(exc)})"
                ) from None
            raise MemoryCorrupted(
                f"vector store {chroma_url or self.directory / 'chroma'} cannot be read: {_one_line(exc)}"
            ) from None
        with collector_paused():  # the KG, its indices and the replayed events, in one go
            if snapshot is not None:
                self._restore(snapshot)
                self._replay(after=snapshot.events, chain=snapshot.head, upto=keep)
            else:
                self._replay(upto=keep)
        self._snapshot_events = snapshot.events if snapshot is not None else 0
        if keep is not None and keep < len(self._log):
            # the kept part loaded and verified: only now is the rest cut (a damaged memory is refused unchanged)
            self._log.truncate(keep)
            if stale:
                shutil.rmtree(self.directory / SNAPSHOT_DIR, ignore_errors=True)

    def _events_through(self, step: int) -> int:
        """How many events of the log were written up to ``step``'s episode (a step's events are appended
        together, in step order; facts seeded before the first step have no source step)."""
        assert self._log is not None
        for seq, kind, payload in self._log.newest_first():
            written_at = (
                payload.get("step")
                if kind in ("episode", "close")
                else payload.get("source")
                if kind == "fact"
                else None
            )
            if kind == "alias" or (written_at is not None and written_at > step):
                continue
            return seq
        return 0

    def _chroma(self) -> ChromaVectors:
        """The Chroma collections of this memory, opened on first use."""
        if self._vectors is None:
            assert self.directory is not None
            assert self._log is not None
            client = make_client(None if self._chroma_url else self.directory / "chroma", self._chroma_url)
            self._vectors = ChromaVectors(client, self._log.get_meta("namespace"), self.embeddings)
        return self._vectors

    def _restore(self, snapshot: Snapshot) -> None:
        """Load a verified snapshot (see memory/snapshot.py) instead of replaying its events."""
        self.kg.normalizer.restore_aliases(snapshot.aliases)
        self.kg.restore_all(
            sorted(snapshot.facts, key=lambda f: f.id), snapshot.names, snapshot.next_id, snapshot.last_step
        )
        self.episodes.defer(snapshot.episodes)
        self._last_episode = None  # known once the deferred episodes are read
        self._episodes_by_fact = None  # built on first use
        facts, entities, episodes = (snapshot.vectors[k] for k in ("facts", "entities", "episodes"))
        fact_ids = snapshot.vector_ids["facts"]
        opened = sum(1 for fact_id in fact_ids if self.kg.get(fact_id).is_open)  # written first, in the index's order
        self.fact_index.load(fact_ids[:opened], facts[:opened])
        self.entity_index.load(snapshot.vector_ids["entities"], entities)
        self.episode_index.load(snapshot.vector_ids["episodes"], episodes)
        # closed facts' vectors (as_of views) are read from the mapped file when asked for
        self.embedder.attach([self.kg.get(fact_id).text() for fact_id in fact_ids], facts)

    def write_snapshot(self) -> None:
        """Save the whole state beside the log (memory/snapshot.py), so reopening skips the replay."""
        if self._log is None or self.directory is None:
            return
        facts, names, next_id, last_step = self.kg.snapshot_state()
        index = {fact_id: row for row, fact_id in enumerate(self.fact_index.ids)}
        facts = sorted(facts, key=lambda f: (0, index[f.id]) if f.id in index else (1, f.id))  # the index's facts first
        episodes = [self.episodes[s] for s in sorted(self.episodes)]
        vectors = {
            "facts": self.embedder.embed([f.text() for f in facts])
            if facts
            else np.zeros((0, self.fact_index.dim), np.float32),
            "entities": self.entity_index.rows(),
            "episodes": self.episode_index.rows(),
        }
        vector_ids: dict[str, list[Any]] = {
            "facts": [f.id for f in facts],
            "entities": self.entity_index.ids,
            "episodes": self.episode_index.ids,
        }
        with self._writing():
            write_snapshot(
                self.directory,
                events=len(self._log),
                head=self._log.chain_at(len(self._log)) or "",
                embeddings=embeddings_spec(self.embeddings),
                facts=facts,
                names=names,
                aliases=self.kg.normalizer.aliases,
                next_id=next_id,
                last_step=last_step,
                episodes=episodes,
                vector_ids=vector_ids,
                vectors=vectors,
            )
        self._snapshot_events = len(self._log)

    def _replay(self, after: int = 0, chain: str | None = None, upto: int | None = None) -> None:
        """Apply the log's events (after the first ``after``, whose chain value is ``chain``; up to event ``upto``)."""
        assert self._log is not None
        for kind, payload in self._log.replay(after, chain, upto) if chain is not None else self._log.replay(upto=upto):
            if kind in KG_EVENTS:
                fact = self.kg.restore_event(kind, payload)
                if kind == "fact":
                    self._index_new_fact(cast(Fact, fact))  # a "fact" event restores a fact
                elif kind == "close":
                    self.fact_index.remove(payload["id"])
            elif kind == "episode":
                episode = Episode.from_dict(payload)
                self.episodes[episode.step] = episode
                if self._last_episode is not None:
                    self._last_episode = max(self._last_episode, episode.step)
                self._index_episode(episode)
                self.episode_index.add(episode.step, self.embedder.embed_one(episode.text))
            else:
                raise MemoryCorrupted(f"memory file has an unknown event kind '{kind}'")

    def close(self) -> None:
        with self._writing():  # the last vectors, a snapshot, and the log's write-ahead file folded in as it closes
            try:
                self.flush_vectors()
                if (
                    self._dirty
                    and self._log is not None
                    and len(self._log) - self._snapshot_events >= SNAPSHOT_MIN_EVENTS
                ):
                    try:
                        self.write_snapshot()
                    except OSError:  # a full disk: the log stays the truth, the next open replays it
                        pass
            finally:
                self._release_files()

    def _release_files(self) -> None:
        """Close the log and give Chroma's files back: a closed memory (an evicted reader whose copy is
        deleted) keeps no descriptor on them; what it loaded stays readable in memory."""
        vectors, self._vectors = self._vectors, None
        log, self._log = self._log, None
        try:
            if vectors is not None:
                vectors.close()
        finally:
            if log is not None:
                log.close()

    def __enter__(self) -> "WorldMemory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------------
    def add_alias(self, alias: str, canonical: str) -> None:
        self.kg.normalizer.add_alias(alias, canonical)
        if self._log is not None:
            with self._writing():
                self._log.append([("alias", {"alias": alias, "canonical": canonical})])

    def observe(
        self,
        step: int,
        text: str,
        triplets: Iterable[Triplet] = (),
        outdated: Iterable[int | Triplet] = (),
        action: str | None = None,
        invalidate: bool = True,
        by_rules: bool = True,
        score: float | None = None,
    ) -> FactChange:
        """Record one step: the observation ``text`` and the facts extracted from it, atomically
        (``invalidate=False``: contradicted and outdated facts stay open; ``by_rules=False``: only the ``outdated``
        ones are closed; see ``TemporalKG.update``); ``score``: the game's after the step, kept with its episode."""
        if step in self.episodes:
            raise ValueError(f"step {step} is already recorded")
        self._dirty = True
        change = self.kg.update(step, list(triplets), outdated, source=step, invalidate=invalidate, by_rules=by_rules)
        episode = Episode(step, text, action, frozenset(f.id for f in change.added + change.kept), score)
        self.episodes[step] = episode
        if self._last_episode is not None:
            self._last_episode = max(self._last_episode, step)
        self._index_episode(episode)
        for fact in change.closed:
            self.fact_index.remove(fact.id)
        new_entities = [k for f in change.added for k in (f.subject_key, f.object_key) if k not in self.entity_index]
        for fact in change.added:
            self._index_new_fact(fact)
        self.episode_index.add(step, self.embedder.embed_one(text))
        with self._writing():
            if self._persist_vectors:
                self._save_vectors(change.added, list(dict.fromkeys(new_entities)), episode)
            if self._log is not None:
                events = [("close", {"id": f.id, "step": step}) for f in change.closed]
                events += [("fact", f.to_dict()) for f in change.added]
                events.append(("episode", episode.to_dict()))
                self._log.append(events)
        return change

    def seed(self, triplets: Iterable[Triplet]) -> int:
        """Facts known before the episode starts (memory carried over from earlier runs or trials):
        recorded at step 0 with no episode, so the first observation can still close what it contradicts.
        Returns how many facts were added."""
        if self.episodes:
            raise ValueError("a memory is seeded before its first step")
        self._dirty = True
        change = self.kg.update(0, list(triplets), source=None)
        new_entities = [k for f in change.added for k in (f.subject_key, f.object_key) if k not in self.entity_index]
        for fact in change.added:
            self._index_new_fact(fact)
        if self._persist_vectors:
            self._pending_vectors["facts"] += [(f"f{f.id}", f.text()) for f in change.added]
            self._pending_vectors["entities"] += [
                (f"e:{k}", self.kg.entity_name(k)) for k in dict.fromkeys(new_entities)
            ]
        if self._log is not None:
            with self._writing():
                self._log.append([("fact", f.to_dict()) for f in change.added])
        return len(change.added)

    def _index_new_fact(self, fact: Fact) -> None:
        if fact.is_open:
            self.fact_index.add(fact.id, self.embedder.embed_one(fact.text()))
        for key in (fact.subject_key, fact.object_key):
            if key not in self.entity_index:
                self.entity_index.add(key, self.embedder.embed_one(self.kg.entity_name(key)))

    def _save_vectors(self, facts: Sequence[Fact], entity_keys: Sequence[str], episode: Episode) -> None:
        # Chroma writes cost ~10 ms each (fsyncs), so vectors are buffered and written every
        # ``vector_flush_steps`` steps and on close. The SQLite log stays the source of truth: vectors
        # lost in a crash are simply embedded again when the memory is reopened.
        pending = self._pending_vectors
        pending["facts"] += [(f"f{f.id}", f.text()) for f in facts]
        pending["entities"] += [(f"e:{k}", self.kg.entity_name(k)) for k in entity_keys]
        pending["episodes"].append((f"o{episode.step}", episode.text))
        self._pending_steps += 1
        if self._pending_steps >= self.vector_flush_steps:
            self.flush_vectors()

    def flush_vectors(self) -> None:
        """Write buffered vectors to Chroma."""
        if not self._persist_vectors:
            return
        with self._writing():
            self._flush_vectors()

    def _flush_vectors(self) -> None:
        for kind, items in self._pending_vectors.items():
            if items:
                ids, texts = zip(*items)
                try:
                    self._chroma().add(kind, list(ids), list(texts), self.embedder.embed(list(texts)))
                except (KeyboardInterrupt, SystemExit):
                    raise
                except (
                    BaseException
                ) as exc:  # a full disk, a server gone: the log keeps the step; vectors are re-embedded on reopen
                    reason = FULL_DISK if is_full_disk(exc, self.directory) else _one_line(exc)
                    raise MemoryWriteFailed(
                        f"vector store of {self.directory} could not be written: {reason}"
                    ) from None
                items.clear()
        self._pending_steps = 0
