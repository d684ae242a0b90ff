"""The records the roles hand each other: feedback a checkpoint written before it was typed holds still reads, and the
actor's ``how`` is stored as the words runs on disk hold."""

from __future__ import annotations

import json

from ariadnegraph.agent.records import How, feedback, feedback_of, feedback_text
from ariadnegraph.nodes.actor import grounding


def test_feedback_a_checkpoint_from_before_holds_as_text_reads_as_the_critics() -> None:
    assert feedback_of("the carrot is raw") == {"by": "critic", "reason": None, "text": "the carrot is raw"}
    assert feedback_text("the carrot is raw") == "the carrot is raw"
    assert feedback_text(feedback("actor", "repeated twice", "repeated")) == "repeated twice"
    assert feedback_of(None) is None
    assert feedback_of("") is None


def test_the_actors_record_is_stored_with_the_words_runs_on_disk_hold() -> None:
    record = grounding("read recipe", None, How.SENT_BACK, why="not valid", reason="not valid")["actor"][0]
    assert json.loads(json.dumps(record))["how"] == "sent back"
    assert How("as_written") is How.AS_WRITTEN  # a trajectory's word reads back as its member
