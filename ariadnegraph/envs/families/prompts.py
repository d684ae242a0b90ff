"""What the agent's roles are told about each game family (the ENVIRONMENT section), in our own words. A family's
rules are stated here, not in the roles' generic prompts; its module (envs/families/) picks its brief."""

from collections.abc import Sequence

TEXTWORLD = (
    "A text adventure game (TextWorld). Rooms are joined by exits (north, south, east, west); things lie in rooms, "
    "inside containers or on supports; doors and containers can be closed or locked and keys open them. You act by "
    "sending one short command at a time, such as 'go north', 'open fridge', 'take apple from fridge', 'examine "
    "cookbook', 'inventory'. The game answers in text, and the score rises when you make progress."
)


def cooking_rules(appliances: str) -> str:
    """The cooking rules, with where the family's games do each way of cooking (``appliances``: rendered from the
    family's table, textworld_cooking.appliance_rules)."""
    return (
        "Cooking rules: read the recipe in the cookbook first. Take every ingredient it lists. Cut (slice, dice, chop) "
        f"only with the knife in your inventory. Cook each ingredient exactly once, with the appliance its direction "
        f"names: {appliances}; cooking it again burns it. When every ingredient is prepared, 'prepare meal' in the "
        "kitchen, then 'eat meal'. Eating anything else (an ingredient, raw or cooked) loses the game."
    )


def scienceworld(heat_sources: Sequence[str], cold: str) -> str:
    """ScienceWorld's brief, with the family's own tables of what heats (``heat_sources``) and what cools (``cold``), so
    the rule the code plays by and the one the model is told are one."""
    sources = ", ".join(f"a {source}" if source[0] not in "aeiou" else f"an {source}" for source in heat_sources[:-1])
    last = heat_sources[-1]
    sources = f"{sources} or {'an' if last[0] in 'aeiou' else 'a'} {last}" if sources else f"a {last}"
    return (
        "A text simulation of elementary science tasks (ScienceWorld): rooms of a house, a workshop, a greenhouse and "
        "the outdoors, with substances, containers, devices, plants and animals. You act by sending one command at a "
        "time from the valid commands, such as 'open door to kitchen', 'go to kitchen', 'pick up thermometer', 'use "
        "thermometer on water', 'wait'. The task says what to do and what to focus on: 'focus on X' is your answer, "
        "and focusing on anything the task does not mean fails the task at once. Heat changes what a thing is: to melt "
        f"or boil something, put it (or a container holding it) in or on a heat source such as {sources}, activate the "
        f"source and wait a few steps; to freeze it, put it in a {cold}; 'use thermometer on X' reads a temperature. A "
        "door may be closed: open it to go through; 'teleport to ROOM', when listed, goes to any room at once. The "
        "score (0-100) rises as you complete its steps."
    )


# How ScienceWorld does what a task asks, by the words of its goal (from the game's walkthroughs): a task says what to
# find out, not how (a conductivity test's circuit, a melting point's thermometer and heat source)
SCIENCEWORLD_TASKS = {
    "electrically": (
        "To test whether a thing conducts electricity, make a loop in the workshop with 'connect X to Y' commands: "
        "the battery's anode to a wire, that wire to a light bulb (or the electric motor), the bulb's other side to a "
        "second wire, that wire to the thing's terminal 1, the thing's terminal 2 to a third wire, and that wire to the "
        "battery's cathode; then 'wait'. If the bulb lights (or the motor turns), the thing conducts electricity."
    ),
    "paint": (
        "Paint colours mix: pour two primary paints (red, yellow, blue) into one container such as a bowl or a jar, "
        "then 'mix' that container. Red and yellow make orange, yellow and blue make green, red and blue make violet; "
        "a secondary colour mixed with a primary one next to it makes a tertiary colour (yellow-orange, blue-green)."
    ),
    "temperature": (
        "To measure a thing's temperature: pick up the thermometer, go where the thing is, and 'use thermometer on' "
        "it; the game says the temperature it measures."
    ),
    "melting point": (
        "To measure a melting point: carry the thermometer, put the substance in a metal pot on a heat source (the "
        "stove; the blast furnace for a metal), activate it, and 'use thermometer on' the substance every step; the "
        "temperature at which it turns liquid is its melting point."
    ),
    "life span": (
        "Each kind of animal has its own life span (an elephant or a tortoise lives far longer than a mouse or a bee); "
        "an egg, a baby or a juvenile is the kind of animal it grows into."
    ),
}


