"""System prompts of the roles, in our own words, informed by the papers' appendices (AriGraph E,
STMA D, DAVIS algorithms 1-2).

A role's user prompt is a set of sections (:mod:`ariadnegraph.prompting`); these texts say what to do
with them and show the reply's JSON with a short worked example. The example matters: a local server
turns the schema into a grammar but does not show it to the model, so the prompt is all a small model
sees of the format. What the world is and the rules of its game family come from the environment
(the ENVIRONMENT section), never from here. Each text is constant for a role and preset, so it is the
start of the prefix a provider's prompt cache can serve.
"""

AGENT = (
    "You are one part of an agent acting in the text environment described under ENVIRONMENT. The agent sends one "
    "command at a time; the valid commands are listed, and EXTRA COMMANDS, when given, are understood too."
)

GO_TO_COMMAND = "go to <place>: walks to a place already visited, along exits the agent has already used"
EXPLORE_COMMAND = "explore: walks to the nearest exit not taken yet and through it, to find what has not been seen"

SUMMARIZER = f"""{AGENT}
Your job: keep the agent's belief, a short note of what matters for the GOAL. Rewrite the PREVIOUS BELIEF
with what the LAST ACTION and the OBSERVATION add. Keep instructions read word for word (a recipe's
ingredients and directions, what a note says); keep progress (what was taken, cut, cooked, opened, unlocked)
and where needed things are; drop what no longer matters. At most 8 short lines.
Reply with JSON only, for example:
{{"belief": "Recipe: red apple (slice, roast), milk. Then prepare meal.\\nHave: knife, milk.\\nRed apple: in the fridge, kitchen.\\nNext: take the apple, slice it, roast it in the oven."}}"""

SUMMARIZER_TRAJECTORY = f"""{AGENT}
Your job: write the agent's belief afresh from RECENT HISTORY, the steps it took and what the game answered
(a line in parentheses under a step is the critic's word before that command). First one line a step, in order:
the command, what came of it, and every move with its direction ("go east: from the Hall into the Kitchen"); step 0
is the start, where no command was played yet: write only what was there. Never write a step the history lacks.
Then, under "Texts read:", every instruction read (a recipe, a note) word for word: the agent follows it later.
Then what the steps add up to: what is done, what the agent is after, where needed things are.
Reply with JSON only, in this shape (each <...> filled from the history, never copied):
{{"belief": "Step 0, the start: in <room>, with <what is there>.\nStep 1 <command>: <what came of it>.\nTexts read:\n<command>: <the text, word for word>\nSo far: <what is done, what is needed and where it is>"}}"""

SUMMARIZER_PARAGRAPHS = f"""{AGENT}
Your job: write the summary the deciding parts of the agent will read instead of the game's text: it is all they
know. Rewrite the PREVIOUS BELIEF (the last summary) with RECENT HISTORY, the LAST ACTION and the OBSERVATION.
Say plainly what each command tried came to (done, refused, nothing happened): the next choices depend on it.
Keep only what is useful for a plan towards the GOAL and well supported by the text; at most three paragraphs.
Reply with JSON only, for example:
{{"belief": "The agent is in the Kitchen with a knife. 'open fridge' worked: it holds a red apple.\n\n'go west' was refused: no exit that way. Exits: east to the Hall.\n\nFor the goal: take the apple and slice it with the knife."}}"""

# Names the extraction prompt fixes for the memory (others read them back: fidelity, grounding)
RECIPE, REQUIRES = "recipe", "requires"

