"""The records the roles hand each other: a step sent back reaches the planner under the name of who sent it, a
checkpoint written before feedback was typed still reads, and the actor's ``how`` is stored as the words runs on disk
hold."""

from __future__ import annotations

import json
import warnings

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from ariadnegraph import prompting as p
from ariadnegraph.agent.records import How, feedback, feedback_of, feedback_text
from ariadnegraph.nodes.actor import grounding
from ariadnegraph.nodes.common import feedback_section


def test_the_actors_feedback_is_headed_sent_back_and_the_critics_critic_feedback() -> None:
    assert feedback_section(feedback("actor", "'read recipe' is not valid", "not valid"), None) == {
        p.SENT_BACK: "'read recipe' is not valid"
    }
    assert feedback_section(feedback("critic", "the carrot is raw"), p.NONE) == {p.FEEDBACK: "the carrot is raw"}
    assert feedback_section(feedback("safety", "the plan burns the meal"), p.NONE) == {
        p.FEEDBACK: "the plan burns the meal"
    }
    assert feedback_section(None, p.NONE) == {p.FEEDBACK: p.NONE}


def test_feedback_a_checkpoint_from_before_holds_as_text_reads_as_the_critics() -> None:
    assert feedback_of("the carrot is raw") == {"by": "critic", "reason": None, "text": "the carrot is raw"}
    assert feedback_text("the carrot is raw") == "the carrot is raw"
    assert feedback_text(feedback("actor", "repeated twice", "repeated")) == "repeated twice"
    assert feedback_of(None) is None
    assert feedback_of("") is None


def test_the_actors_record_is_stored_with_the_words_runs_on_disk_hold() -> None:
    record = grounding("read recipe", None, How.SENT_BACK, why="not valid", reason="not valid")["actor"][0]
    assert json.loads(json.dumps(record))["how"] == "sent back"
    # a plain string, not the enum: a checkpoint holding the enum's type warns when it is read back (LangGraph's
    # msgpack allow-list) and will refuse it
    assert type(record["how"]) is str
    stored = JsonPlusSerializer().dumps_typed(record)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert JsonPlusSerializer().loads_typed(stored) == record
    assert How("as_written") is How.AS_WRITTEN  # a trajectory's word reads back as its member
