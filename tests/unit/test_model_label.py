"""The scripted model is named as what it is wherever its results print: a rule-based test double."""

from __future__ import annotations

from ariadnegraph.evals.layouts import markdown_tables
from ariadnegraph.evals.suites import get_suite
from ariadnegraph.models import model_label

LABEL = "scripted (rule-based test double, not a language model)"


def _record(model: str) -> dict:
    return {"preset": "ariadne", "model": model, "group": "1", "env": "cooking:1", "seed": 1, "variation": None, "attempt": 1,
            "run_id": "r1", "max_steps": 5, "norm_score": 1.0, "score": 4.0, "max_score": 4.0, "won": True, "steps": 4,
            "llm_calls": 10, "prompt_tokens": 1000, "completion_tokens": 100, "cost_usd": 0.0, "wall_seconds": 1.0,
            "resumed": False, "precision": None, "recall": None, "fidelity": None, "curve": [0.0, 4.0]}


def test_the_test_double_is_labelled_and_a_language_model_is_not():
    assert model_label("scripted") == LABEL
    assert model_label(" scripted ") == LABEL
    assert model_label("openai:gpt-4o-mini") == "openai:gpt-4o-mini"
    assert model_label("local:qwen2.5-1.5b") == "local:qwen2.5-1.5b"


def test_eval_tables_say_the_scripted_rows_are_not_a_language_model():
    suite = get_suite("stma-cooking")
    assert LABEL in markdown_tables(suite, [_record("scripted")])
    assert "test double" not in markdown_tables(suite, [_record("openai:gpt-4o-mini")])


def test_the_twx_table_names_the_double_in_the_same_words_as_every_table():
    record = {**_record("scripted"), "group": "coincollector", "env": "twx:coincollector", "invalid_actions": 0,
              "best_norm_score": 1.0}
    text = markdown_tables(get_suite("tales-twx"), [record])
    assert LABEL in text
    assert "no-LLM" not in text
