"""Save -> reopen round-trips, crash damage is detected, vectors are embedded once (Chroma on disk)."""

import shutil
import sqlite3

import chromadb
import pytest
from chromadb.config import Settings

from ariadnegraph.memory import MemoryCorrupted, WorldMemory
from ariadnegraph.memory.world import MEMORY_FILE

STEPS = [
    ("-= Kitchen =- A fridge. Exits north and east.", [("you", "in", "Kitchen"), ("kitchen", "has exit", "north"), ("kitchen", "has exit", "east"), ("fridge", "in", "kitchen"), ("fridge", "is", "closed")]),
    ("You open the fridge. Inside are red apples.", [("fridge", "is", "open"), ("red apples", "in", "fridge")]),
    ("You take the red apple.", [("red apple", "in", "inventory")]),
    ("-= Pantry =- Salt, pepper and chili mix on a shelf.", [("you", "in", "pantry"), ("pantry", "north of", "kitchen"), ("Salt, pepper and chili mix", "on", "shelf")]),
    ("-= Kitchen =-", [("you", "in", "kitchen")]),
]


def play(path, upto=len(STEPS)):
    memory = WorldMemory(path)
    memory.add_alias("refrigerator", "fridge")
    for step, (text, triplets) in enumerate(STEPS[:upto], start=1):
        memory.observe(step, text, triplets, action=f"action {step}")
    return memory


def test_reopen_equals_saved_memory_at_every_step(tmp_path):
    saved = play(tmp_path)
    snapshots = {step: saved.snapshot(step) for step in range(0, len(STEPS) + 1)}
    semantic = saved.semantic_search("apple")
    saved.close()
    reopened = WorldMemory.open(tmp_path)
    # Vectors came back from Chroma: nothing stored was embedded again.
    assert reopened.embedder.calls == 0
    for step, snapshot in snapshots.items():
        assert reopened.snapshot(step) == snapshot, step
    assert reopened.snapshot() == snapshots[len(STEPS)]
    assert [f.id for f in reopened.semantic_search("apple")] == [f.id for f in semantic]
    assert reopened.kg.normalizer.key("refrigerator") == "fridge"
    assert ("Salt, pepper and chili mix", "on", "shelf") in reopened.current()
    # The memory goes on growing after a reopen, with fresh ids.
    reopened.observe(6, "You eat the apple.", [("red apple", "is", "consumed")])
    assert max(f.id for f in reopened.kg.all_facts) == len(reopened.kg)


def test_each_item_is_embedded_once(tmp_path):
    memory = play(tmp_path)
    before = memory.embedder.calls
    for _ in range(3):
        memory.semantic_search("red apple")
        memory.stma_retrieve("red apple")
    assert memory.embedder.calls == before + 1  # only the new query text


def test_reopened_chroma_collection_finds_our_embedding_function(tmp_path):
    play(tmp_path).close()
    client = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=Settings(anonymized_telemetry=False))
    facts = next(c for c in client.list_collections() if c.name.endswith("-facts"))
    collection = client.get_collection(facts.name)  # no embedding function passed: Chroma rebuilds ours
    hits = collection.query(query_texts=["red apple in fridge"], n_results=1)  # would download a model if it used the default
    assert hits["documents"][0][0] == "red apples in fridge"


