"""Presets: each seed system, and each baseline of the papers, as switches of the one agent graph.

A preset never copies a pipeline: the nodes read the switches below and the routing functions of
:mod:`ariadnegraph.graphs.agent` skip the nodes a preset turns off (conditional edges, so Studio
draws every path). ``PRESETS`` is the registry; :class:`AgentContext` validates ``preset`` against it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

HISTORY_BUFFER = 25  # STMA's history buffer: the steps its summarizer reads (appendix A)


Retrieval = Literal["arigraph", "stma", "temporal", "rag", "rap", "simulacra", "none"]


Aggregation = Literal["off", "text", "llm"]


Cadence = Literal["when_needed", "every_step", "never"]


Monologue = Literal["tools", "transitions", "rollout"]


@dataclass(frozen=True)
class Preset:
    """What one agent turns on. Defaults are ``ariadne``'s."""

    description: str  # one line, naming the paper
    summarizer: bool = True  # a belief kept by a model call every step (STMA §4.1)
    knowledge_graph: bool = True  # relation retriever: triplets into the temporal KG every step
    retrieval: Retrieval = "arigraph"  # what the retriever fetches for the planner
    search_depth: int = 2  # AriGraph semantic search: depth d ... (d, w and k: our values, the paper gives none)
    search_width: int = 5  # ... and width w
    memory_facts: int = 40  # the most facts retrieved that the planner is shown
    episodic_k: int = 2  # episodes retrieved (arigraph: eq. 1 top-k; rag: top-k by similarity)
    stma_n: int = 8  # stma / temporal retrieval: top-n entities ...
    stma_hops: int = 3  # ... then this many hops
    hops_directed: bool = False  # each hop follows facts from subject to object only (STMA's algorithm 1, line 6)
    history_length: int | None = 5  # recent steps shown (None: the whole episode)
    history_full_text: bool = False  # whole observations in the history, else their first line
    summarizer_history: int = 0  # history-buffer records the summarizer reads besides its belief (STMA: 25)
    # belief: the previous belief rewritten with the last step, a few lines (ours); trajectory: the history buffer
    # summarized afresh each time, step by step, texts read word for word and every move (STMA appendix D.1);
    # paragraphs: the previous summary rewritten with the recent steps, at most three paragraphs (AriGraph appendix E)
    summary: Literal["belief", "trajectory", "paragraphs"] = "belief"
    buffer_feedback: bool = False  # a history record keeps the critic's feedback its command came after (STMA alg. 2,
    # line 4: the buffer holds (f, o, a))
    # step: the memory roles (summarizer, extraction, retrieval, aggregation) run after every step; plan: only when a
    # plan is to be made, and a plan's later steps are judged with the beliefs it was made with (STMA alg. 2, 4-9)
    memory_cadence: Literal["step", "plan"] = "step"
    belief_shown: bool = True  # the deciding roles (planner, critic, chooser) read the summarizer's belief
    extraction_reads: Literal["belief", "belief_only", "history", "transition"] = "belief"  # what the relation
    # retriever reads: the observation with the summarizer's belief beside it (ours); the belief alone (belief_only:
    # STMA §4.2, R: b -> G'); the observation with the raw history buffer (summarizer_history records, or
    # HISTORY_BUFFER where the preset keeps none; STMA's "w/o Summarizer for Spatial Memory"); or the transition
    # (o_t, a_t, o_t+1), summarized first and its facts taken from that summary (DAVIS §3.2)
    # a pronoun in the observations the relation retriever reads ('it', 'its', 'they', 'them') written as the thing
    # named last before it, by rules (envs/coreference.resolve_pronouns): DAVIS resolves coreference before
    # extraction with CoreNLP (§3.2), which downloads its models at run time; the rules are ours
    coreference: bool = False
    # the extractor words any relation (AriGraph's appendix E: at most 7 words a triplet) and writes no fact of where
    # the player is (its "you, are in, location"), which the env's room names instead; off: our fixed relation
    # vocabulary (in, on, has exit, DIRECTION of, is STATE, the recipe's), which the map and object readers know
    open_relations: bool = False
    # which stored facts outdated detection compares: those about the room and the inventory, shown with the
    # observation in the extraction call (ours, one call); or every open fact touching an entity of the new triplets,
    # in a second call after extraction (AriGraph §2, appendix E)
    outdated_scope: Literal["room", "entities"] = "room"
    unexplored_exits: bool = True  # list exits not yet walked through (AriGraph appendix B)
    exploration_check: bool = False  # a model call deciding whether the plan needs them (AriGraph)
    memory_facts_shown: bool = True  # retrieved facts in the planner's prompt (STMA shows only the aggregate)
    aggregator: Aggregation = "text"  # spatial belief: deterministic text, or a model call (STMA)
    max_replans: int = 2  # planner calls a step may add after a rejection, a deviation or a step sent back
    qa_turns: int = 5  # world-model QA turns (DAVIS: 5 per predicted transition); 0: no QA
    monologue: Monologue = "tools"  # tools: one lookup loop before planning; transitions: after planning, DAVIS's
    # algorithm 2 for each planned step (predict its outcome and reward, asking the dated-fact graph search when
    # needed); rollout: DAVIS's algorithm 1, one step imagined at a time, chosen knowing the outcomes predicted before
    planner: Cadence = "when_needed"  # when_needed: AgentKit's gate; every_step: AriGraph; never: ReAct only
    plan_length: int = 8  # most actions kept from one plan
    # actions: a subgoal and the commands towards it, each with its expected outcome (ours, DAVIS); goals: the main
    # goal and sub-goals, each with a reason that tracks its progress, worded the same until done or irrelevant, the
    # commands chosen by the ReAct choice (AriGraph appendix E's planning prompt)
    plan_form: Literal["actions", "goals"] = "actions"
    expected_rewards: bool = False  # plan steps predict the reward too (DAVIS)
    # once the world model has predicted a plan (monologue transitions or rollout), a model call checks the whole
    # trajectory (each command with its predicted outcome and reward) before any of it is played; one it rejects goes
    # back to the planner with the reason while the step's replans last, then ``rejected`` decides (DAVIS's algorithm
    # 1, lines 7-8, optional there: see the davis preset)
    safety_check: bool = False
    precheck: bool = True  # critic checks each action before it runs (STMA)
    reject_invalid: bool = False  # the critic rejects a command the game would not take and the planner hears why (STMA
    # appendix B.1); off: it is not judged, and the actor grounds it to a valid one (ours)
    outcome_check: bool = True  # critic compares expected and actual outcome (DAVIS)
    critic_reasoning: bool = False  # the critic reasons before its verdict, and its feedback may be long (STMA D.5)
    # with the step's replans used up, a command the critic (or a trajectory the safety check) rejected is played anyway
    # (ours), or withheld: the step looks instead and the next one plans again, so nothing rejected is sent (STMA alg.
    # 2, lines 13-15)
    rejected: Literal["played", "withheld"] = "played"
    react_choice: bool = False  # actor asks the model to reason and choose every step (ReAct, AriGraph)
    # every command drawn at random from the valid ones (seeded by the run and the step): memory is built as the
    # preset builds it while nothing decides (AriGraph appendix C, figure 6: the graph's growth on a random walk)
    random_walk: bool = False
    choice_reasoning: bool = True  # that choice reasons first; False: the valid command is named with no thought
    # (SayCan's choice of the skill the language model rates most useful, here the one greedy decoding under a
    # grammar of the valid commands names, not each command's likelihood)
    reflections: bool = True  # mismatch reflections kept and shown to the planner (DAVIS)
    # Reflexion (Shinn et al. 2023): a lost game is played again, up to this many trials, each later trial shown the
    # lessons the model wrote after the failed ones (the graph plays one trial: `ariadne play` and `eval` read it and
    # --trials wins; a LangGraph server thread is one trial)
    trials: int = 1
    go_to: bool = True  # 'go to <place>' expanded along the KG's map (AriGraph)
    grounding: bool = True  # the actor turns a planned command into a valid one; False: sent as written (DAVIS D-A)
    actor_commands: int = 1  # most game commands the actor may turn one plan step into (DAVIS: L' >= L), each validated
    # what memory search embeds with (a new memory; --embeddings / $ARIADNE_EMBEDDINGS chooses otherwise): hashing of
    # words and trigrams (lexical, instant), or e5, a sentence-embedding model (the papers retrieve with neural ones)
    embeddings: Literal["hashing", "e5"] = "hashing"
    invalidate: bool = True  # contradicted facts are closed; False: the KG only appends timestamped facts (DAVIS §3.2)
    # the conflict rules (one place per thing, exclusive states, one room each way) close what a new fact contradicts,
    # besides what outdated detection names; False: only what the model names is closed (AriGraph §2)
    conflict_rules: bool = True
    # an AgentKit thought graph (agentkit/NAME.yaml, a path, or auto: the env family's) chooses each command instead
    thoughts: str | None = None
    # What a small model can carry (the ariadne preset): choices from lists, and the bookkeeping done in code
    # the planner chooses its next command from the valid ones (a grammar), then writes what follows
    plan_choice: bool = False
    # a plan step that is no valid command (nor a close spelling) goes back to the planner, saying why
    strict_grounding: bool = False
    # a command already played twice at the same place, inventory and score goes back to the planner
    loop_guard: bool = False
    # after this many steps without a score, the plan is dropped and the planner told so (0: never)
    stall_steps: int = 0
    pin_readings: bool = False  # texts the agent read (a recipe, a note) are kept and shown to the planner
    # an observation memory has already read word for word is not sent to extraction again
    extract_new_only: bool = False
    # the map written from the env (its room names, the moves between them, the 'go' commands valid there)
    env_map: bool = False
    # the game family's parser writes what each observation shows into the KG (where things are, open or closed, the
    # doors and exits; envs/families), and memory closes what the observation shows has left
    object_memory: bool = False
    # a key the game family names lying here is taken, a lock whose key is held unlocked, a note that tells the way
    # read, and the thing the goal names taken where a valid command takes it, before the plan's step
    keys_first: bool = False
    # 'explore' is one of the choices (to the nearest exit not taken yet, along the map); pacing between places
    # already seen, with such an exit left, explores instead
    explore: bool = False
    progress_shown: bool = False  # the commands that raised the score so far are shown to the planner (PROGRESS)
    # the next item of a list read (NEXT STEP) is played, no model asked, when one valid command does it word for word
    follow_lists: bool = False
    # commands the game family's rules say ruin the episode (GameFamily.ruinous) are never offered or played
    rules_shield: bool = False
    # Role oracles (never a preset's default; evaluation only): a role's output taken from the game's truth,
    # so a table shows what that role's mistakes cost. TextWorld games (true facts, the winning commands).
    # ORACLE: the facts memory stores are the game's true facts about what the observation shows
    oracle_extraction: bool = False
    oracle_plan: bool = False  # ORACLE: the plan is the next commands of the game's winning path

    @property
    def belief_read(self) -> bool:
        """Whether the deciding roles read a belief (the summarizer runs and its belief is shown)."""
        return self.summarizer and self.belief_shown

    @property
    def critic(self) -> bool:
        return self.precheck or self.outcome_check

    @property
    def predicts(self) -> bool:
        """Whether the world model predicts each planned step's outcome after the planner (DAVIS's algorithms 1-2)."""
        return self.qa_turns != 0 and self.monologue in ("transitions", "rollout")

    @property
    def needs_retriever(self) -> bool:
        return self.retrieval != "none" or self.unexplored_exits


