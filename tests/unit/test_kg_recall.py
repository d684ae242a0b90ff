"""What memory recalls for a question before any lookup (tools/kg_recall.py), and the ask graph answering from it:
the steps a question names as memory held them (command, place, what was carried, what changed, the game's text),
never anything recorded after the question's ``as_of`` step."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.nodes import common
from ariadnegraph.nodes import world_model_qa as qa
from ariadnegraph.prompting import RECALLED
from ariadnegraph.tools import kg_recall
from ariadnegraph.tools.kg_recall import recall, steps_named
from ariadnegraph.tools.kg_tools import KGReader
from tests.fakes import QueuedChatModel
from tests.recorded import remembered_cooking


@pytest.mark.parametrize(
    ("question", "steps"),
    [
        ("At step 18, what action did you execute?", [17, 18]),
        ("From steps 26 to 30, how many times did you move south?", [25, 26, 27, 28, 29, 30]),
        ("Which location did you stay in longest (within steps 41-45)?", [40, 41, 42, 43, 44, 45]),
        ("What happened at step 0?", [0]),
        ("From steps 5 to 100, where were you?", list(range(4, 17))),  # a long range: its first steps
        ("Where is the knife?", []),
    ],
)
def test_the_steps_a_question_names(question, steps):
    assert steps_named(question) == steps


def test_a_named_step_is_recalled_with_where_the_player_was_and_what_was_carried():
    memory = remembered_cooking()
    lines = recall("After performing the action at step 10, what are all the items you carry?", KGReader(memory, 11))
    step_10 = next(line for line in lines if line.startswith("step 10 > open fridge"))
    assert "you were in Kitchen" in step_10
    assert "carrying: knife, pork chop, tomato" in step_10
    assert "became true:" in step_10
    assert "block of cheese, in, fridge" in step_10
    assert "revealing a block of cheese" in step_10  # the game's text


def test_nothing_recorded_after_the_asked_step_is_recalled():
    memory = remembered_cooking()
    question = "What did you do at step 11 with the 'block of cheese'?"
    before = "\n".join(recall(question, KGReader(memory, 10)))
    assert "take block of cheese" not in before
    assert "block of cheese, in, inventory" not in before
    after = "\n".join(recall(question, KGReader(memory, 11)))
    assert "step 11 > take block of cheese from fridge" in after
    assert "block of cheese: block of cheese, in, inventory" in after  # the quoted name's timeline


def test_the_ask_graph_shows_the_recall_and_takes_an_answer_from_it_at_once(monkeypatch):
    memory = remembered_cooking()
    model = QueuedChatModel(replies=[AIMessage(content='{"answer": "knife, pork chop, tomato"}')])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    graph = qa.build_monologue(lambda state, runtime: KGReader(memory, state.get("as_of"))).compile()
    question = "After performing the action at step 10, what are all the items you carry?"
    result = graph.invoke({"question": question, "as_of": 11, "run_id": "r"}, context=AgentContext(tool_calling="json"))
    assert result["answer"] == "knife, pork chop, tomato"
    (call,) = model.calls  # answered from the recall: no lookup turn
    asked = call["messages"][1].content
    assert RECALLED in asked
    assert "carrying: knife, pork chop, tomato" in asked


def test_the_answer_format_is_the_system_messages_and_never_recalled_for(monkeypatch):
    """Memory QA's rules ("step 0 is the start", "'yes' or 'no'") came with the question and were recalled for: step 0's
    whole text and "no record of 'yes'" filled the 1.5B's prompt. They are the ask graph's answer format now, in the
    system message as the transcript answerers have their rules (under the question the 1.5B answered with the rules'
    own words, 'no' or 'nothing'); a question without a format is answered in sentences."""
    from ariadnegraph.evals.memqa.prompts import MEMORY_RULES
    from ariadnegraph.nodes.prompts import ASK_FORMAT

    memory = remembered_cooking()
    model = QueuedChatModel(replies=[AIMessage(content='{"answer": "take apple"}'), AIMessage(content='{"answer": "an apple"}')])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    graph = qa.build_monologue(lambda state, runtime: KGReader(memory, state.get("as_of"))).compile()
    asked = {"question": "What did you take in 'Kitchen'?", "as_of": 11, "run_id": "r", "answer_format": MEMORY_RULES}
    graph.invoke(asked, context=AgentContext(tool_calling="json"))
    system, shown = (message.content for message in model.calls[0]["messages"][:2])
    assert "reply exactly: not answerable" in system
    assert ASK_FORMAT not in system
    assert "What did you take in 'Kitchen'?" in shown
    assert "not answerable" not in shown
    from ariadnegraph.prompting import QUESTION

    # the recall before the question, as a transcript comes before it (question first, the 1.5B answered from the
    # nearest episode under the recall's first line, 'go west' beside "go north (39 times)")
    assert shown.index(RECALLED) < shown.index(QUESTION)
    recalled = shown[shown.index(RECALLED) : shown.index(QUESTION)]
    assert "step 0 >" not in recalled
    assert "'yes': memory holds no record" not in recalled
    graph.invoke({**asked, "answer_format": None}, context=AgentContext(tool_calling="json"))
    assert ASK_FORMAT in model.calls[1]["messages"][0].content


def test_with_nothing_recalled_the_first_turn_must_look_something_up(monkeypatch):
    from ariadnegraph.memory import WorldMemory

    model = QueuedChatModel(replies=[AIMessage(content='{"tool": "where_to_search"}'), AIMessage(content='{"answer": "not known"}')])
    formats = []
    original = model.bind
    monkeypatch.setattr(type(model), "bind", lambda self, **kwargs: formats.append(kwargs.get("response_format")) or original(**kwargs))
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    graph = qa.build_monologue(lambda state, runtime: KGReader(WorldMemory(), None)).compile()
    result = graph.invoke({"question": "Where is the knife?", "run_id": "r"}, context=AgentContext(tool_calling="json"))
    assert result["answer"] == "not known"
    assert len(model.calls) == 2
    allowed = [[alt["required"][0] for alt in f["json_schema"]["schema"]["anyOf"]] for f in formats]
    assert "answer" not in allowed[0]
    assert "answer" in allowed[1]


def test_the_players_whereabouts_are_counted_in_code_and_nothing_after_the_asked_step():
    """A small model counts steps badly (the 1.5B answered "16" for a two-step stay from a list of visits): where the
    player was over a named range with the steps in each place summed, its stays in a quoted place, the steps spent in
    each place, and what it took where, each counted from memory's facts."""
    memory = remembered_cooking()
    question = "Which location did you stay in longest (within steps 0-4)? How long did you stay in 'Pantry'?"
    lines = recall(question, KGReader(memory, 11))
    assert "where you were, steps 0-4: Pantry steps 0-1 (2 steps), Kitchen steps 2-4 (3 steps); in all: Kitchen 3, Pantry 2" in lines
    assert "your stays in Pantry: steps 0-1 (2 steps)" in lines
    spent = "steps spent in each place: Kitchen 10 (1 visit, first entered at step 2), Pantry 2 (1 visit, first entered at step 0)"
    assert spent in lines
    taken = next(line for line in lines if line.startswith("items you took"))
    assert taken.startswith("items you took, in order: pork chop at step 0 in Pantry, ")
    assert "block of cheese at step 11 in Kitchen; by place: Kitchen 3 (" in taken
    assert taken.endswith("Pantry 1 (pork chop)")
    earlier = next(line for line in recall(question, KGReader(memory, 10)) if line.startswith("items you took"))
    assert "block of cheese" not in earlier
    assert "; by place: Kitchen 2 (" in earlier