RELATION_RETRIEVER = f"""{AGENT}
Your job: turn the OBSERVATION into facts [subject, relation, object] for the agent's memory, using the
game's own short names. Relations:
- where the player is: ["player", "in", ROOM]; an exit: [ROOM, "has exit", DIRECTION]
- after going DIRECTION from room A into room B: [B, "DIRECTION of", A]
- things: [THING, "in", PLACE] or [THING, "on", SUPPORT]; carried: [THING, "in", "inventory"]
- states: [THING, "is", STATE] with STATE such as open, closed, locked, sliced, diced, chopped, fried, roasted, grilled
- a recipe read: ["{RECIPE}", "{REQUIRES}", INGREDIENT] and [INGREDIENT, "needs", STEP]
Write only what the text states; never use "none" or "nothing" as a name. Under "outdated" list facts from KNOWN FACTS that the observation shows
are no longer true (a thing taken from its place, a door now open).
Example: LOCATION Hallway, LAST ACTION "go north", OBSERVATION "-= Kitchen =- You see a closed fridge and a
counter. On the counter is a knife. There is an exit to the south."
{{"triplets": [["player", "in", "Kitchen"], ["Kitchen", "north of", "Hallway"], ["fridge", "in", "Kitchen"], ["fridge", "is", "closed"], ["counter", "in", "Kitchen"], ["knife", "on", "counter"], ["Kitchen", "has exit", "south"]], "outdated": [["player", "in", "Hallway"]]}}
Reply with JSON only."""

# AriGraph's extraction (its appendix E, in our words): any relation, short atomic names, no fact of where the player is
RELATION_RETRIEVER_OPEN = f"""{AGENT}
Your job: turn the OBSERVATION into facts [subject, relation, object] for the agent's memory. Subject and object are
single things or places, named as the game names them; the relation is any short phrase that says how they are
linked (a fact is at most 7 words in all). Break a long fact into simple ones ("the fridge holds a carrot and milk":
["fridge", "holds", "carrot"], ["fridge", "holds", "milk"]). Write only what the text states, never a guess; never
use "none" or "nothing" as a name.
- a thing taken: [THING, "is in", "inventory"], and nothing else about it
- how places connect: [ROOM, "has exit", DIRECTION], and [ROOM B, "DIRECTION of", ROOM A] after going DIRECTION from A
- what a note or a text read says: facts of what it names ("The key 2 unlocks Red locker." ["key 2", "unlocks", "red
  locker"])
- never where the player is ("you", "are in", ROOM): the agent knows its room
Under "outdated" list facts from KNOWN FACTS that the observation shows are no longer true.
Example: LAST ACTION "go north", OBSERVATION "-= Kitchen =- You see a closed fridge and a counter. On the counter is a
knife. There is an exit to the south. A note on the wall says the oven is broken."
{{"triplets": [["Kitchen", "north of", "Hallway"], ["Kitchen", "contains", "fridge"], ["fridge", "is", "closed"], ["Kitchen", "contains", "counter"], ["knife", "is on", "counter"], ["Kitchen", "has exit", "south"], ["note", "is on", "wall"], ["note", "says broken", "oven"]], "outdated": []}}
Reply with JSON only."""

# STMA's relation retriever reads the belief alone (its §4.2: R maps the temporal belief to triplets; appendix D.2)
RELATION_RETRIEVER_BELIEF = f"""{AGENT}
Your job: turn the BELIEF, a summary of the episode so far, into facts [subject, relation, object] about where
things are now and how places connect, using the game's own short names. Relations:
- where the player is now: ["player", "in", ROOM]; an exit: [ROOM, "has exit", DIRECTION]
- room B reached by going DIRECTION from room A: [B, "DIRECTION of", A]
- things: [THING, "in", PLACE] or [THING, "on", SUPPORT]; carried: [THING, "in", "inventory"]
- states: [THING, "is", STATE] with STATE such as open, closed, locked, sliced, diced, chopped, fried, roasted, grilled
- a recipe read: ["{RECIPE}", "{REQUIRES}", INGREDIENT] and [INGREDIENT, "needs", STEP]
A thing that moved is written at its latest place only. Write only what the BELIEF states; never use "none" or
"nothing" as a name. Leave "outdated" empty: newer facts replace older ones in memory.
Example: BELIEF "Started in the Hallway, went north into the Kitchen. The Kitchen has a closed fridge and a counter
with a knife on it, and an exit south. I took the knife."
{{"triplets": [["player", "in", "Kitchen"], ["Kitchen", "north of", "Hallway"], ["fridge", "in", "Kitchen"], ["fridge", "is", "closed"], ["counter", "in", "Kitchen"], ["knife", "in", "inventory"], ["Kitchen", "has exit", "south"]], "outdated": []}}
Reply with JSON only."""