_BASELINE: dict[str, Any] = dict(
    summarizer=False,
    knowledge_graph=False,
    retrieval="none",
    unexplored_exits=False,
    memory_facts_shown=False,
    aggregator="off",
    qa_turns=0,
    planner="every_step",
    precheck=False,
    outcome_check=False,
    react_choice=True,
    reflections=False,
    go_to=False,
    history_full_text=True,
)


PRESETS: dict[str, Preset] = {
    "ariadne": Preset(
        "ours, for the models it plays with: a temporal KG whose map the env writes (rooms, moves, exits) + episodic "
        "memory, texts read kept, a planner that chooses its next command from the valid ones and writes what follows; "
        "invalid steps, repeats and stalls go back to it with why; go-to on the map; plans only when needed. The roles "
        "a small model did not do well (summarizer, model extraction, inner monologue, critic) are off: ariadne_full "
        "has them",
        summarizer=False,
        knowledge_graph=False,
        retrieval="none",
        memory_facts_shown=False,
        aggregator="off",
        qa_turns=0,
        precheck=False,
        outcome_check=False,
        reflections=False,
        plan_length=4,
        # one planner call a step: a step the actor sends back is played by the way forward, not asked again (a small
        # model told why its command was sent back writes the same one again more often than not: the replan costs a
        # call and changes nothing)
        max_replans=1,
        plan_choice=True,
        strict_grounding=True,
        loop_guard=True,
        stall_steps=12,
        pin_readings=True,
        extract_new_only=True,
        env_map=True,
        object_memory=True,
        keys_first=True,
        explore=True,
        progress_shown=True,
        rules_shield=True,
        follow_lists=True,
    ),
    "ariadne_full": Preset(
        "ours, every role on: summarizer, temporal KG + episodic memory, world-model QA, planner-critic with expected "
        "outcomes, go-to actor; plans only when needed (AriGraph + STMA + DAVIS + AgentKit's gate)",
    ),
    "arigraph": Preset(
        "AriGraph (Anokhin et al. 2024): semantic + episodic memory (BFS with d=2, w=5, top-2 episodes, history 5: "
        "values ours, the paper gives none), exploration check and unexplored exits, planner every step keeping a "
        "main goal and sub-goals, ReAct action choice, go-to; a fact is closed only when outdated detection names it; "
        "relations worded freely, the player's room from the env (appendix E)",
        summarizer=False,
        history_full_text=True,
        exploration_check=True,
        conflict_rules=False,
        plan_form="goals",
        embeddings="e5",
        aggregator="off",
        qa_turns=0,
        planner="every_step",
        precheck=False,
        outcome_check=False,
        react_choice=True,
        reflections=False,
        outdated_scope="entities",
        open_relations=True,
    ),
    "stma": Preset(
        "STMA (Lei et al. 2025): a history buffer of 25 steps (with the critic's feedback) summarized afresh into "
        "the temporal belief, relation retriever reading the belief, dynamic KG, top-8 entities + 3-hop retrieval, "
        "LLM relation aggregator, all once a plan; planner with subgoal + action sequence, critic before each action "
        "rejecting what the game would not take; commands sent as planned (no go-to, no grounding: ours, "
        "--set go_to=true / grounding=true, labelled as additions)",
        retrieval="stma",
        embeddings="e5",
        hops_directed=True,
        summarizer_history=HISTORY_BUFFER,
        summary="trajectory",
        buffer_feedback=True,
        memory_cadence="plan",
        history_length=0,
        unexplored_exits=False,
        memory_facts_shown=False,
        aggregator="llm",
        qa_turns=0,
        outcome_check=False,
        reflections=False,
        extraction_reads="belief_only",
        reject_invalid=True,
        critic_reasoning=True,
        rejected="withheld",
        go_to=False,
        grounding=False,
    ),
    "davis": Preset(
        "DAVIS (Pham-Dinh et al. 2025): temporal KG, belief f(tau) kept by a summarizer, a trajectory of 5 steps "
        "imagined one at a time, each chosen knowing the outcomes and rewards the world model predicted for the steps "
        "before it with an inner monologue of <= 5 graph-QA turns "
        "over dated facts (gold runs included, as history), an actor expanding a step into up to 3 valid commands, "
        "critic comparing predicted and actual, reflections; the KG's facts taken from a summary of each transition "
        "read with its pronouns resolved (by rules: the paper's CoreNLP is not run), and only appended, timestamped "
        "(§3.2)",
        invalidate=False,
        embeddings="e5",
        extraction_reads="transition",
        coreference=True,
        # Algorithm 1's safety check is marked optional and nothing in the paper's experiments runs it: table 5's
        # settings do not name it, ScienceWorld states no safety constraint, §7.4 leaves safety-critical evaluation to
        # future work, and its action ("alert supervisor") needs a person watching; so the preset plays without it, as
        # the paper's results were obtained
        safety_check=False,
        retrieval="temporal",
        stma_hops=2,
        history_full_text=True,
        unexplored_exits=False,
        aggregator="off",
        qa_turns=5,
        monologue="rollout",
        plan_length=5,
        expected_rewards=True,
        precheck=False,
        actor_commands=3,
    ),
    "react": Preset(
        "ReAct baseline (Yao et al. 2023, as STMA runs it; AriGraph runs none): the last 5 steps, reason then act in "
        "one call",
        **{**_BASELINE, "planner": "never"},
    ),
    "full_history": Preset(
        "full-history baseline (AriGraph §4.1): every observation and action so far, planner + ReAct choice every step",
        **{**_BASELINE, "history_length": None},
    ),
    "summary": Preset(
        "summary baseline (AriGraph §4.1, its summarization prompt of appendix E): a running summary of at most three "
        "paragraphs rewritten each step from the last 5 steps (5 is ours) + the last 5 steps, planner + ReAct choice "
        "every step",
        **{**_BASELINE, "summarizer": True, "summary": "paragraphs", "summarizer_history": 5},
    ),
    "agentkit": Preset(
        "AgentKit (Wu et al. 2024): a graph of prompt nodes declared in YAML, the one written for the environment's "
        "family "
        "(Crafter: agentkit/crafter.yaml, reading the game's manual: three step summaries, reflection, challenge, a "
        "gate "
        "adding the planner and skill choice, skill feedback, a knowledge base that accumulates, act with a repeat "
        "count); "
        "a family with no graph is refused; the episodes are still stored in memory",
        **{**_BASELINE, "planner": "never", "react_choice": False, "thoughts": "auto"},
    ),
    "reflexion": Preset(
        "Reflexion baseline (Shinn et al. 2023, as STMA and DAVIS run it): the ReAct agent, and a lost game played "
        "again up to 3 trials (3 is ours: the papers give none), each later trial shown the last 3 lessons the model "
        "wrote after the failed ones; AriGraph's 'RAG with Reflexion' is --preset rag --set trials=3",
        **{**_BASELINE, "planner": "never", "trials": 3},
    ),
    "adaplanner": Preset(
        "AdaPlanner baseline (Sun et al. 2023, as STMA runs it): a plan of up to 8 steps written at once, each with "
        "the outcome it expects, played as written; a step whose outcome differs stops the plan and the planner "
        "revises it told what was expected and what happened (its out-of-plan refinement); no memory beyond the last "
        "5 steps. Not here: its plans as Python code with assertions, and its skill discovery (winning plans kept "
        "as examples)",
        **{
            **_BASELINE,
            "planner": "when_needed",
            "react_choice": False,
            "outcome_check": True,
            "plan_length": 8,
            "grounding": False,
        },
    ),
    "saycan": Preset(
        "SayCan baseline (Ahn et al. 2022, as DAVIS runs it): every step the model names the valid command (a "
        "skill the game affords) most useful towards the goal, with no reasoning and no plan, reading the goal and "
        "the commands played so far (with the first line each answered: ours); the greedy choice under a grammar "
        "of the valid commands stands in for scoring each command's likelihood",
        **{
            **_BASELINE,
            "planner": "never",
            "choice_reasoning": False,
            "history_length": None,
            "history_full_text": False,
        },
    ),
    "rap": Preset(
        "RAP baseline (Kagaya et al. 2024, as DAVIS runs it: its memory is gold runs, read with `ariadne memory "
        "seed-gold` and named by --memory-from): the ReAct agent shown, every step, the 3 moments of the gold runs "
        "most like the goal and the observation (3 and the e5 embedding are ours), each with the command played, "
        "what it showed and the next 3 commands its run played",
        **{**_BASELINE, "planner": "never", "retrieval": "rap", "episodic_k": 3, "embeddings": "e5"},
    ),
    "simulacra": Preset(
        "Simulacra baseline (AriGraph §4.1: Generative Agents' memory, Park et al. 2023): each observation rated "
        "for importance (1-10) by the model when stored; the top-5 past observations by recency (0.995 a step) + "
        "importance + relevance to observation + plan (k=5 and the step as the unit of time are ours); once the "
        "importance since the last reflection adds up to 150, the model writes up to 3 insights on what it observed "
        "since, shown with memory; planner + ReAct choice every step",
        **{**_BASELINE, "retrieval": "simulacra", "episodic_k": 5, "embeddings": "e5"},
    ),
    "rag": Preset(
        "RAG baseline (AriGraph §4.1): top-5 past observations (k=5 ours: the paper says top-k) by similarity to "
        "observation + plan, last 5 steps, planner + ReAct choice every step",
        **{**_BASELINE, "retrieval": "rag", "episodic_k": 5, "embeddings": "e5"},
    ),
}


