"""RAP's experience (memory/experience.py): a gold run's dated transitions as moments, the moments most like the
present found by similarity, each read with the commands its run played next."""

from __future__ import annotations

from ariadnegraph.memory import HashingEmbeddings
from ariadnegraph.memory.embeddings import CachedEmbedder
from ariadnegraph.memory.experience import experience_line, moments, similar_moments
from ariadnegraph.memory.transitions import DatedFact

GOLD = "gold:cooking:1:seed=101"
RUN = [
    DatedFact("player", "in", "kitchen", GOLD, 0, None),
    DatedFact("cookbook", "on", "table", GOLD, 0, None),
    DatedFact("fridge", "is", "open", GOLD, 1, "open fridge"),
    DatedFact("red apple", "in", "fridge", GOLD, 1, "open fridge"),
    DatedFact("red apple", "in", "inventory", GOLD, 2, "take red apple from fridge"),
    DatedFact("red apple", "is", "diced", GOLD, 3, "dice red apple with knife"),
    DatedFact("meal", "in", "inventory", GOLD, 4, "prepare meal"),
]


def test_a_gold_run_is_read_as_its_steps_each_with_its_command_and_what_it_showed() -> None:
    found = moments(list(reversed(RUN)))  # in step order whatever order the store gives
    assert [(m.step, m.action) for m in found] == [
        (0, None),
        (1, "open fridge"),
        (2, "take red apple from fridge"),
        (3, "dice red apple with knife"),
        (4, "prepare meal"),
    ]
    assert set(found[1].facts) == {"fridge is open", "red apple in fridge"}


def test_the_moment_most_like_the_present_comes_first_with_the_commands_played_after_it() -> None:
    found = moments(RUN)
    embed = CachedEmbedder(HashingEmbeddings()).embed
    best = similar_moments("You open the fridge. It holds a red apple.", found, embed, k=2)
    assert best[0].step == 1
    assert len(best) == 2
    line = experience_line(best[0], found)
    assert line == (
        f"[{GOLD}, step 1] after 'open fridge': fridge is open; red apple in fridge -> then: "
        "take red apple from fridge, dice red apple with knife, prepare meal"
    )
    assert experience_line(found[-1], found).endswith("-> then: the run ended")
    assert similar_moments("anything", [], embed, k=3) == []
    assert similar_moments("", found, embed, k=3) == []