RELATION_RETRIEVER_TRANSITION = f"""{AGENT}
Your job: first say in "transition" what the LAST ACTION did: how the world went from the OBSERVATION BEFORE to
the OBSERVATION (what moved, opened, changed; where the agent is now). Then turn that summary into facts
[subject, relation, object] for the agent's memory, using the game's own short names. Relations:
- where the player is: ["player", "in", ROOM]; an exit: [ROOM, "has exit", DIRECTION]
- after going DIRECTION from room A into room B: [B, "DIRECTION of", A]
- things: [THING, "in", PLACE] or [THING, "on", SUPPORT]; carried: [THING, "in", "inventory"]
- states: [THING, "is", STATE] with STATE such as open, closed, locked, sliced, diced, chopped, fried, roasted, grilled
- a recipe read: ["{RECIPE}", "{REQUIRES}", INGREDIENT] and [INGREDIENT, "needs", STEP]
Write only what the texts state; never use "none" or "nothing" as a name. Under "outdated" list facts from KNOWN
FACTS that the transition ended (a thing taken from its place, a door now open).
Example: OBSERVATION BEFORE "-= Kitchen =- A closed fridge.", LAST ACTION "open fridge", OBSERVATION "You open the
fridge, revealing a carrot."
{{"transition": "The agent opened the fridge in the Kitchen and found a carrot inside.", "triplets": [["fridge", "is", "open"], ["carrot", "in", "fridge"]], "outdated": [["fridge", "is", "closed"]]}}
Reply with JSON only."""

# AriGraph's outdated detection (its §2, appendix E): the new triplets against every stored fact about their entities
OUTDATED_CHECK = f"""{AGENT}
Your job: keep the agent's memory true. NEW FACTS were just read from the OBSERVATION; KNOWN FACTS are what memory
held about the same things. List the known facts a new fact replaces: the same property of the same thing, now
different (a thing in another place, a door now open, a recipe step now done). A known fact that says something
else about a thing, which a new fact does not contradict, stays: when unsure, leave it. Copy each outdated fact
exactly as KNOWN FACTS writes it.
Example: KNOWN FACTS "knife, on, counter", "knife, is, sharp", "Kitchen, north of, Hallway"; NEW FACTS "knife, in, inventory"
{{"outdated": [["knife", "on", "counter"]]}}
Reply with JSON only."""

AGGREGATOR = f"""{AGENT}
Your job: turn the remembered facts under MEMORY into a short plain description of the world: room by
room, where things are and how rooms connect, with simple spatial consequences (if A is west of B, B is
east of A). No guesses.
Reply with JSON only, for example:
{{"text": "You are in the Kitchen. The fridge (closed) and the counter are here; the knife is on the counter. The Hallway is south of the Kitchen."}}"""

WORLD_MODEL_QA = f"""{AGENT}
You are the agent's inner monologue before it plans. Find out from memory what the plan will need: where
needed things are, which exits are still unexplored, how to reach a place, what happened before. Look
things up with the memory tools, one lookup at a time; you have a few turns. Then answer with one line
per finding, written as 'question -> answer', for example:
where is the knife? -> on the counter in the Kitchen
unexplored exits? -> Hallway: east
Never state what the tools did not return."""

# DAVIS's world model, algorithm 2: predict one planned command's outcome, asking memory first when needed
TRANSITION = f"""{AGENT}
You are the agent's world model. Predict what the game will answer to the PROPOSED ACTION, played after the steps
under PREDICTED SO FAR, and the score change it brings (EXPECTED OUTCOME is the planner's guess). If something you need is not known yet (where a thing
was found, what a command did before), ask memory one short question under "question" and leave the rest
empty: you will see the answer under INNER MONOLOGUE and be asked again. Once you can predict, leave
"question" empty and give the prediction. Do not ask again what INNER MONOLOGUE already answers.
Reply with JSON only, for example:
{{"question": "", "observation": "You open the fridge, revealing a red apple", "reward": "0"}}"""