@functools.lru_cache(maxsize=256)
def _preset_from(items: tuple[tuple[str, Any], ...]) -> Preset:
    return Preset(**{"description": "", **dict(items)})


def switch_values(preset: Preset) -> dict[str, Any]:
    """A preset's switches as plain data (what the agent's state keeps of them)."""
    return {name: getattr(preset, name) for name in SWITCHES}


# Switches that were renamed to the setting's name (so a name means one thing end to end), by their old names: a
# checkpoint's switches, a run.json's overrides and a user's --set written before still read as they meant.
OPEN_RELATION_READS = ("belief", "history")  # the extractions that read the observation: open_relations words them


RENAMED_SWITCHES = {"history": "history_length", "episodes_k": "episodic_k"}


def current_names(values: Mapping[str, Any]) -> dict[str, Any]:
    return {RENAMED_SWITCHES.get(name, name): value for name, value in values.items()}


def preset_of(values: dict[str, Any] | None) -> Preset | None:
    """The switches ``switch_values`` wrote, as a Preset again (None: none written)."""
    if not values:
        return None
    return _preset_from(tuple(sorted((k, v) for k, v in current_names(values).items() if k in SWITCHES)))


# The names, as a type: the context schema offers them as choices (a test keeps the two lists equal).
PresetName = Literal[
    "ariadne",
    "ariadne_full",
    "arigraph",
    "stma",
    "davis",
    "react",
    "full_history",
    "summary",
    "agentkit",
    "reflexion",
    "adaplanner",
    "saycan",
    "rap",
    "simulacra",
    "rag",
]