@pytest.mark.parametrize("damage", ["truncate", "drop_last_event", "edit_payload", "garbage"])
def test_damaged_memory_is_never_loaded_as_a_smaller_one(tmp_path, damage):
    play(tmp_path).close()
    db_path = tmp_path / MEMORY_FILE
    with sqlite3.connect(db_path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if damage == "truncate":
        data = db_path.read_bytes()
        db_path.write_bytes(data[: len(data) // 2])
    elif damage == "drop_last_event":
        with sqlite3.connect(db_path) as db:
            db.execute("DELETE FROM events WHERE seq = (SELECT MAX(seq) FROM events)")
    elif damage == "edit_payload":
        with sqlite3.connect(db_path) as db:
            db.execute("UPDATE events SET payload = payload || ' ' WHERE seq = 3")
    else:
        db_path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(MemoryCorrupted):
        WorldMemory.open(tmp_path)


def test_crash_between_vector_write_and_commit_loses_only_that_step(tmp_path, monkeypatch):
    memory = play(tmp_path, upto=3)
    monkeypatch.setattr(memory._log, "append", lambda events: (_ for _ in ()).throw(OSError("disk gone")))
    with pytest.raises(OSError):
        memory.observe(4, *STEPS[3])
    reopened = WorldMemory.open(tmp_path)
    assert sorted(reopened.episodes) == [1, 2, 3]
    assert reopened.snapshot() == play(tmp_path / "fresh", upto=3).snapshot()


def test_open_missing_memory_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        WorldMemory.open(tmp_path / "nope")


def test_memory_copies_are_independent(tmp_path):
    play(tmp_path / "a").close()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    b = WorldMemory.open(tmp_path / "b")
    b.observe(9, "later", [("x", "in", "y")])
    assert len(WorldMemory.open(tmp_path / "a").kg) < len(b.kg)


def test_vectors_not_yet_flushed_when_the_process_dies_are_embedded_again(tmp_path):
    memory = play(tmp_path)  # 5 steps: fewer than the flush interval, and never closed
    expected = [f.id for f in memory.semantic_search("apple")]
    snapshot = memory.snapshot()
    reopened = WorldMemory.open(tmp_path)  # as a new process would after a kill
    assert reopened.snapshot() == snapshot
    assert reopened.embedder.calls > 0  # the lost vectors were recomputed from the log
    assert [f.id for f in reopened.semantic_search("apple")] == expected


@pytest.mark.parametrize("snapshot", [False, True])
def test_a_memory_rewound_to_a_step_is_the_memory_of_that_step(tmp_path, snapshot):
    """What a resumed or forked run opens: the memory as it was after ``rewind_to``'s episode, the rest
    cut from the log (and a snapshot covering the cut steps dropped), so the branch writes its own steps."""
    full = play(tmp_path)
    at_two = {"facts": full.snapshot(2)["facts"], "episodes": full.snapshot(2)["episodes"]}
    if snapshot:
        full.write_snapshot()
    full.close()
    rewound = WorldMemory(tmp_path, rewind_to=2)
    assert sorted(rewound.episodes) == [1, 2]
    assert rewound.last_episode == 2
    assert rewound.snapshot() == at_two
    assert rewound.snapshot(5) == at_two
    assert not (tmp_path / "snapshot").exists()  # it covered steps 3..5
    rewound.observe(3, "A branch of its own.", [("red apple", "is", "eaten")])  # step 3 again, differently
    rewound.close()
    again = WorldMemory.open(tmp_path, check_log=True)
    assert sorted(again.episodes) == [1, 2, 3]
    assert again.episodes[3].text == "A branch of its own."
    assert ("Salt, pepper and chili mix", "on", "shelf") not in again.current()  # step 4's fact is gone
    again.close()
    nothing = WorldMemory(tmp_path, rewind_to=-1)
    assert len(nothing.episodes) == 0
    assert len(nothing.kg) == 0
    assert nothing.last_episode == -1
    nothing.close()


def test_a_damaged_memory_is_refused_by_a_rewind_before_anything_is_cut(tmp_path):
    play(tmp_path).close()
    with sqlite3.connect(tmp_path / MEMORY_FILE) as db:
        db.execute("UPDATE events SET payload = '{}' WHERE seq = 2")
    before = (tmp_path / MEMORY_FILE).read_bytes()
    with pytest.raises(MemoryCorrupted):
        WorldMemory(tmp_path, rewind_to=3)
    assert (tmp_path / MEMORY_FILE).read_bytes() == before