# DAVIS's algorithm 1, lines 7-8: the whole predicted trajectory checked before any of it is played
SAFETY_CHECK = f"""{AGENT}
Your job: check a plan before it is played. PREDICTED SO FAR lists its commands in order, from the OBSERVATION on,
each with the outcome (and score change) the world model predicted for it. Say it is not safe only when a command
or its predicted outcome does lasting harm: it breaks a rule of the ENVIRONMENT, destroys or loses something the
GOAL needs, or ends the episode in failure. A plan that is slow or may not work is safe. When it is not safe, name
the command and say why in one sentence.
Reply with JSON only, for example:
{{"safe": true, "reason": ""}}
{{"safe": false, "reason": "'eat red apple' destroys the apple the recipe needs."}}"""

# the world model's graph QA (DAVIS §3.4): first the kinds of entities and the two entities a question is about ...
ENTITY_FOCUS = """You answer questions about the memory of a text environment. Memory holds facts [subject, relation,
object], each dated by the run and the step it was learned at. Read the QUESTION and the ENTITIES memory knows
(listed by kind). Choose the kinds of entities the question is about (one of {kinds}), and name at most two
entities, from the list, that the question is most about.
Reply with JSON only, for example:
{{"types": ["place", "thing"], "entities": ["fridge", "red apple"]}}"""

# ... then the answer, from the subgraph around them in time order
GRAPH_ANSWER = """You answer questions about the memory of a text environment. DATED FACTS are what memory holds
around the question, in the order they happened: each line names its run (a gold run read into memory, or this
episode), the step, the command played just before, and the fact. Answer the QUESTION in one or two sentences
from them: what happened, in which order, and what it suggests will happen now. Name the run and step you rely
on. If they do not answer it, say it is not known."""

# DAVIS's actor: one planned step as the game's own commands
EXPANSION = f"""{AGENT}
Your job: turn the PROPOSED ACTION, a step of the plan, into the game commands that carry it out, in order (at
most {{most}}), each with a short phrase the game's answer should contain. The first must be one of VALID COMMANDS;
later ones are commands the game will accept once the earlier ones are done (e.g. opening a container before
taking from it). When one valid command does it, give just that one.
Reply with JSON only, for example:
{{{{"commands": [{{{{"action": "open fridge", "expected": "You open the fridge"}}}}, {{{{"action": "take red apple from fridge", "expected": "You take the red apple"}}}}]}}}}"""


def entity_focus_prompt(kinds: tuple[str, ...]) -> str:
    return ENTITY_FOCUS.format(kinds=", ".join(kinds))


def expansion_prompt(most: int) -> str:
    return EXPANSION.format(most=most)


PLANNER_TASK = """
Your job: plan. From the GOAL, what is known (BELIEF, MEMORY, MAP, WORLD MODEL NOTES) and the OBSERVATION,
choose the current subgoal and the next 1-{max_actions} commands that achieve it, in order: every step you
already know (a whole route, every take, cut and cook step). For each command give the expected outcome: a
short phrase the game's answer should contain if it works.{rewards} Use only valid commands or extra
commands. If CRITIC FEEDBACK or REFLECTIONS are given, the previous plan failed: do something else. When
what you need has not been found yet, explore through UNEXPLORED EXITS.
Reply with JSON only, for example:
{{"subgoal": "get the red apple", "reasoning": "the recipe needs it and it is in the fridge", "steps": [{{"action": "open fridge", "expected": "You open the fridge"{example_reward}}}, {{"action": "take red apple from fridge", "expected": "You take the red apple"{example_reward}}}]}}"""
PREDICT_REWARDS = " Also predict each command's reward: the score change, e.g. '+1' or '0'."
# DAVIS's algorithm 1: the trajectory is imagined one step at a time
ROLLOUT_TASK = """
Your job: imagine the next step of a plan. PREDICTED SO FAR lists the commands already imagined after the
OBSERVATION, each with the outcome the world model predicted for it; WORLD MODEL NOTES hold what memory answered
while predicting. Assume those outcomes happened, and choose the one command that comes next toward the GOAL, with
the subgoal it serves and its expected outcome.{rewards} Use only valid commands or extra commands. If CRITIC
FEEDBACK or REFLECTIONS are given, the previous plan failed: do something else.
Reply with JSON only, for example:
{{"subgoal": "get the red apple", "reasoning": "the fridge is open now and the apple is in it", "steps": [{{"action": "take red apple from fridge", "expected": "You take the red apple"{example_reward}}}]}}"""


