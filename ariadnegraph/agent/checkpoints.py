"""The run's LangGraph checkpoints: one SQLite file per run (``RunDir.checkpoints_path``, the default), or
a PostgreSQL database shared by many runs (``--checkpointer postgres://...`` / ``$ARIADNE_CHECKPOINTER``).

Which one a run uses is decided when it is created and recorded in its run.json (``checkpoints``: the
store and the URL without its password; the run's ``thread_id`` is its checkpoint thread), so a run keeps
its checkpoints where it started; everything else about the run (metadata, trajectory, memory) stays in
its directory.

A run's SQLite checkpoints are small (``RunSqliteSaver``): LangGraph's SQLite saver writes every channel's value and
version into every checkpoint, several a step. Here a value is written once per version (a short one stays in the
checkpoint's row), compressed; the row, which is mostly the same channel names and versions each time, is compressed
against a row like it kept in the file; and a version is a counter and the token of the invocation that wrote it.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from ..config import CHECKPOINTER_ENV, DiskFull, checkpointer_url, is_full_disk, redacted
from ..runs import CHECKPOINTS_FILE, RunCorrupted, RunDir, RunMeta

POSTGRES_TIMEOUT = 10  # seconds to reach the database (and, mid-episode, to get a connection back)
CHECKPOINTS = "checkpoints"  # run.json key: {"store": "postgres", "url": ...}; absent: the run's SQLite file


COMPRESSED = "+zlib"  # the suffix of a compressed value's type (LangGraph's encrypting serializer adds "+aes" so)
COMPRESS_FROM = 64  # bytes: a smaller value is stored as it is (and a longer one too when zlib does not shorten it)
VERSION_DIGITS = 10  # a channel version's counter: 10,000 steps of ~10 supersteps take 6 digits
EMPTY = "empty"  # the type of a channel's version that held no value, as files from before store it
DICTIONARY_FOR = 100  # checkpoints written against one dictionary before the next row becomes the new one
INLINE_BELOW = 64  # characters: a shorter text value is kept in the checkpoint's own row
WriteGuard = Callable[[], AbstractContextManager[None]]  # what a writer holds around each write (RunDir.writing)


class CompressedSerializer(SerializerProtocol):
    """LangGraph's serializer, with what it writes compressed by zlib when that shortens it: against a preset
    dictionary when one is set (``dictionary``; the type then names it, ``msgpack+zlib:NAME``), whose bytes
    ``dictionaries`` finds again by name when it is read. Reads every form, so the checkpoints of a run written
    before compression, or before dictionaries, still load."""

    def __init__(
        self, inner: SerializerProtocol | None = None, dictionaries: Callable[[str], bytes] | None = None
    ) -> None:
        self.inner = inner or JsonPlusSerializer()
        self.dictionary: tuple[str, bytes] | None = None  # (name, bytes) what is written is compressed against
        self._dictionaries = dictionaries
        self._read: dict[str, bytes] = {}  # the dictionaries read so far, by name

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        kind, data = self.inner.dumps_typed(obj)
        if len(data) < COMPRESS_FROM:
            return kind, data
        if self.dictionary is None:
            kind, packed = kind + COMPRESSED, zlib.compress(data, 6)
        else:
            name, preset = self.dictionary
            packer = zlib.compressobj(6, zdict=preset)
            kind, packed = f"{kind}{COMPRESSED}:{name}", packer.compress(data) + packer.flush()
        return (kind, packed) if len(packed) < len(data) else self.inner.dumps_typed(obj)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, blob = data
        inner_kind, compressed, name = kind.partition(COMPRESSED)
        if not compressed:
            return self.inner.loads_typed(data)
        if not name:
            return self.inner.loads_typed((inner_kind, zlib.decompress(blob)))
        name = name.removeprefix(":")
        if name not in self._read:
            if self._dictionaries is None:
                raise ValueError(f"a value compressed against dictionary {name}, and no dictionaries to read it from")
            self._read[name] = self._dictionaries(name)
        unpacker = zlib.decompressobj(zdict=self._read[name])
        return self.inner.loads_typed((inner_kind, unpacker.decompress(blob) + unpacker.flush()))


class RunSqliteSaver(SqliteSaver):
    """LangGraph's SQLite saver for a run's own checkpoints file, storing each channel's value once per version.

    The SQLite saver writes every channel's value into every checkpoint, several a step, so a step cost the whole
    state several times over (the last steps' observations most). This one writes a value when its channel gets a new
    version, into a table of its own keyed by channel and version, and puts the checkpoint together again when read, as
    LangGraph's PostgreSQL saver does; like that saver it keeps small values (numbers, short texts) in the checkpoint's
    own row, where a table row would cost more in keys than the value. Values are compressed, rows against a
    dictionary (``CompressedSerializer``, ``_keep_as_dictionary``). A run's checkpoints from before, which hold their
    values, read as they are. LangGraph's ``DeltaChannel`` (beta), whose history the SQLite saver reads from the
    values inline, is not supported: the state has none."""

    def __init__(self, connection: sqlite3.Connection, write_guard: WriteGuard | None = None) -> None:
        self.compressor = CompressedSerializer(dictionaries=self._dictionary)
        super().__init__(connection, serde=self.compressor)
        # held around every write (the run's write gate, runs/gate.py): a reader never copies half a checkpoint
        self._write_guard = write_guard or nullcontext
        self._dictionary_age = 0  # checkpoints written since the dictionary was taken
        self._dictionary_channels = 0  # how many channels the row it was taken from had versions for
        self._stored: dict[tuple[str, str, str], str] = {}  # (thread, namespace, channel) -> its version written last
        self._values_table = True  # False: a read-only file from before, which has no channel_values table
        self._token = secrets.token_hex(8)  # the random part of the versions the invocation under way writes

    def get_next_version(self, current: str | None, channel: None) -> str:
        """The SQLite saver's version (a counter, then a random part), written shorter and told apart by the invocation
        that wrote it: ten digits against its 32, then a token drawn when the checkpoint a run goes on from is read
        (``get_tuple``, which LangGraph's loop, ``update_state`` and a fork call before they write), the same for every
        version that invocation writes. Two branches of a fork both count on from the fork, so the same counter names
        two values; their tokens keep them apart, as the SQLite saver's random part per version does, while the
        versions of one checkpoint, which share their token, compress to their counters. Versions compare as strings
        (the counter first); a thread whose versions are the long ones keeps them."""
        if current is not None and len(str(current).split(".")[0]) != VERSION_DIGITS:
            return super().get_next_version(current, channel)
        number = int(str(current).split(".")[0]) if current is not None else 0
        return f"{number + 1:0{VERSION_DIGITS}}.{self._token}"

    @contextmanager
    def cursor(self, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        # a write's commit (and the write-ahead log's checkpoint SQLite may run in it) under the guard
        with self._write_guard() if transaction else nullcontext(), super().cursor(transaction) as cursor:
            yield cursor

    def setup(self) -> None:
        if self.is_setup:
            return
        try:  # before the SQLite saver's own setup, which marks the file set up: a failure here is tried again
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS channel_values (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, "
                "channel TEXT NOT NULL, version TEXT NOT NULL, type TEXT NOT NULL, value BLOB, checkpoint_id TEXT, "
                "PRIMARY KEY (thread_id, checkpoint_ns, channel, version))"
            )
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS dictionaries (name TEXT PRIMARY KEY, data BLOB NOT NULL, thread_id TEXT, "
                "checkpoint_id TEXT)"
            )
            self.conn.commit()
        except sqlite3.OperationalError as exc:  # a read-only file: from before, unless it has the table
            if "readonly" not in str(exc):
                raise
            found = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'channel_values'"
            self._values_table = self.conn.execute(found).fetchone() is not None
        super().setup()

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        with self._write_guard():  # the values, the dictionary and the row: one write to a reader
            return self._put(config, checkpoint, metadata, new_versions)

    def _put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        thread, namespace = str(config["configurable"]["thread_id"]), str(config["configurable"]["checkpoint_ns"])
        values, versions = checkpoint["channel_values"], checkpoint["channel_versions"]
        inline = {channel: value for channel, value in values.items() if channel not in versions or _small(value)}
        rows = []
        for channel, version in versions.items():
            # a new version, or one this process has not written (a run resumed, a fork): its value is stored
            if channel in values and channel not in inline:
                if channel in new_versions or self._stored.get((thread, namespace, channel)) != str(version):
                    kind, value = self.serde.dumps_typed(values[channel])
                    rows.append((thread, namespace, channel, str(version), kind, value, checkpoint["id"]))
        with self.cursor() as cursor:
            cursor.executemany("INSERT OR IGNORE INTO channel_values VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        self._stored.update({row[:3]: row[3] for row in rows})
        row = cast(Checkpoint, {**checkpoint, "channel_values": inline})
        self._keep_as_dictionary(row, thread)
        # the run's labels (env, seed, preset, model: its run.json holds them), which LangGraph would copy from the
        # run's config into every checkpoint's metadata, are left out: the file is the one run's
        return super().put({**config, "metadata": {}}, row, metadata, new_versions)

    def _keep_as_dictionary(self, row: Checkpoint, thread: str) -> None:
        """Make ``row`` what the next rows are compressed against when it names more channels than the dictionary in
        use (a few times early in a run, and on the first write of a process that resumes it) or that one is
        ``DICTIONARY_FOR`` rows old. A row is mostly the same channel names and versions as the rows before it, which
        zlib alone meets anew in each; against a row like it, only what changed since costs bytes. The dictionary is
        kept compressed: taking one costs a step less than a kilobyte."""
        self._dictionary_age += 1
        if len(row["channel_versions"]) <= self._dictionary_channels and self._dictionary_age < DICTIONARY_FOR:
            return
        data = self.compressor.inner.dumps_typed(row)[1]
        name = hashlib.sha256(data).hexdigest()[:16]
        with self.cursor() as cursor:
            cursor.execute(
                "INSERT OR IGNORE INTO dictionaries VALUES (?, ?, ?, ?)",
                (name, zlib.compress(data, 9), thread, row["id"]),
            )
        self.compressor.dictionary = (name, data)
        self._dictionary_age, self._dictionary_channels = 0, len(row["channel_versions"])

    def _dictionary(self, name: str) -> bytes:
        """A dictionary's bytes, read while the SQLite saver holds its lock (so straight from the connection)."""
        found = self.conn.execute("SELECT data FROM dictionaries WHERE name = ?", (name,)).fetchone()
        if found is None:
            raise ValueError(f"compressed against dictionary {name}, which the file does not hold")
        try:
            return zlib.decompress(found[0])
        except (zlib.error, TypeError) as exc:  # garbled (or not bytes at all): named, not a bare zlib error
            raise ValueError(f"dictionary {name} does not decompress ({exc})") from None

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        self._token = secrets.token_hex(8)  # whatever is written next may fork from what is read here
        found = super().get_tuple(config)
        return self._completed(found) if found is not None else None

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        # read out first: the SQLite saver holds its lock while it yields, and completing a checkpoint reads too
        for found in [*super().list(config, filter=filter, before=before, limit=limit)]:
            yield self._completed(found)

    def delete_thread(self, thread_id: str) -> None:
        with self._write_guard():
            self._delete_thread(thread_id)

    def _delete_thread(self, thread_id: str) -> None:
        super().delete_thread(thread_id)
        with self.cursor() as cursor:
            cursor.execute("DELETE FROM channel_values WHERE thread_id = ?", (str(thread_id),))
            # The dictionaries stay, the deleted thread's too: another thread's rows may be compressed against one (one
            # saver, one dictionary), and a saver holding one (this one, or another connection's) goes on compressing
            # against it, into any thread; a row against a dictionary the file lacks could never be read again. They
            # cost under a kilobyte every DICTIONARY_FOR checkpoints (0.5 MB of a 10,000-step run's 245 MB).
        self._stored = {key: version for key, version in self._stored.items() if key[0] != str(thread_id)}

    def _completed(self, found: CheckpointTuple) -> CheckpointTuple:
        """``found`` with the values of its channels' versions put back."""
        values, versions = found.checkpoint["channel_values"], found.checkpoint["channel_versions"]
        wanted = [(channel, str(version)) for channel, version in versions.items() if channel not in values]
        if not wanted or not self._values_table:
            return found  # a checkpoint from before, which holds its values
        configurable = found.config["configurable"]
        pairs = ", ".join("(?, ?)" for _ in wanted)
        with self.cursor(transaction=False) as cursor:
            cursor.execute(
                "SELECT channel, type, value FROM channel_values WHERE thread_id = ? AND checkpoint_ns = ? AND "
                f"(channel, version) IN (VALUES {pairs})",
                (
                    str(configurable["thread_id"]),
                    configurable.get("checkpoint_ns", ""),
                    *(x for p in wanted for x in p),
                ),
            )
            for channel, kind, value in cursor.fetchall():
                if kind != EMPTY:
                    values[channel] = self.serde.loads_typed((kind, value))
        return found


def _small(value: Any) -> bool:
    """A value kept in the checkpoint's own row, as LangGraph's PostgreSQL saver keeps its primitives: a row of
    ``channel_values`` would cost more in keys than the value does, and the row's dictionary makes a value that has
    not changed cost almost nothing."""
    if value is None or isinstance(value, bool | int | float):
        return True
    return isinstance(value, str) and len(value) < INLINE_BELOW


def sqlite_saver(connection: sqlite3.Connection, write_guard: WriteGuard | None = None) -> SqliteSaver:
    """The saver of a run's checkpoints file (``RunDir.checkpoints_path``): every reader and writer of it uses this;
    a writer gives the run's write gate (``RunDir.writing``) as ``write_guard``."""
    return RunSqliteSaver(connection, write_guard)


class CheckpointerUnavailable(RuntimeError):
    """A run keeps its checkpoints in PostgreSQL and none was given, or the database cannot be reached."""


def new_run_checkpoints(run_id: str) -> dict[str, Any]:
    """The run.json entries of a new CLI run: its thread, and where its checkpoints are (PostgreSQL, or
    the run's own SQLite file when no ``checkpoints`` entry is written)."""
    url = checkpointer_url()
    if url is None:
        return {"thread_id": run_id}
    # a thread of its own in the shared database: two run directories may hold runs of the same id
    return {"thread_id": f"{run_id}-{secrets.token_hex(4)}", CHECKPOINTS: {"store": "postgres", "url": redacted(url)}}


def check_checkpointer() -> None:
    """A configured PostgreSQL is reachable (its tables made): checked before a run writes anything."""
    if checkpointer_url() is not None:
        with _postgres("(new run)", {CHECKPOINTS: {}}):
            pass


def checkpoint_thread(meta: RunMeta) -> str:
    """The LangGraph thread the run's checkpoints are under (and that owns the run)."""
    return str(meta.get("thread_id") or meta["run_id"])


def in_postgres(meta: Mapping[str, Any]) -> bool:
    return (meta.get(CHECKPOINTS) or {}).get("store") == "postgres"


@contextmanager
def checkpointer(run: RunDir) -> Iterator[BaseCheckpointSaver]:
    meta = run.meta()
    if in_postgres(meta):
        with _postgres(run.run_id, meta, run.writing) as saver:
            yield saver
        return
    with run.writing():  # a new file is written as it is opened
        connection = sqlite3.connect(run.checkpoints_path, check_same_thread=False)
        # WAL without a sync per commit: a checkpoint is in the file (OS cache) before the next node runs,
        # which survives a killed process; only a power loss could drop the last few. A full fsync per
        # node costs more than the rest of the framework's work in a step.
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
    try:
        yield sqlite_saver(connection, run.writing)
    finally:
        with run.writing():  # the last connection's close folds the write-ahead log into the file
            connection.close()


@contextmanager
def _postgres(
    run_id: str, meta: Mapping[str, Any], write_guard: WriteGuard | None = None
) -> Iterator[BaseCheckpointSaver]:
    url = checkpointer_url()
    if url is None:
        raise CheckpointerUnavailable(
            f"run {run_id} keeps its checkpoints in PostgreSQL ({meta[CHECKPOINTS].get('url')}): "
            f"give --checkpointer postgres://... or set {CHECKPOINTER_ENV}"
        )
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool, PoolTimeout

    # A pool that checks each connection before lending it: a database restarted mid-episode costs the next
    # checkpoint a new connection, not the run (PostgresSaver's own settings: autocommit, no prepared statements).
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=2,
        timeout=POSTGRES_TIMEOUT,
        check=ConnectionPool.check_connection,
        open=False,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    try:
        with psycopg.connect(
            url, autocommit=True, row_factory=dict_row, prepare_threshold=0, connect_timeout=POSTGRES_TIMEOUT
        ) as connection:  # fails at once if unreachable
            PostgresSaver(connection).setup()  # creates the tables once; a no-op after
        pool.open(wait=True, timeout=POSTGRES_TIMEOUT)
        saver = _guarded(PostgresSaver(pool), write_guard)  # type: ignore[arg-type]
    except (psycopg.Error, PoolTimeout) as exc:
        pool.close()
        raise CheckpointerUnavailable(
            f"PostgreSQL at {redacted(url)} cannot be used: {' '.join(str(exc).split())[:200]}"
        ) from None
    try:
        yield saver
    finally:
        pool.close()


def _guarded(saver: BaseCheckpointSaver, write_guard: WriteGuard | None) -> BaseCheckpointSaver:
    """``saver`` writing under ``write_guard`` (the run's write gate): a reader that copies the run's files under the
    gate reads the database's latest checkpoint under it too, so the two are of one instant (integrity.py)."""
    if write_guard is None:
        return saver
    for name in ("put", "put_writes", "delete_thread"):
        write = getattr(saver, name)

        def guarded(*args: Any, _write: Callable[..., Any] = write, **kwargs: Any) -> Any:
            with write_guard():
                return _write(*args, **kwargs)

        setattr(saver, name, guarded)
    return saver


def latest_values(run: RunDir) -> dict[str, Any] | None:
    """The state of the run's latest checkpoint (None: no checkpoint yet). Opens the file, so call it
    on a reader's copy or as the run's writer; RunCorrupted when the file cannot be read (the page-level
    check is ``integrity.check_run``'s)."""
    meta = run.meta()
    if not in_postgres(meta) and not run.checkpoints_path.is_file():
        return None
    try:
        with checkpointer(run) as saver:
            found = saver.get_tuple({"configurable": {"thread_id": checkpoint_thread(meta), "checkpoint_ns": ""}})
    except CheckpointerUnavailable:
        raise
    except Exception as exc:  # sqlite3.DatabaseError, or a checkpoint blob that does not decode
        if is_full_disk(exc):
            raise DiskFull(run.checkpoints_path) from None
        where = "its PostgreSQL checkpoint" if in_postgres(meta) else CHECKPOINTS_FILE
        raise RunCorrupted(f"run {run.run_id}: {where} is damaged ({' '.join(str(exc).split())[:120]})") from None
    if found is None:
        return None
    values = found.checkpoint.get("channel_values") or {}
    return dict(values)


def checkpointed_histories(run: RunDir) -> dict[int, set[str]]:
    """The histories the run's checkpoints are on: game step -> the trails (``runs.next_trail``) of the checkpoints of
    its thread at that step. Opens the file, so call it on a reader's copy or as the run's writer.

    The run's SQLite file is read through row by row as its readers read it (``read_through``), so a damaged row is
    named now. Elsewhere (PostgreSQL) the thread's checkpoints are listed through the saver, values and all."""
    meta = run.meta()
    if not in_postgres(meta):
        return read_through(run) if run.checkpoints_path.is_file() else {}
    histories: dict[int, set[str]] = {}
    with checkpointer(run) as saver:
        for found in saver.list({"configurable": {"thread_id": checkpoint_thread(meta), "checkpoint_ns": ""}}):
            values = found.checkpoint["channel_values"]
            if isinstance(values.get("step"), int) and isinstance(values.get("trail"), str):
                histories.setdefault(values["step"], set()).add(values["trail"])
    return histories


def read_through(run: RunDir) -> dict[int, set[str]]:
    """Every row of the run's SQLite checkpoints file read back (each checkpoint and its metadata, the values and the
    writes stored under it, the dictionaries they were compressed against): pages that pass SQLite's check may still
    hold a row garbled inside, or compressed against a dictionary row that was deleted, which only the reader of that
    row would meet (``report`` reads every checkpoint, a fork an older one, a resume the latest), as a traceback.
    RunCorrupted naming the run, the file and the row when one does not read. Returns the histories the thread's
    checkpoints are on: game step -> the trails (``runs.next_trail``) of its checkpoints at that step.

    Costs what reading the rows costs, linear in the run: 3 s at 10,000 steps of ``ariadne`` (50,000 checkpoints,
    180,000 values, 460,000 writes: 245 MB; half of it zlib's), on top of the 2 to 3 s copying and checking the run's
    files took before (benchmarks/checkpoint_size.py plays such a run)."""
    thread = checkpoint_thread(run.meta())
    connection = sqlite3.connect(run.checkpoints_path, check_same_thread=False)
    row: tuple[str, ...] = ("its tables",)  # the row being read, named only if it fails (the check reads them all)
    try:
        serde = RunSqliteSaver(connection).serde
        tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        # a file from before keeps every value apart, the short ones too: the thread's steps and trails are there
        apart: dict[tuple[str, str], Any] = {}
        if "channel_values" in tables:
            for thread_id, namespace, channel, version, kind, value in connection.execute(
                "SELECT thread_id, checkpoint_ns, channel, version, type, value FROM channel_values"
            ):
                row = ("value", channel, version)
                decoded = None if kind == EMPTY else serde.loads_typed((kind, value))
                if channel in ("step", "trail") and thread_id == thread and not namespace:
                    apart[(channel, version)] = decoded
        if "writes" in tables:
            for checkpoint_id, channel, kind, value in connection.execute(
                "SELECT checkpoint_id, channel, type, value FROM writes"
            ):
                row = ("checkpoint", checkpoint_id, "write to", channel)
                serde.loads_typed((kind, value))
        histories: dict[int, set[str]] = {}
        if "checkpoints" in tables:
            for thread_id, namespace, checkpoint_id, kind, blob, metadata in connection.execute(
                "SELECT thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata FROM checkpoints"
            ):
                row = ("checkpoint", checkpoint_id)
                checkpoint = serde.loads_typed((kind, blob))
                if metadata is not None:
                    json.loads(metadata)
                if thread_id != thread or namespace:
                    continue
                step, trail = _channel(checkpoint, apart, "step"), _channel(checkpoint, apart, "trail")
                if isinstance(step, int) and isinstance(trail, str):
                    histories.setdefault(step, set()).add(trail)
        return histories
    except Exception as exc:  # sqlite3.DatabaseError, or a row that does not decode (zlib, msgpack, a dictionary)
        if is_full_disk(exc):
            raise DiskFull(run.checkpoints_path) from None
        said = " ".join(f"{' '.join(map(str, row))}: {exc}".split())
        raise RunCorrupted(f"run {run.run_id}: {CHECKPOINTS_FILE} is damaged ({said[:160]})") from None
    finally:
        connection.close()


def _channel(checkpoint: Checkpoint, apart: Mapping[tuple[str, str], Any], channel: str) -> Any:
    """A channel's value in ``checkpoint``: in its row, or (a file from before) among the values ``apart``."""
    if channel in checkpoint["channel_values"]:
        return checkpoint["channel_values"][channel]
    return apart.get((channel, str(checkpoint["channel_versions"].get(channel))))


def _stored_value(saver: RunSqliteSaver, thread: str, namespace: str, channel: str, version: Any) -> Any:
    found = saver.conn.execute(
        "SELECT type, value FROM channel_values WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? "
        "AND version = ?",
        (thread, namespace, channel, str(version)),
    ).fetchone()
    return None if found is None or found[0] == EMPTY else saver.serde.loads_typed((found[0], found[1]))


def bytes_by_step(path: Path, thread: str) -> dict[int, list[int]]:
    """What a run's SQLite checkpoints cost (``benchmarks/checkpoint_size.py``): game step -> the bytes of each
    checkpoint whose state is at that step, counting its row, the writes stored under it, the channel values it
    wrote and the dictionary taken from it. Data bytes: the keys and SQLite's pages around them are the file's."""
    connection = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = RunSqliteSaver(connection)
        saver.setup()  # (a file from before has no channel_values table)
        sizes: dict[str, int] = {}
        for checkpoint_id, size in connection.execute(
            "SELECT checkpoint_id, LENGTH(checkpoint) + IFNULL(LENGTH(metadata), 0) FROM checkpoints"
        ):
            sizes[checkpoint_id] = size
        for query in (
            "SELECT checkpoint_id, SUM(IFNULL(LENGTH(value), 0)) FROM writes GROUP BY checkpoint_id",
            "SELECT checkpoint_id, SUM(IFNULL(LENGTH(value), 0)) FROM channel_values GROUP BY checkpoint_id",
            "SELECT checkpoint_id, SUM(LENGTH(data)) FROM dictionaries GROUP BY checkpoint_id",
        ):
            for checkpoint_id, size in connection.execute(query):
                if checkpoint_id in sizes:
                    sizes[checkpoint_id] += size
        by_step: dict[int, list[int]] = {}
        # each row read alone, not through the saver's list, which would read every checkpoint's writes and values
        # (minutes at 10,000 steps): the step is a short value the row holds, or (a file from before) one row away
        rows = connection.execute(
            "SELECT checkpoint_id, checkpoint_ns, type, checkpoint FROM checkpoints WHERE thread_id = ?", (thread,)
        )
        for checkpoint_id, namespace, kind, blob in rows:
            checkpoint = saver.serde.loads_typed((kind, blob))
            step = checkpoint["channel_values"].get("step")
            if step is None and "step" in checkpoint["channel_versions"]:
                step = _stored_value(saver, thread, namespace, "step", checkpoint["channel_versions"]["step"])
            if isinstance(step, int):
                by_step.setdefault(step, []).append(sizes[checkpoint_id])
        return by_step
    finally:
        connection.close()