ORACLE_SWITCHES = ("oracle_extraction", "oracle_plan")


# Our additions to a paper's system: switches its preset keeps off because the paper has no such thing. Turned on
# (``--set``), a run's record and a table's row name them, so the result is never read as the paper's system.
ADDITIONS: dict[str, tuple[str, ...]] = {
    "stma": ("go_to", "grounding"),  # STMA sends the planner's command as written; its map is the aggregator's text
}


def additions(preset_name: str, switches: Mapping[str, Any]) -> list[str]:
    """Our additions to ``preset_name``'s paper that ``switches`` (the values played, or the changes to the preset)
    turn on."""
    return [name for name in ADDITIONS.get(preset_name, ()) if switches.get(name) is True]


def additions_text(names: Sequence[str], preset_name: str) -> str:
    """How a record or a table names them: '(+ ours, not in STMA: go_to)'."""
    paper = PRESETS[preset_name].description.split(" (", 1)[0] if preset_name in PRESETS else preset_name
    return f"(+ ours, not in {paper}: {', '.join(names)})" if names else ""


def oracle_roles(switches: object) -> list[str]:
    """The roles ``switches`` (a run's changes to its preset, as run.json or a job keeps them) take from the
    game's truth. No preset turns an oracle on, so the changes say it all; a value that is not a switch's
    (a damaged run.json) counts as on: a label may say ORACLE wrongly, never hide one."""
    given = current_names(switches) if isinstance(switches, Mapping) else {}
    return [
        name.removeprefix("oracle_")
        for name in ORACLE_SWITCHES
        if name in given and given[name] not in (False, None, "false", "off", "no", "0", 0)
    ]