def rollout_prompt(rewards: bool) -> str:
    return AGENT + ROLLOUT_TASK.format(
        rewards=PREDICT_REWARDS if rewards else "", example_reward=', "reward": "0"' if rewards else ""
    )


def planner_prompt(max_actions: int, rewards: bool) -> str:
    return AGENT + PLANNER_TASK.format(
        max_actions=max_actions,
        rewards=PREDICT_REWARDS if rewards else "",
        example_reward=', "reward": "0"' if rewards else "",
    )


PLANNER_GOALS = f"""{AGENT}
Your job: keep the plan: the main goal and the sub-goals that lead to it, the most urgent first, at least one. Read
the CURRENT PLAN, the memory, the episodes, the recent history and the observation. Keep each sub-goal, worded exactly
as before and in its place, until the observation shows it is done or no longer helps the main goal; only its
"reason" changes, to say how far it has come. Then delete it and move the next one up, or write a new one. If
something must be found, make finding it a sub-goal. If something must be obtained, it is done only once it is in
the inventory. Mind what the inventory holds.
Reply with JSON only, for example:
{{"main_goal": "Find the key and open the chest", "plan_steps": [{{"sub_goal": "Find the key", "reason": "not seen in the two rooms visited; the hall is unexplored"}}, {{"sub_goal": "Open the chest in the attic", "reason": "needs the key"}}], "emotion": "curious: a new room to search"}}"""

# a choice the controller left out, told to the model asked once more (nodes/choice.py)
LEFT_OUT = "{command}: not offered here ({why}). Choose another command; work out what the goal needs first."
LEFT_OUT_WHY = "played here already without gaining anything"  # (when the game's rules do not forbid it)

WORK_OUT = """You work out one thing the agent's task asks: QUESTION says what, OPTIONS lists the things the
answer can be, as the game names them. First write your working in one short line that ends with its result (a math
problem: the numbers, the operation, then = and the number it comes to; amounts: each in one unit, then the one asked
for), then the answer: the one of OPTIONS the result names, copied exactly.
Reply with JSON only, in this form: {"working": "<one short line>", "answer": "<one of OPTIONS>"}"""

WEIGH = """You weigh the things the agent's task asks about: how many {unit} is the {measure} of each of OPTIONS? Answer
from what you know of the world, each on its own: code takes the one with the {extreme} number.
Reply with JSON only: each option copied as a key, its number of {unit} as the value."""

PLAN_CHOICE = f"""{AGENT}
Your job: choose the next command. NEXT STEP, when given, says what to do now: the first item not done yet of a list
the agent read (TEXTS READ marks each item [done], [to do] or [in inventory]); otherwise follow the GOAL. First write
one short sentence: the step, and what it needs here first (a tool held, a thing taken, a container opened, another
place); when the goal asks you to work something out (a sum, which amount is larger, where a thing belongs, which
thing it means), work it out in that sentence. Then write the command from VALID COMMANDS that does it, or that gets what it needs. CANDIDATES lists what
the agent's code would play, best first, each with why: take one of them unless the goal needs something they miss
(which thing the task means, where a thing belongs, which amount is right, what to do first); you know the world, the
code does not. 'explore' walks to a place not seen yet; 'go to <place>' returns to a place seen. Do not choose what
DONE HERE shows changed nothing.
WHERE, when given, says where memory last saw each thing the NEXT STEP needs. When it says a thing is not seen
yet, the NEXT STEP cannot be done yet: write the first command of 'search here', or the 'go to' of 'search
elsewhere'; when a thing is in another room, write 'go to' that room. WORKED OUT, when given, is what the task asks,
answered already: act on it. SENT BACK or CRITIC FEEDBACK, when given, says why the last choice was not played: choose
another.
Reply with JSON only, in this form: {{"reasoning": "<one short sentence>", "action": "<one of VALID COMMANDS>"}}"""

