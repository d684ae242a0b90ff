"""Snapshots beside the event log: a memory reopened from its snapshot (and the events after it) is the
memory that wrote it, fact for fact, step for step and search for search, and the memory the full
replay of the log gives; a snapshot that is damaged or belongs to another log is ignored (the log is
replayed) and replaced by the next one; a log whose events the snapshot covers was edited is refused as
damaged by the checks run before a run is continued or read, as it is without a snapshot.

(A replay reads the vectors back from Chroma, whose copies may differ from the written ones in their
last bits: searches are compared with the writer's, the rest with the replay too.)"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from ariadnegraph.memory import MemoryCorrupted, WorldMemory
from ariadnegraph.memory import world as world_module
from ariadnegraph.memory.snapshot import SNAPSHOT_DIR

ROOMS = ["kitchen", "hall", "garden", "cellar", "attic", "study"]
THINGS = ["red apple", "knife", "brass key", "cookbook", "carrot", "lamp", "coin", "towel"]
QUERIES = ["where is the knife", "red apple", "brass key in the cellar", "cookbook", "way to the attic"]


def play(memory: WorldMemory, steps: range, seed: int) -> None:
    rng = random.Random(seed)
    for step in steps:
        room = rng.choice(ROOMS)
        triplets = [("player", "in", room), (rng.choice(THINGS), rng.choice(["in", "on"]), rng.choice([*ROOMS, "inventory"]))]
        if rng.random() < 0.5:
            triplets.append((rng.choice(ROOMS), rng.choice(["north of", "east of"]), room))
        memory.observe(step, f"-= {room.title()} =- You see a {rng.choice(THINGS)}. Step {step}.", triplets,
                       action=f"go {rng.choice(['north', 'east', 'south', 'west'])}",
                       score=step // 7 if step % 3 else None)  # the game's score, where one was given


STRUCTURE = ("facts", "current", "episodes", "as_of", "path", "location")


def structure(found: dict) -> dict:
    return {k: found[k] for k in STRUCTURE}


def fingerprint(memory: WorldMemory) -> dict:
    return {
        "facts": [(f.id, f.triplet, f.valid_from, f.valid_to, f.recorded_at, f.source) for f in memory.kg.all_facts],
        "current": sorted(memory.current().triplets()),
        "episodes": [(e.step, e.text, e.action, sorted(e.fact_ids), e.score) for _, e in sorted(memory.episodes.items())],
        "search": [[f.id for f in memory.semantic_search(q)] for q in QUERIES],
        "stma": [[f.id for f in memory.stma_retrieve(q)] for q in QUERIES],
        "as_of": [sorted(memory.as_of(step).triplets()) for step in (5, 50, 150)],
        "past_search": [[f.id for f in memory.semantic_search(q, as_of=60)] for q in QUERIES],
        "episodic": [[e.step for e, _ in memory.episodic_search(memory.semantic_search(q), k=3)] for q in QUERIES],
        "path": memory.path("kitchen", "attic"), "location": memory.location(),
        "visited": memory.visited_rooms(), "opened": sorted(memory.ever_open()),
        "last_seen": [memory.last_seen(memory.key(thing)) for thing in THINGS],
    }


WRITTEN: dict[str, dict] = {}  # the writer's fingerprint, per memory folder


@pytest.fixture
def saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(world_module, "SNAPSHOT_MIN_EVENTS", 50)
    with WorldMemory(tmp_path / "memory", vector_flush_steps=1000) as memory:
        play(memory, range(0, 200), seed=1)
        WRITTEN[str(tmp_path)] = fingerprint(memory)
    assert (tmp_path / "memory" / SNAPSHOT_DIR / "manifest.json").is_file()  # written on close
    return tmp_path / "memory"


def replayed(path: Path, tmp_path: Path) -> dict:
    """The same memory opened from its log alone."""
    bare = tmp_path / "bare"
    shutil.rmtree(bare, ignore_errors=True)
    shutil.copytree(path, bare)
    shutil.rmtree(bare / SNAPSHOT_DIR)
    with WorldMemory(bare) as memory:
        return fingerprint(memory)


def test_a_snapshot_reopens_the_memory_the_log_replays(saved: Path, tmp_path: Path) -> None:
    with WorldMemory(saved) as memory:
        assert memory._snapshot_events > 0  # it was used
        found = fingerprint(memory)
    assert found == WRITTEN[str(tmp_path)]
    assert structure(found) == structure(replayed(saved, tmp_path))


def test_events_after_the_snapshot_are_replayed_on_top(saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(world_module, "SNAPSHOT_MIN_EVENTS", 10_000)  # the next close leaves the old snapshot
    with WorldMemory(saved) as memory:
        covered = memory._snapshot_events
        play(memory, range(200, 230), seed=2)
        written = fingerprint(memory)
    with WorldMemory(saved) as memory:
        assert memory._snapshot_events == covered
        assert sorted(memory.episodes)[-1] == 229
        found = fingerprint(memory)
    assert found == written
    assert structure(found) == structure(replayed(saved, tmp_path))


@pytest.mark.parametrize("damage", ["vectors", "state", "other_log"])
def test_a_bad_snapshot_is_ignored_and_replaced(saved: Path, tmp_path: Path, damage: str, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = saved / SNAPSHOT_DIR
    if damage == "vectors":
        data = bytearray((snapshot / "fact_vectors.npy").read_bytes())
        data[-7] ^= 0xFF
        (snapshot / "fact_vectors.npy").write_bytes(bytes(data))
    elif damage == "state":
        (snapshot / "state.json").write_bytes((snapshot / "state.json").read_bytes()[:-40])
    else:  # a whole, valid snapshot of another memory
        with WorldMemory(tmp_path / "other", vector_flush_steps=1000) as other:
            play(other, range(0, 200), seed=9)
        shutil.rmtree(snapshot)
        shutil.copytree(tmp_path / "other" / SNAPSHOT_DIR, snapshot)
    with WorldMemory(saved) as memory:
        assert memory._snapshot_events == 0  # not used: the log was replayed
        assert structure(fingerprint(memory)) == structure(WRITTEN[str(tmp_path)])
        play(memory, range(200, 201), seed=3)  # a writer...
    with WorldMemory(saved) as memory:
        assert memory._snapshot_events > 0  # ...left a good one


def test_a_snapshot_of_the_first_format_is_still_read(saved: Path, tmp_path: Path) -> None:
    """Format 1 digested its files with sha256 (format 2: XXH3-128); finished runs keep theirs, and a reader
    must not fall back to replaying the whole log because the digest changed."""
    import hashlib

    manifest_path = saved / SNAPSHOT_DIR / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["format"] == 2
    manifest["format"] = 1
    manifest["files"] = {name: hashlib.sha256((saved / SNAPSHOT_DIR / name).read_bytes()).hexdigest() for name in manifest["files"]}
    manifest_path.write_text(json.dumps(manifest))
    with WorldMemory(saved) as memory:
        assert memory._snapshot_events > 0
        assert fingerprint(memory) == WRITTEN[str(tmp_path)]
    manifest["files"]["state.json"] = "0" * 64  # a format-1 digest that does not match is refused as before
    manifest_path.write_text(json.dumps(manifest))
    with WorldMemory(saved) as memory:
        assert memory._snapshot_events == 0


def test_episodes_written_before_scores_were_kept_still_read(saved: Path, tmp_path: Path) -> None:
    """A snapshot's episode rows had four columns before the score was kept with an episode: read as no score."""
    from ariadnegraph.memory import Episode
    from ariadnegraph.memory.snapshot import _episode

    assert _episode([3, "-= Hall =-", "go east", [1, 2]]).score is None
    assert _episode([3, "-= Hall =-", "go east", [1, 2], 2.0]).score == 2.0
    logged = {"step": 3, "text": "-= Hall =-", "action": "go east", "fact_ids": [1, 2]}  # a log's event before scores
    assert Episode.from_dict(logged).score is None
    assert Episode.from_dict({**logged, "score": 2.0}).score == 2.0
    assert "score" not in Episode.from_dict(logged).to_dict()  # written back as it was
    with WorldMemory(saved) as memory:
        scores = [e.score for _, e in sorted(memory.episodes.items())]
    assert scores[:8] == [None, 0, 0, None, 0, 0, None, 1]