# The things a ScienceWorld task needs carried, by the same words of its goal as its brief above (which says to carry
# them): code takes them where it finds them, before it walks on
SCIENCEWORLD_TOOLS = {"temperature": ("thermometer",), "melting point": ("thermometer",)}


def scienceworld_topics(goal: str) -> list[str]:
    """The words of SCIENCEWORLD_TASKS the goal says ("temperature", "paint", ...)."""
    said = " ".join(goal.lower().split())
    return [words for words in SCIENCEWORLD_TASKS if words in said]


def scienceworld_task_brief(goal: str) -> str:
    """What the goal's task needs to know of ScienceWorld, added to its brief ('' when none applies)."""
    return " ".join(SCIENCEWORLD_TASKS[words] for words in scienceworld_topics(goal))


TEXTWORLD_EXPRESS = (
    "A short text game (TextWorldExpress): rooms joined by exits, things on furniture or inside containers, and a "
    "task stated at the start (cook a meal, put things away, find a coin, follow a map, solve a small puzzle, or "
    "repeat commands you are given). You act by sending one command at a time from the valid commands, such as "
    "'move north', 'open fridge', 'take coin', 'put notebook in side table', 'read map'. The score (0-1) rises as "
    "the task progresses; a wrong move can end some games."
)

NETHACK = (
    "NetHack, a dungeon crawler, shown as text: the game's message, what lies next to you in each direction and "
    "what you can see farther off, your status line and your inventory. Go down the stairs ('down' on a '>') to "
    "deeper dungeon levels and gain experience by fighting; eat when hungry, pray when weak. You act by sending one "
    "command at a time from the valid commands, such as 'north', 'far east', 'search', 'pickup', 'eat', 'down', "
    "'more' (to read on after a --More-- message) or a letter to answer a menu."
)

CRAFTER = (
    "Crafter, a survival world seen from above and described in text: what you face, the nearest things of each "
    "kind with their distance east/west and north/south, your vitals and inventory. 'do' acts on what you face "
    "(collect wood from a tree, stone with a pickaxe, drink water, attack, eat a cow); 'place table' needs wood; "
    "pickaxes and swords are made near a table (iron ones also near a furnace). Keep food, drink and energy up "
    "(sleep when tired). Send one command at a time from the valid commands."
)

GENERIC = (
    "A text game. You act by sending one short command at a time and the game answers in text; the score rises "
    "when you make progress."
)

# What each TextWorldExpress game asks, after the brief they share.
TWX_GAMES = {
    "coincollector": "This game: find the coin somewhere in the rooms and take it; closed doors must be opened.",
    "mapreader": "This game: read the map, take the coin from the room it names and bring it back to the box.",
    "textworldcommonsense": "This game: put each thing that is out of place where it belongs (clothes in the "
    "wardrobe, dishes in the dishwasher, ...).",
    "sorting": "This game: put the things in the box from the smallest quantity to the largest.",
    "arithmetic": "This game: solve the math problem, then put the thing whose quantity is its answer in the box.",
    "simonsays": "This game: do exactly the commands you are told, in the order given; any other command ends it.",
    "peckingorder": "This game: read the instructions book and do what it says, in its order, until the game ends.",
}

# What a TWX task asks the player to work out, as the model is asked it (envs/families/base.Question)
ARITHMETIC_QUESTION = "The math problem reads: {problem}. Which thing's quantity is its answer?"
SORTING_QUESTION = (
    "Which of these things has the smallest quantity? (Compare amounts in one unit: 1 kg is 1000 g and 1 g is 1000 mg; "
    "1 m is 100 cm and 1 cm is 10 mm; 1 l is 1000 ml.)"
)
# ScienceWorld's lifespan tasks: which animal the focus is on is what the model knows
LIFESPAN_QUESTION = "Which of these animals has the {criterion} life span? (An egg or a baby counts as its animal.)"
# ScienceWorld's measured branches: which of the task's "If ..." sentences the measurement calls for
MEASURED_QUESTION = (
    "The thermometer measured {measured} degrees celsius on the {thing}. The task says: {branches} Where does it say "
    "to put it?"
)