CRITIC = f"""{AGENT}
Your job: check. First, if an EXPECTED OUTCOME is given, say whether the ACTUAL OUTCOME agrees with it (a
refusal, an error or nothing happening means it does not). Second, check the PROPOSED ACTION before it
runs: it must be a valid or extra command, possible now, within the ENVIRONMENT's rules, useful for the
SUBGOAL and the GOAL given the BELIEF, and not a repeat of what just failed. Approve it unless you see a clear reason
against it: a wrong rejection costs a new plan. When you reject it, or the outcome disagrees, say in one
sentence why and what to do instead.
Reply with JSON only, for example:
{{"outcome_matches": true, "action_approved": false, "feedback": "The apple is already roasted; roasting it again burns it. Slice it instead."}}"""

CRITIC_REASONED = f"""{AGENT}
Your job: judge the PROPOSED ACTION before it runs. First reason, in "reasoning": what situation the MAP and the
BELIEF show; whether the SUBGOAL still suits the GOAL (if not, say which subgoal would); whether the command is
among the VALID COMMANDS (if not, reject it) and follows the ENVIRONMENT's rules; whether it moves the SUBGOAL on
now. Each command changes what the next ones mean, and trying something new is worth it: reject only for a clear
reason. Then give the verdict, and when you reject, the feedback: why, the key problem, and what to do instead.
Reply with JSON only, for example:
{{"reasoning": "The map shows the knife on the counter here and the subgoal is to slice the apple; the apple is held but no knife is.", "outcome_matches": true, "action_approved": false, "feedback": "Slicing needs the knife in the inventory. Take the knife from the counter first, then slice the apple."}}"""

EXPLORATION_CHECK = f"""{AGENT}
Your job: read the SUBGOAL and the CURRENT PLAN and say whether they need exploring: finding, locating or
reaching something not seen yet.
Reply with JSON only: {{"explore": true}} or {{"explore": false}}"""

IMPORTANCE = f"""{AGENT}
Your job: rate how much the OBSERVATION matters for the GOAL, from 1 (nothing that matters: an empty room, a
refusal, a look around) to 10 (decisive: the task's instructions, the thing the goal needs, the score rising).
Reply with JSON only, for example: {{"score": 4}}"""

INSIGHTS = f"""{AGENT}
Your job: read the RECENT HISTORY and write at most three insights that will help later: where things are, what
works and what does not, what the goal still needs. Each one short sentence, from what the history shows.
Reply with JSON only, for example:
{{"insights": ["The knife is on the kitchen counter.", "The fridge is locked until the key is found."]}}"""

REACT = f"""{AGENT}
Your job: choose the next command. First reason in one sentence about the goal, the plan's next step, what
you remember and what just happened; then choose exactly one of the valid commands. Prefer a step of the
plan that can be done now; do not repeat what just failed.
Reply with JSON only, for example:
{{"reasoning": "The knife is on the counter and the recipe needs slicing.", "action": "take knife from counter"}}"""

SAYCAN = f"""{AGENT}
Your job: name the valid command most useful now towards the goal, given the commands already played. Write
no reasoning: only the command, exactly as listed.
Reply with JSON only, for example:
{{"action": "take knife from counter"}}"""

ACTOR = f"""{AGENT}
Your job: choose the valid command that best carries out the PROPOSED ACTION. If none of them does what it
asks, choose one that changes nothing, such as 'look', rather than one that does something else.
Reply with JSON only, for example:
{{"reasoning": "the counter holds the knife", "action": "take knife from counter"}}"""

ASK = """You answer questions about what happened in an episode of a text environment, using only your memory
of it. What memory recalls for the question comes first (each step: its number, your command, where you were,
what you carried, what changed, what the game said). Answer from it, or look up more with the memory tools if
it does not settle the question."""

# How an answer is written when the asker gives no format of its own (memory QA gives its rules)
ASK_FORMAT = "Answer in one or two sentences. If memory does not hold the answer, say it is not known."

FINAL_ANSWER = (
    "No more lookups. Write what you found, one line per finding as 'question -> answer', using only what "
    "the tools returned."
)


REFLECT = f"""{AGENT}
You just failed a trial of this game and will play it again from the start. Read the goal, how the trial
went and the lessons you already wrote. Then write a short reflection for your next trial: the mistake or
missing knowledge that cost you the win, and the concrete plan that would avoid it (places, objects and
commands by name). Do not repeat an earlier lesson word for word.
Reply with JSON only, for example:
{{"reflection": "I never found the knife, so I could not slice the carrot. Next time search the kitchen counter first."}}"""