def edit_event(memory_file: Path, seq: int) -> None:
    """Change one event's payload and nothing else (its stored chain value, the head): an edit under an
    intact chain column."""
    with sqlite3.connect(memory_file) as db:
        (text,) = db.execute("SELECT payload FROM events WHERE seq = ?", (seq,)).fetchone()
        payload = json.loads(text)
        payload["object" if "object" in payload else "text"] += " (edited)"
        db.execute("UPDATE events SET payload = ? WHERE seq = ?", (json.dumps(payload, sort_keys=True, separators=(",", ":")), seq))
    db.close()


def test_an_event_edited_under_a_snapshot_is_refused_as_damaged(saved: Path, tmp_path: Path) -> None:
    with WorldMemory(saved) as memory:
        assert memory._snapshot_events > 3  # event 3 is covered by the snapshot: not replayed on open
    edit_event(saved / world_module.MEMORY_FILE, 3)
    with pytest.raises(MemoryCorrupted, match="damaged at event 3"):
        WorldMemory(saved, check_log=True)
    bare = tmp_path / "bare"
    shutil.copytree(saved, bare)
    shutil.rmtree(bare / SNAPSHOT_DIR)
    with pytest.raises(MemoryCorrupted, match="damaged at event 3"):  # the same verdict without a snapshot
        WorldMemory(bare)


def test_check_run_refuses_a_run_whose_memory_was_edited_under_its_snapshot(tmp_path: Path) -> None:
    from ariadnegraph.agent.context import AgentContext
    from ariadnegraph.agent.integrity import check_copy
    from ariadnegraph.play import Episode, play
    from ariadnegraph.runs import RunCorrupted, RunDir

    play(Episode("cooking:1", seed=1, max_steps=4), context=AgentContext(run_dir=str(tmp_path)), run_id="edited")
    run = RunDir.open(tmp_path, "edited")
    with WorldMemory(run.memory_path) as memory:
        memory.write_snapshot()  # (a writer leaves one past 2,000 events; this run is shorter)
        covered = memory._snapshot_events
    assert covered > 3
    check_copy(run)  # whole: passes
    edit_event(run.memory_path / world_module.MEMORY_FILE, 3)
    with pytest.raises(RunCorrupted, match="memory is damaged .*damaged at event 3"):
        check_copy(run)
