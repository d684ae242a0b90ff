"""What a real embedding model changes in AriGraph's semantic search: recall@k of a small hand-labelled
retrieval set, hashing (the zero-install default, lexical) against e5 (multilingual-e5-small, offline).

The memory is a cooking-game house written by hand (42 facts). Each query is what a planner might ask,
worded the way a model words it; its relevant facts were labelled by hand. Half the queries share a
word with a relevant fact ("lexical"), half do not ("semantic": "something sharp to chop with" for the
knife). Recall@k = the share of a query's relevant facts among the first k facts the search returns,
averaged over queries; depth 1 is the embedding ranking alone, depth 2 AriGraph's BFS (the default).

    python benchmarks/retrieval.py
"""

from __future__ import annotations

import time

from ariadnegraph.memory import WorldMemory

FACTS = [
    ("player", "in", "kitchen"),
    ("kitchen", "north of", "living room"),
    ("living room", "west of", "bedroom"),
    ("bathroom", "south of", "corridor"),
    ("backyard", "east of", "corridor"),
    ("shed", "east of", "backyard"),
    ("garden", "north of", "backyard"),
    ("fridge", "in", "kitchen"),
    ("fridge", "is", "closed"),
    ("counter", "in", "kitchen"),
    ("stove", "in", "kitchen"),
    ("oven", "in", "kitchen"),
    ("table", "in", "kitchen"),
    ("knife", "on", "counter"),
    ("cookbook", "on", "table"),
    ("red potato", "in", "fridge"),
    ("carrot", "in", "fridge"),
    ("milk", "in", "fridge"),
    ("yellow bell pepper", "in", "garden"),
    ("red apple", "in", "garden"),
    ("BBQ", "in", "backyard"),
    ("patio chair", "in", "backyard"),
    ("toolbox", "in", "shed"),
    ("shovel", "in", "shed"),
    ("workbench", "in", "shed"),
    ("sofa", "in", "living room"),
    ("TV", "in", "living room"),
    ("bookshelf", "in", "living room"),
    ("bed", "in", "bedroom"),
    ("wardrobe", "in", "bedroom"),
    ("toilet", "in", "bathroom"),
    ("shower", "in", "bathroom"),
    ("towel", "on", "shower"),
    ("wooden door", "between", "kitchen and corridor"),
    ("wooden door", "is", "locked"),
    ("brass key", "in", "wardrobe"),
    ("recipe", "needs", "red potato"),
    ("recipe", "needs", "carrot"),
    ("red potato", "needs", "slicing"),
    ("carrot", "needs", "roasting"),
    ("coin", "in", "toolbox"),
    ("lamp", "on", "bookshelf"),
]

# (query, relevant facts, kind)
QUERIES = [
    ("where is the knife", [("knife", "on", "counter")], "lexical"),
    (
        "what is in the fridge",
        [("red potato", "in", "fridge"), ("carrot", "in", "fridge"), ("milk", "in", "fridge")],
        "lexical",
    ),
    ("where is the brass key", [("brass key", "in", "wardrobe")], "lexical"),
    ("what does the recipe need", [("recipe", "needs", "red potato"), ("recipe", "needs", "carrot")], "lexical"),
    ("where is the BBQ", [("BBQ", "in", "backyard")], "lexical"),
    ("is the wooden door locked", [("wooden door", "is", "locked")], "lexical"),
    ("where is the cookbook", [("cookbook", "on", "table")], "lexical"),
    (
        "what is in the shed",
        [("toolbox", "in", "shed"), ("shovel", "in", "shed"), ("workbench", "in", "shed")],
        "lexical",
    ),
    ("something sharp to chop vegetables with", [("knife", "on", "counter")], "semantic"),
    ("where can I keep food cold", [("fridge", "in", "kitchen")], "semantic"),
    ("what can grill meat outdoors", [("BBQ", "in", "backyard")], "semantic"),
    ("how do I unlock the door", [("brass key", "in", "wardrobe"), ("wooden door", "is", "locked")], "semantic"),
    ("where can I sleep", [("bed", "in", "bedroom")], "semantic"),
    ("instructions for preparing the meal", [("cookbook", "on", "table")], "semantic"),
    ("fruit growing outside", [("red apple", "in", "garden"), ("yellow bell pepper", "in", "garden")], "semantic"),
    ("money hidden somewhere", [("coin", "in", "toolbox")], "semantic"),
]
KS = (3, 5, 10)


def recall(found: list[tuple[str, str, str]], relevant: list[tuple[str, str, str]], k: int) -> float:
    top = {tuple(x.lower() for x in f) for f in found[:k]}
    return sum(tuple(x.lower() for x in r) in top for r in relevant) / len(relevant)


def measure(spec: str) -> tuple[dict[tuple[str, int, int], float], float, float]:
    started = time.perf_counter()
    memory = WorldMemory(embeddings=spec)
    memory.observe(0, "the house, as the agent has come to know it", FACTS)
    built = time.perf_counter() - started
    results: dict[tuple[str, int, int], list[float]] = {}
    started = time.perf_counter()
    for query, relevant, kind in QUERIES:
        for depth in (1, 2):
            found = [f.triplet for f in memory.semantic_search(query, depth=depth, width=10)]
            for k in KS:
                for group in (kind, "all"):
                    results.setdefault((group, depth, k), []).append(recall(found, relevant, k))
    searched = (time.perf_counter() - started) / (2 * len(QUERIES))
    return {key: sum(v) / len(v) for key, v in results.items()}, built, searched


def main() -> None:
    rows = {spec: measure(spec) for spec in ("hashing", "e5")}
    print(
        f"{len(FACTS)} facts, {len(QUERIES)} hand-labelled queries ({sum(q[2] == 'semantic' for q in QUERIES)} share "
        f"no word "
        "with a relevant fact); AriGraph semantic search, width 10\n"
    )
    head = f"{'embeddings':<10} {'queries':<9} {'depth':>5}" + "".join(f"{'R@' + str(k):>8}" for k in KS)
    print(head)
    print("-" * len(head))
    for group in ("lexical", "semantic", "all"):
        for depth in (1, 2):
            for spec, (figures, _, _) in rows.items():
                print(
                    f"{spec:<10} {group:<9} {depth:>5}"
                    + "".join(f"{100 * figures[(group, depth, k)]:>8.1f}" for k in KS)
                )
    print()
    for spec, (_, built, searched) in rows.items():
        print(
            f"{spec}: memory built (facts and entities embedded) in {built:.2f} s; {1000 * searched:.1f} ms per search"
        )


if __name__ == "__main__":
    main()