def system_label(preset_name: str, switches: object, name: str | None = None) -> str:
    """What played, as every surface that shows a run or a table row names it (the one owner of the label,
    so no surface can drop it): ``name`` (an ablation cell's, default the preset's), then the roles taken from
    the game's truth and our additions to the paper's system: 'ariadne_full (ORACLE: plan)'."""
    label = name or preset_name
    roles = oracle_roles(switches)
    if roles:
        label = f"{label} (ORACLE: {', '.join(roles)})"
    ours = additions(preset_name, switches) if isinstance(switches, Mapping) else []
    return f"{label} {additions_text(ours, preset_name)}" if ours else label


def plays_without_model(preset: Preset) -> bool:
    """Whether the preset's commands can be chosen with no language model (``--model none``): its controller proposes
    a command wherever the model would choose (``plan_choice``), or a draw or the game's path chooses (``random_walk``,
    ``oracle_plan``). A preset whose model writes its plan or picks each command (ReAct, a thought graph) cannot."""
    chooses = preset.plan_choice or preset.random_walk or preset.oracle_plan
    return chooses and not preset.react_choice and not preset.thoughts


def without_model(preset: Preset) -> Preset:
    """``preset`` as it plays with no language model: every role that has no choice of the controller's to fall back
    on is skipped (the belief, model extraction and its exploration check, the model aggregator, the inner monologue,
    the critic's checks, reflections); the command is the controller's own first choice (nodes/choice.py)."""
    return replace(
        preset,
        summarizer=False,
        knowledge_graph=False,
        exploration_check=False,
        aggregator="text" if preset.aggregator == "llm" else preset.aggregator,  # the spatial belief, in code
        qa_turns=0,
        precheck=False,
        outcome_check=False,
        safety_check=False,
        reflections=False,
    )


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset '{name}' (choose {', '.join(PRESETS)})") from None


# -- switches set by hand (`--set SWITCH=VALUE`) and the papers' ablation grids ------------------------
SWITCHES: tuple[str, ...] = tuple(f.name for f in fields(Preset) if f.name != "description")