def test_the_score_kept_with_each_step_is_recalled_and_when_it_rose():
    """The game's score after each step is kept with its episode (memory_update passes it): a step named shows it, and
    the recall says after which steps it rose; nothing after the asked step."""
    from ariadnegraph.memory import WorldMemory

    memory = WorldMemory()
    for step, (room, score) in enumerate([("Hall", 0), ("Hall", 0), ("Study", 1), ("Study", 1), ("Hall", 3)]):
        memory.observe(step, f"-= {room} =-", [("player", "in", room)], action=None if step == 0 else "go east",
                       score=score)  # fmt: skip
    lines = recall("After performing the action at step 2, what was the cumulative reward so far?", KGReader(memory))
    assert any(line.startswith("step 2 > go east") and "score after it: 1" in line for line in lines)
    assert "your score rose after step 2 (to 1), step 4 (to 3)" in lines
    assert "your score rose after step 2 (to 1)" in recall("what was the reward at step 3?", KGReader(memory, 3))


def test_a_quoted_name_memory_never_met_is_recalled_as_having_no_record_and_nothing_else():
    """EMemBench's false premises quote things the episode never had ("After first obtaining 'yoga mat', ..."): memory
    says it holds no record of a name no fact and no observation holds, the answer rules' words first, and recalls
    nothing else (the 1.5B answered from the steps and facts recalled beside it); a name it met gets no such line."""
    memory = remembered_cooking()
    lines = recall("After first obtaining 'yoga mat', what did you do 2 steps later? Was 'Pantry' visited?", KGReader(memory))
    assert lines == ["'yoga mat': memory holds no record of it in this episode, so a question about it is answered: not answerable"]
    # an answer format's words and a command played are no things memory should have met
    quoting = recall("Was 'open fridge' played? Answer in 'yes' or 'no'.", KGReader(memory))
    assert not any("no record" in line for line in quoting)
    cheese = "After first obtaining 'block of cheese', what did you do?"
    assert any("no record" in line for line in recall(cheese, KGReader(memory, 2)))  # not yet met at step 2
    assert not any("no record" in line for line in recall(cheese, KGReader(memory)))


def _walked_with_a_coin():
    """Hall and Study in turn, a coin taken at step 2, dropped at 3 and taken again at 5 (six steps, scores kept)."""
    from ariadnegraph.memory import WorldMemory

    memory = WorldMemory()
    rooms = ["Hall", "Study", "Study", "Hall", "Hall", "Study"]
    for step, room in enumerate(rooms):
        facts = [("player", "in", room)] + ([("coin", "in", "inventory")] if step in (2, 5) else [])
        facts += [("coin", "in", room)] if step == 3 else []
        memory.observe(step, f"-= {room} =- text of step {step}", facts, action=None if step == 0 else f"act {step}",
                       score=step // 2)  # fmt: skip
    return memory


def test_a_step_dated_from_an_event_is_counted_in_code_and_settles_the_question():
    """EMemBench's multi-hop questions date a step from an event ("After first obtaining 'milk', what was the
    observation 1 step(s) later?"): the 1.5B, given when milk was taken among the whereabouts, answered 'nothing' or
    the wrong step. Memory dates the event (a thing first or last carried, a place first entered or left), counts the
    steps in code, and recalls that step whole and nothing else; never a step after the asked one."""
    memory = _walked_with_a_coin()
    lines = recall("After first obtaining 'coin', what was the observation 2 step(s) later?", KGReader(memory))
    assert len(lines) == 1
    assert lines[0].startswith("2 steps after you first took 'coin' (step 2): step 4 > act 4 | ")
    assert "you were in Hall" in lines[0]
    assert "score after it: 2" in lines[0]
    assert "text of step 4" in lines[0]
    last = recall("After last obtaining 'coin', what action was executed 1 step before?", KGReader(memory))
    assert last[0].startswith("1 step before you last took 'coin' (step 5): step 4 > act 4")
    entered = recall("After first entering 'Study', where were you 2 steps later?", KGReader(memory))
    assert entered[0].startswith("2 steps after you first entered 'Study' (step 1): step 3 > act 3 | you were in Hall")
    left = recall("After first leaving 'Study', what action was executed 1 step later?", KGReader(memory))
    assert left[0].startswith("1 step after you first left 'Study' (step 3): step 4 > act 4")
    before = recall("After first obtaining 'coin', what was the observation 3 step(s) later?", KGReader(memory, 4))
    assert not any("step 5" in line or "act 5" in line for line in before)  # step 5 not played yet at step 4
    # the count before the event, and a paraphrase's wording
    assert recall("What was the action 1 step after the first time you took 'coin'?", KGReader(memory))[0].startswith(
        "1 step after you first took 'coin' (step 2): step 3 > act 3")
    # a possessive's apostrophe quotes nothing: no false premise
    possessive = recall("Where was the player's location 2 steps after they first obtained 'coin'?", KGReader(memory))
    assert possessive[0].startswith("2 steps after you first took 'coin' (step 2): step 4")
    assert not any("no record" in line for line in possessive)


def test_the_steps_of_an_event_a_question_names_without_a_count_are_all_recalled():
    """A question about an event with no count of steps from it ("how many steps later was 'coin' obtained again?")
    gets every step memory dates the event at, beside the whereabouts; nothing dated after the asked step."""
    memory = _walked_with_a_coin()
    question = "After first obtaining 'coin', how many steps later was 'coin' obtained again?"
    assert "you first took 'coin' at step 2; every time: steps 2, 5 (2 times)" in recall(question, KGReader(memory))
    assert "you first took 'coin' at step 2 (the only time)" in recall(question, KGReader(memory, 4))
    assert "you first left 'Study' at step 3 (the only time)" in recall("Before first leaving 'Study', had you ever obtained 'coin'?", KGReader(memory))
    assert "you last entered 'Study' at step 5; every time: steps 1, 5 (2 times)" in recall("At which step did you last arrive at 'Study'?", KGReader(memory))


def test_a_thing_carried_from_the_start_was_never_obtained_there():
    """A thing held at step 0 was not obtained then (EMemBench's gains start after it): dropped and taken again, its
    first taking is the later one."""
    from ariadnegraph.memory import WorldMemory

    memory = WorldMemory()
    held = {0: [("lamp", "in", "inventory")], 1: [("lamp", "on", "floor")], 3: [("lamp", "in", "inventory")]}
    for step in range(5):
        memory.observe(step, f"text {step}", [("player", "in", "Hall"), *held.get(step, [])], action=f"act {step}" if step else None)
    assert "you first took 'lamp' at step 3 (the only time)" in recall("When did you first obtain 'lamp'?", KGReader(memory))


def test_a_memory_qa_horizon_is_no_range_of_steps():
    """Memory QA's horizon prefix ("Considering only steps 0 to 5: ") is read as as_of, not as a range: no route over
    it, no steps 0-5 recalled before the question's own."""
    memory = _walked_with_a_coin()
    lines = recall("Considering only steps 0 to 5: After first obtaining 'coin', what was the observation 2 step(s) later?",
                   KGReader(memory, 5))  # fmt: skip
    assert len(lines) == 1
    assert lines[0].startswith("2 steps after you first took 'coin' (step 2): step 4")
    asked = recall("Considering only steps 0 to 5: At step 3, what action did you execute?", KGReader(memory, 5))
    assert [line.split(" |")[0] for line in asked[:2]] == ["step 2 > act 2", "step 3 > act 3"]
    assert not any(line.startswith("where you were, steps 0-5") for line in asked)


def test_whereabouts_stay_short_on_a_long_episode_and_say_nothing_of_steps_not_played():
    """A long episode (two rooms in turn, 400 steps) gives each recall line its first stays, places, items or rises and
    counts the rest; a range past the asked step is cut there, and one with no step recorded gives no line."""
    from ariadnegraph.memory import WorldMemory

    memory = WorldMemory()
    for step in range(400):
        memory.observe(step, "-= Hall =-" if step % 2 else "-= Study =-", [("player", "in", "Hall" if step % 2 else "Study"),
                       (f"coin {step}", "in", "inventory")], score=step)  # fmt: skip
    lines = recall("Where were you within steps 10-390? How long in 'Hall'?", KGReader(memory, 200))
    route = next(line for line in lines if line.startswith("where you were, steps 10-200:"))
    assert route.count("(1 step)") == 12
    assert "... and 179 more stays; in all: " in route
    assert next(line for line in lines if line.startswith("your stays in Hall")).endswith("... and 88 more stays")
    assert next(line for line in lines if line.startswith("items you took")).count(" at step ") == 12
    assert next(line for line in lines if line.startswith("your score rose")).endswith("... and 188 more rises")
    assert max(map(len, lines)) < 2_000
    assert not any(line.startswith("where you were") for line in recall("within steps 300-310?", KGReader(memory, 200)))


def test_the_commands_played_are_counted_for_a_question_about_how_often_an_action_was_played():
    """"What is the most frequent action executed?": the 1.5B, given steps, named one it saw; memory counts them, the
    most played first, up to the asked step; a question about one step's action gets no count to copy from."""
    from ariadnegraph.memory import WorldMemory

    memory = WorldMemory()
    for step, action in enumerate([None, "go east", "go west", "go east", "open box", "go east"]):
        memory.observe(step, f"text {step}", [("player", "in", "Hall")], action=action)
    lines = recall("What is the most frequent action executed?", KGReader(memory))
    assert "actions you executed, most frequent first: go east (3 times), go west (1 time), open box (1 time)" in lines
    assert "actions you executed, most frequent first: go east (2 times), go west (1 time)" in recall(
        "What is the most frequent action executed?", KGReader(memory, 3))
    for question in ("Where is the coin?", "At step 3, what action did you execute?", "Before performing the action at step 2, where were you?"):
        assert not any(line.startswith("actions you executed") for line in recall(question, KGReader(memory)))


def _rooms_in_a_row():
    """Hall -east-> Study -east-> Den -north-> Attic on the map; the player walks Hall, Study, Den, Study, Den, Attic."""
    from ariadnegraph.memory import WorldMemory

    memory = WorldMemory()
    walk = [("Hall", None), ("Study", "go east"), ("Den", "go east"), ("Study", "go west"), ("Den", "go east"), ("Attic", "go north")]
    edges = {"Study": ("Study", "east of", "Hall"), "Den": ("Den", "east of", "Study"), "Attic": ("Attic", "north of", "Den")}
    for step, (room, action) in enumerate(walk):
        memory.observe(step, f"-= {room} =-", [("player", "in", room), *([edges[room]] if room in edges else [])], action=action)
    return memory


def test_a_question_about_moves_gets_the_map_worked_out_in_code():
    """EMemBench's spatial questions (how far, which is closer, where a list of moves leads, how many moves a direction):
    the 1.5B, given the steps, could not walk the map. Memory's map answers them: the places by moves from the first place
    the question names (quoted, or where the player was at a step it names), with how many are that near, the fewest
    moves to each other place, where its directions lead, and the moves made over a range it names."""
    memory = _rooms_in_a_row()
    lines = recall("How many distinct locations are reachable from 'Hall' within 2 moves? Is 'Attic' closer?", KGReader(memory))
    reach = "places you could reach from Hall on the map you saw: within 1 move: 1 place (Study); within 2 moves: 2 places (adds Den); within 3 moves: 3 places (adds Attic)"
    assert reach in lines
    assert "fewest moves from Hall to Attic: 3 (east to Study, east to Den, north to Attic)" in lines
    between = recall("What is the shortest path length (in moves) between your locations at steps 1 and 5?", KGReader(memory))
    assert "fewest moves from Study to Attic: 2 (east to Den, north to Attic)" in between
    assert "from Study: east leads to Den, then north leads to Attic" in recall(
        "At step 3, if you moved east, then north, which location would you reach?", KGReader(memory))
    assert "from Study: east leads to Den, then no exit south known" in recall(
        "At step 1, if you moved east, then south, which location would you reach?", KGReader(memory))
    assert "moves you made, steps 1-4: east 3, west 1 (4 in all)" in recall(
        "From steps 1 to 4, how many times did you move east?", KGReader(memory))
    assert "moves you made, steps 1-3: east 2, west 1 (3 in all)" in recall(  # nothing after the asked step
        "From steps 1 to 4, how many times did you move east?", KGReader(memory, 3))
    assert not any(line.startswith("places you could") for line in recall("What did you carry in 'Hall'?", KGReader(memory)))
    # the place a question moves "from" first; a named step where memory held the player nowhere gives no map lines
    reachable = recall("Is 'Attic' reachable from 'Hall' within 2 moves?", KGReader(memory))
    assert next(line for line in reachable if line.startswith("places you could")).startswith("places you could reach from Hall")
    assert not any(line.startswith(("places you could", "fewest")) for line in recall(
        "Which is closer, 'Den' or 'Hall', from your location at step 9?", KGReader(memory, 5)))
    # "picked up" and a quoted name's direction word are no walk
    assert not any(line.startswith("from ") for line in recall("After you picked up 'North Box', which places could you reach from 'Hall'?", KGReader(memory)))


def test_named_moves_of_scienceworld_are_said_as_its_commands():
    """ScienceWorld's moves name a room ('go to kitchen'): the fewest moves and the moves made say so, not "to kitchen
    to kitchen"."""
    from ariadnegraph.memory import WorldMemory

    memory = WorldMemory()
    walk = [("hallway", None), ("kitchen", "go to kitchen"), ("hallway", "go to hallway"), ("greenhouse", "go to greenhouse")]
    for step, (room, action) in enumerate(walk):
        exits = [("hallway", "has exit", "kitchen"), ("kitchen", "has exit", "hallway"), ("hallway", "has exit", "greenhouse")]
        memory.observe(step, f"This room is called the {room}.", [("player", "in", room), *exits], action=action)
    lines = recall("What is the shortest path (in moves) from 'kitchen' to 'greenhouse'? Moves within steps 1-3?", KGReader(memory))
    assert "fewest moves from kitchen to greenhouse: 2 (go to hallway, go to greenhouse)" in lines
    assert "moves you made, steps 1-3: go to kitchen 1, go to hallway 1, go to greenhouse 1 (3 in all)" in lines


def test_a_step_memory_held_the_player_nowhere_does_not_split_a_stay():
    """A step with no place recorded between two in one room is part of that stay (no move is known there), so it
    is no new arrival; a step elsewhere still ends it."""
    assert kg_recall.stays(["Kitchen", None, "Kitchen", "Hall", None, "Kitchen"]) == [
        ("Kitchen", 0, 2),
        ("Hall", 3, 3),
        ("Kitchen", 5, 5),
    ]
    assert kg_recall.time_spent(kg_recall.stays([None, "Hall", None, None, "Hall"])) == [("Hall", 4, 1, 1)]


# every tool with arguments that touch the recorded game's things, places and steps
_EVERY_TOOL = [("search_facts", {"query": "cheese"}), ("entity_neighbourhood", {"entity": "fridge", "hops": 2}),
               ("entity_timeline", {"entity": "block of cheese"}), ("where_is", {"entity": "knife"}),
               ("what_is_in", {"container": "fridge"}), ("path_between", {"start": "pantry", "goal": "kitchen"}),
               ("unexplored_exits", {}), ("where_to_search", {}), ("search_episodes", {"query": "fridge"}),
               ("step_changes", {"first": 0, "last": 10**9}), ("observation_at", {"step": 11})]  # fmt: skip


@pytest.mark.parametrize("asked", [10**7, 2**63 - 1, 10**30])
def test_a_step_past_the_runs_end_is_read_as_of_its_last_step_at_what_the_run_costs(asked):
    """`ask --as-of 100000000` on a 20-step run laid out a list of 10^8 steps (943 MB, 32 s); 2**63-1 could not be
    laid out at all. Past its last step, memory is read as of that step: the same answers, at the run's cost."""
    import tracemalloc

    from ariadnegraph.tools.kg_tools import KG_TOOLS, call_kg_tool

    memory = remembered_cooking()
    last = KGReader(memory).now
    past, at_end = KGReader(memory, asked), KGReader(memory, last)
    assert (past.at, past.now, past.past_end) == (last, last, True)
    assert not at_end.past_end
    assert {name for name, _ in _EVERY_TOOL} == {t.name for t in KG_TOOLS}
    question = "Where were you within steps 0-100000000? What did you do at step 11 with the 'block of cheese'?"
    tracemalloc.start()
    try:
        said = recall(question, past)
        answers = [call_kg_tool({"name": n, "args": a, "id": "c", "type": "tool_call"}, past).content for n, a in _EVERY_TOOL]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 << 20
    assert said == recall(question, at_end)
    assert answers == [call_kg_tool({"name": n, "args": a, "id": "c", "type": "tool_call"}, at_end).content for n, a in _EVERY_TOOL]


def test_the_ask_graph_answers_a_step_past_the_runs_end_as_of_its_last_and_says_so(monkeypatch):
    from ariadnegraph.agent.readers import MemoryView
    from ariadnegraph.graphs import qa as ask

    memory = remembered_cooking()
    last = KGReader(memory).now
    monkeypatch.setattr(ask, "memory_view", lambda run_id, run_dir: MemoryView(memory=memory))
    model = QueuedChatModel(replies=[AIMessage(content='{"answer": "in the fridge"}')] * 3)
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    question = {"run_id": "r", "question": "What did you do at step 11 with the 'block of cheese'?"}
    past = ask.local_ask_graph.invoke({**question, "as_of": 2**63 - 1}, context=AgentContext(tool_calling="json"))
    assert past["answer"] == "in the fridge"
    assert past["as_of"] == last
    assert past["note"] == f"step {2**63 - 1} is past the run's last step, {last}: answered as of it"
    huge = ask.local_ask_graph.invoke({**question, "as_of": 10**5000}, context=AgentContext(tool_calling="json"))
    assert huge["note"] == f"step ~2**16609 is past the run's last step, {last}: answered as of it"  # not 5001 digits
    within = ask.local_ask_graph.invoke({**question, "as_of": last}, context=AgentContext(tool_calling="json"))
    assert within["as_of"] == last
    assert "note" not in within
