"""A thought graph declared in YAML, read and checked before anything runs.

Shape of a file::

    name: crafter
    system: "You are ..."            # shared by every node (one cached prefix)
    database: {knowledge: [], subgoals: ""}   # starting values of the persistent database
    keep:                            # how entries accumulate (agentkit/database.py); others hold the last write
      history: {last: 25}
      knowledge: {collect: 60, answers: unknown}
      skill_steps: {per: skill, last: 30}
    nodes:
      - name: observe
        prompt: "Summarise ..."      # the node's question, in our words
        reads: [observation, manual, db.subgoals]   # episode inputs and database entries shown
        after: []                    # dependencies: their outputs are composed into the prompt
        output: {summary: "what changed"}          # fields the model must fill (strings)
        store: {db.history: "{summary} ({act.command})"}   # after-query: database writes, a field or a
                                     # template of its fields and its ancestors' ({node.field})
        choose: action               # optional: this field must be one of the valid commands
        repeat: repeats              # optional, on the chooser: the field saying how often to play it
        adds:                        # optional temporary nodes, for this step only
          - when: {field: update, equals: "yes"}    # ... when an output field says so
            node: {name: replan, prompt: "...", output: {...}, store: {...}}
          - when: {every: 3, count: db.skill_steps} # ... or every 3 writes under the current group
            node: {...}
        removes:                     # optional: nodes and edges taken out, for this step only
          - when: {field: update, equals: "no"}     # the same conditions as adds
            nodes: [replan]          # nodes that come after this one: skipped this step
            edges: [[recap, act]]    # dependencies between nodes after this one: not composed this step
        removable: false             # optional: no node may remove this one (the chooser never is)

A node runs once its dependencies have; a temporary node runs right after the node that added it,
once, and is gone at the end of the step. A removed node is skipped for the step (AgentKit section 2.2:
removing a node takes its edges with it, so the nodes after it still run, without its output; a removed
edge only hides its first node's output from its second). Only what has not been evaluated yet can be
removed, so a node removes only nodes that come after it, as the paper's safeguard (appendix A) asks.
Invalid YAML, an unknown dependency, a node that needs itself (a cycle), a removal of a node that may
have run by then or a malformed node fails in one line naming the node.

Which graph a preset plays is its ``thoughts`` switch: a built-in name or a path plays that graph on
any environment; ``auto`` plays the graph its game family names (``GameFamily.thought_graph``)
and refuses, in one line, an environment no graph was written for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import networkx as nx
import yaml
from langgraph.constants import END, START
from pydantic import BaseModel

from ..envs.families import FAMILIES, family_of
from .database import Keep

BUILTIN_DIR = Path(__file__).resolve().parent
# What a node may read besides the database: the episode's step, the family's instruction manual (empty
# where it has none) and the observation the previous thought pass saw. (Every node is shown the ENVIRONMENT brief.)
INPUTS = (
    "goal",
    "observation",
    "valid_commands",
    "inventory",
    "location",
    "step",
    "last_action",
    "score",
    "manual",
    "previous_observation",
)
DB_PREFIX = "db."
FIELD_CHARS = 400  # longest text one output field may hold
KEEP_MOST = 500  # the largest size a keep declaration may give
AUTO = "auto"  # the thoughts switch's value for "the graph written for the environment's family"
TEMPLATE = re.compile(r"\{([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?\}")


class AgentKitError(ValueError):
    """A declaration that cannot be compiled; the message is one line and names the node."""


@dataclass(frozen=True, kw_only=True)
class When:
    """When a node's answer changes the graph for this step: an output ``field`` that starts with ``equals``,
    or ``every`` writes under the current group of the per-entry ``count``."""

    field: str = ""
    equals: str = ""
    every: int = 0
    count: str = ""


@dataclass(frozen=True, kw_only=True)
class Addition(When):
    """A temporary node, added when the condition holds."""

    node: "NodeSpec"


@dataclass(frozen=True, kw_only=True)
class Removal(When):
    """Declared nodes, and edges (``(from, to)``), removed for this step when the condition holds."""

    nodes: tuple[str, ...] = ()
    edges: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class NodeSpec:
    name: str
    prompt: str
    output: dict[str, str]
    after: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    store: dict[str, str] = field(default_factory=dict)
    choose: str | None = None
    repeat: str | None = None
    adds: tuple[Addition, ...] = ()
    removes: tuple[Removal, ...] = ()
    removable: bool = True


@dataclass(frozen=True)
class ThoughtSpec:
    name: str
    system: str
    database: dict[str, Any]
    nodes: tuple[NodeSpec, ...]
    source: str
    keep: dict[str, Keep] = field(default_factory=dict)

    def start(self) -> dict[str, Any]:
        """The database before the first step: declared starting values, else each keep's empty value."""
        return {**{key: rule.start() for key, rule in self.keep.items()}, **self.database}

    def node(self, name: str) -> NodeSpec:
        return next(n for n in self.nodes if n.name == name)

    @property
    def action_node(self) -> NodeSpec:
        return next(n for n in self.nodes if n.choose)


def _strings(value: Any, where: str, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise AgentKitError(f"{where}: '{what}' must be a list of names")
    repeated = sorted({v for v in value if value.count(v) > 1})
    if repeated:
        raise AgentKitError(f"{where}: '{what}' names '{repeated[0]}' twice")
    return tuple(value)


def _db_key(text: Any) -> bool:
    """``db.KEY`` with KEY a name (letters, digits, _)."""
    return isinstance(text, str) and text.startswith(DB_PREFIX) and text.removeprefix(DB_PREFIX).isidentifier()


def _field_problem(name: Any) -> str:
    """Why ``name`` cannot be an output field (a field of the pydantic model the node's reply is read into), or ''."""
    if not isinstance(name, str) or not name.isidentifier():
        return "is not a name (letters, digits, _)"
    if name.startswith("_"):
        return "starts with '_' (pydantic keeps those names private)"
    if name.startswith("model_") or hasattr(BaseModel, name):
        return "is a name pydantic's models keep for themselves"
    return ""


NODE_KEYS = ("name", "prompt", "output", "after", "reads", "store", "choose", "repeat", "adds", "removes", "removable")


def _node(raw: Any, source: str, temporary: bool = False) -> NodeSpec:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"].isidentifier():
        raise AgentKitError(f"{source}: every node needs a 'name' (letters, digits, _), got {raw!r:.80}")
    name = raw["name"]
    where = f"{source}: {'temporary ' if temporary else ''}node '{name}'"
    if name in (START, END) or name.startswith("__"):
        raise AgentKitError(f"{where}: names starting with '__' are LangGraph's ({START}, {END}); choose another")
    if temporary and {"removes", "removable"} & set(raw):
        raise AgentKitError(f"{where}: a temporary node neither removes nodes nor is removed (it runs only when added)")
    unknown = set(raw) - set(NODE_KEYS)
    if unknown:
        raise AgentKitError(f"{where} has unknown keys: {', '.join(sorted(map(str, unknown)))}")
    if not isinstance(raw.get("prompt"), str) or not raw["prompt"].strip():
        raise AgentKitError(f"{where} needs a 'prompt'")
    output = raw.get("output")
    if not isinstance(output, dict) or not output or not all(isinstance(v, str) and v.strip() for v in output.values()):
        raise AgentKitError(f"{where} needs 'output': field names with a description each")
    for field_name in output:
        if problem := _field_problem(field_name):
            raise AgentKitError(f"{where}: output field {field_name!r:.60} {problem}")
    if temporary and (raw.get("choose") is not None or raw.get("repeat") is not None):
        raise AgentKitError(f"{where}: a temporary node cannot choose the command (one declared node does)")
    reads = _strings(raw.get("reads"), where, "reads")
    bad = [r for r in reads if r not in INPUTS and not _db_key(r)]
    if bad:
        raise AgentKitError(f"{where} reads unknown inputs {', '.join(bad)} (inputs: {', '.join(INPUTS)}, or db.KEY)")
    store = raw.get("store") or {}
    if not isinstance(store, dict) or not all(
        _db_key(k) and isinstance(v, str) and v.strip() for k, v in store.items()
    ):
        raise AgentKitError(f"{where}: 'store' maps db.KEY to one of its output fields or a template of them")
    store = {
        key: value if TEMPLATE.search(value) else f"{{{value}}}" for key, value in store.items()
    }  # a bare field name
    for key, template in store.items():
        own = [n for n, f in TEMPLATE.findall(template) if not f and n not in output]
        if own:
            raise AgentKitError(f"{where}: 'store' {key} names no output field ({own[0]!r})")
    choose = raw.get("choose")
    if choose is not None and (not isinstance(choose, str) or choose not in output):
        raise AgentKitError(f"{where}: 'choose' names no output field ({choose!r:.60})")
    repeat = raw.get("repeat")
    if repeat is not None and (
        choose is None or not isinstance(repeat, str) or repeat not in output or repeat == choose
    ):
        raise AgentKitError(f"{where}: 'repeat' names another output field of the node that chooses the command")
    if choose is not None and "action" in output and choose != "action":  # the chooser's reply names its command so
        raise AgentKitError(f"{where}: output field 'action' is the chosen command's; name the field 'choose' names so")
    adds = [] if raw.get("adds") is None else _additions(raw["adds"], output, where, source, temporary)
    removes = [] if raw.get("removes") is None else _removals(raw["removes"], output, where)
    removable = raw.get("removable", True)
    if not isinstance(removable, bool):
        raise AgentKitError(f"{where}: 'removable' is true or false, got {removable!r:.60}")
    return NodeSpec(
        name=name,
        prompt=raw["prompt"].strip(),
        output=dict(output),
        after=_strings(raw.get("after"), where, "after"),
        reads=reads,
        store=store,
        choose=choose,
        repeat=repeat,
        adds=tuple(adds),
        removes=tuple(removes),
        removable=removable,
    )


WHEN_HELP = "when: {field: <an output field>, equals: <value>} or {every: <steps>, count: db.<a per-entry>}"
REMOVES_HELP = "{when: ..., nodes: [names], edges: [[from, to]]}"


def _when(when: Any, output: dict[str, str], where: str, key: str) -> dict[str, Any]:
    """The condition of one of a node's ``adds`` or ``removes`` (``key``), as When's fields."""
    if not isinstance(when, dict):
        raise AgentKitError(f"{where}: '{key}' needs {WHEN_HELP}, got when: {when!r:.60}")
    equals = when.get("equals")
    if set(when) == {"field", "equals"} and when["field"] in output:
        if isinstance(equals, bool):  # YAML reads yes, no, on, off as true or false
            raise AgentKitError(f"{where}: '{key}' when: equals is YAML's {equals}; quote the text (equals: 'yes')")
        if not isinstance(equals, (str, int, float)) or not str(equals).strip():
            raise AgentKitError(f"{where}: '{key}' when: equals needs a value (text), got {equals!r:.60}")
        return {"field": when["field"], "equals": str(equals).strip().lower()}
    if set(when) == {"every", "count"} and type(when["every"]) is int and when["every"] > 0 and _db_key(when["count"]):
        return {"every": when["every"], "count": when["count"].removeprefix(DB_PREFIX)}
    raise AgentKitError(f"{where}: '{key}' needs {WHEN_HELP}, got when: {when!r:.60}")


def _additions(raw: Any, output: dict[str, str], where: str, source: str, temporary: bool) -> list[Addition]:
    """A node's ``adds``: a list of {when: ..., node: ...}, each when a condition on this node's output or a count."""
    if temporary:
        raise AgentKitError(f"{where}: a temporary node cannot add nodes")
    if not isinstance(raw, list):
        raise AgentKitError(f"{where}: 'adds' must be a list of {{when: ..., node: ...}}")
    adds = []
    for item in raw:
        if not isinstance(item, dict) or set(item) != {"when", "node"}:
            raise AgentKitError(f"{where}: each of 'adds' is {{when: ..., node: ...}}, got {item!r:.60}")
        node = _node(item["node"], source, temporary=True)
        adds.append(Addition(node=node, **_when(item["when"], output, where, "adds")))
    return adds


def _removals(raw: Any, output: dict[str, str], where: str) -> list[Removal]:
    """A node's ``removes``: a list of {when: ..., nodes: [...], edges: [[from, to], ...]} (nodes, edges or both).
    Which names are declared and not yet evaluated is checked once the whole graph is read (_check_removals)."""
    if not isinstance(raw, list):
        raise AgentKitError(f"{where}: 'removes' must be a list of {REMOVES_HELP}")
    removes = []
    for item in raw:
        if (
            not isinstance(item, dict)
            or "when" not in item
            or not {"nodes", "edges"} & set(item)
            or (set(item) - {"when", "nodes", "edges"})
        ):
            raise AgentKitError(f"{where}: each of 'removes' is {REMOVES_HELP}, got {item!r:.60}")
        nodes = _strings(item.get("nodes"), where, "removes: nodes")
        edges = item.get("edges") or []
        if not isinstance(edges, list) or not all(
            isinstance(e, list) and len(e) == 2 and all(isinstance(n, str) and n.strip() for n in e) for e in edges
        ):
            raise AgentKitError(f"{where}: 'removes' edges must be a list of [from, to] node names, got {edges!r:.60}")
        removes.append(
            Removal(
                nodes=nodes,
                edges=tuple((start, end) for start, end in edges),
                **_when(item["when"], output, where, "removes"),
            )
        )
    return removes


# What each kind of keep declaration takes (database.py): ``last`` keeps the last N, ``collect`` merges items,
# ``per`` keeps a list per value of another entry.
KEEP_KEYS = {"last": {"last"}, "collect": {"collect", "answers"}, "per": {"per", "last"}}


def _keep(raw: Any, source: str) -> dict[str, Keep]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise AgentKitError(
            f"{source}: 'keep' must map database entries to {{last: N}}, {{collect: N}} or {{per: KEY, last: N}}"
        )
    keep: dict[str, Keep] = {}
    for key, rule in raw.items():
        where = f"{source}: keep {key!r:.60}"
        if not isinstance(key, str) or not key.isidentifier():
            raise AgentKitError(f"{where}: a database entry is a name (letters, digits, _)")
        rule = rule if isinstance(rule, dict) else {}
        kinds = [k for k in ("collect", "per") if k in rule] or (["last"] if "last" in rule else [])
        size = rule.get("collect", rule.get("last"))
        if len(kinds) != 1 or type(size) is not int or not 1 <= size <= KEEP_MOST:
            raise AgentKitError(
                f"{where} needs {{last: N}}, {{collect: N}} or {{per: KEY, last: N}} with N from 1 to {KEEP_MOST}"
            )
        if "answers" in rule and kinds[0] != "collect":
            raise AgentKitError(f"{where}: only a collected entry 'answers' another")
        extra = set(rule) - KEEP_KEYS[kinds[0]]
        if extra or (kinds[0] == "per" and "last" not in rule):
            shown = ", ".join(sorted(map(str, extra))) or "its size"
            raise AgentKitError(
                f"{where}: {{{kinds[0]}: ...}} takes {' and '.join(sorted(KEEP_KEYS[kinds[0]]))}, not {shown}"
                if extra
                else f"{where} needs {{per: KEY, last: N}}"
            )
        keep[key] = Keep(kinds[0], size, answers=rule.get("answers"), per=rule.get("per"))
    for key, rule in keep.items():
        if rule.answers is not None and (rule.answers not in keep or keep[rule.answers].kind != "collect"):
            raise AgentKitError(f"{source}: keep '{key}' answers '{rule.answers}', which is not a collected entry")
        if rule.kind == "per" and (not isinstance(rule.per, str) or not rule.per.isidentifier() or rule.per == key):
            raise AgentKitError(f"{source}: keep '{key}' needs per: <another database entry>")
    return keep


def _check_wiring(nodes: list[NodeSpec], graph: nx.DiGraph, keep: dict[str, Keep], source: str) -> None:
    """Every store template reads nodes that have run by then; every count reads a per-entry."""
    outputs = {n.name: n.output for n in nodes} | {a.node.name: a.node.output for n in nodes for a in n.adds}
    for node in nodes:
        for owner, before in [(node, nx.ancestors(graph, node.name))] + [
            (a.node, nx.ancestors(graph, node.name) | {node.name}) for a in node.adds
        ]:
            for key, template in owner.store.items():
                for other, field_name in TEMPLATE.findall(template):
                    if not field_name:
                        continue
                    if other not in before or field_name not in outputs[other]:
                        raise AgentKitError(
                            f"{source}: node '{owner.name}' stores {{{other}.{field_name}}} in {key}, "
                            f"but '{other}' is not a node that runs before it with that field"
                        )
        for addition in node.adds:
            before = nx.ancestors(graph, node.name) | {node.name}
            late = [name for name in addition.node.after if name not in before]
            if late:
                raise AgentKitError(
                    f"{source}: temporary node '{addition.node.name}' (added by '{node.name}') depends on "
                    f"'{late[0]}', which is not '{node.name}' or a node that runs before it"
                )
        for rule in (*node.adds, *node.removes):
            if rule.every and (rule.count not in keep or keep[rule.count].kind != "per"):
                raise AgentKitError(
                    f"{source}: node '{node.name}' counts db.{rule.count}, which is not declared per: in 'keep'"
                )


def _check_removals(nodes: list[NodeSpec], graph: nx.DiGraph, source: str) -> None:
    """AgentKit's safeguard (appendix A): a node removes only what is not evaluated yet, here what comes after it
    in the declared DAG (LangGraph runs those later); never the chooser, nor a node declared removable: false."""
    declared = {n.name: n for n in nodes}
    for node in nodes:
        later = nx.descendants(graph, node.name)
        where = f"{source}: node '{node.name}' removes"
        for removal in node.removes:
            for name in removal.nodes:
                if name not in declared:
                    raise AgentKitError(f"{where} unknown node '{name}' (a declared node, not a temporary one)")
                if name not in later:
                    raise AgentKitError(
                        f"{where} '{name}', which is not after it: only a node not yet evaluated, one that comes "
                        f"after '{node.name}', can be removed"
                    )
                if declared[name].choose:
                    raise AgentKitError(f"{where} '{name}', the node that chooses the command, which is never removed")
                if not declared[name].removable:
                    raise AgentKitError(f"{where} '{name}', which is declared removable: false")
            for start, end in removal.edges:
                if end not in declared or start not in declared[end].after:
                    raise AgentKitError(
                        f"{where} the edge {start} -> {end}, which is not declared ('{end}' after '{start}')"
                    )
                if start not in later:
                    raise AgentKitError(
                        f"{where} the edge {start} -> {end}, but '{start}' is not after it: only an edge between "
                        f"nodes not yet evaluated can be removed"
                    )


def parse_thoughts(text: str, source: str) -> ThoughtSpec:
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise AgentKitError(f"{source}: invalid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("nodes"), list) or not raw["nodes"]:
        raise AgentKitError(f"{source}: expected a mapping with a non-empty 'nodes' list")
    nodes = [_node(item, source) for item in raw["nodes"]]
    names = [n.name for n in nodes] + [a.node.name for n in nodes for a in n.adds]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise AgentKitError(f"{source}: node '{repeated[0]}' is declared twice")
    declared = {n.name for n in nodes}
    graph = nx.DiGraph()
    for node in nodes:
        graph.add_node(node.name)
        for dependency in node.after:
            if dependency not in declared:
                raise AgentKitError(f"{source}: node '{node.name}' depends on unknown node '{dependency}'")
            graph.add_edge(dependency, node.name)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        cycle = None
    if cycle:
        path = " -> ".join([*(edge[0] for edge in cycle), cycle[0][0]])
        raise AgentKitError(f"{source}: node '{cycle[0][0]}' depends on itself ({path})")
    choosers = [n.name for n in nodes if n.choose]
    if len(choosers) != 1:
        raise AgentKitError(
            f"{source}: exactly one node must 'choose' the command, found {len(choosers)} "
            f"({', '.join(choosers) or 'none'})"
        )
    database = raw.get("database") or {}
    if not isinstance(database, dict):
        raise AgentKitError(f"{source}: 'database' must be a mapping")
    keep = _keep(raw.get("keep"), source)
    wrong = [k for k, rule in keep.items() if k in database and not isinstance(database[k], type(rule.start()))]
    if wrong:
        raise AgentKitError(
            f"{source}: database '{wrong[0]}' must start as a {type(keep[wrong[0]].start()).__name__}, as its keep says"
        )
    _check_wiring(nodes, graph, keep, source)
    _check_removals(nodes, graph, source)
    return ThoughtSpec(
        name=str(raw.get("name") or Path(source).stem),
        system=str(raw.get("system") or "").strip(),
        database=dict(database),
        nodes=tuple(nodes),
        source=source,
        keep=keep,
    )


@cache
def load_thoughts(name_or_path: str) -> ThoughtSpec:
    """A built-in thought graph by name (``crafter``) or a YAML file by path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = BUILTIN_DIR / f"{name_or_path}.yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise AgentKitError(f"thought graph '{name_or_path}' cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start : exc.start + 1]
        raise AgentKitError(f"thought graph '{name_or_path}' is not UTF-8 text (byte {exc.start}: {byte!r})") from None
    return parse_thoughts(text, path.name)


def thoughts_for(setting: str, env: str, preset: str | None = None) -> str:
    """The thought graph a ``thoughts`` setting plays on ``env``: the one it names, or for ``auto`` the
    graph written for the environment's family. An environment with none is refused in one line."""
    if setting != AUTO:
        return setting
    family = family_of(env)
    if family.thought_graph is None:
        who = f"preset '{preset}'" if preset else "thoughts=auto"
        written = sorted(f.name for f in FAMILIES if f.thought_graph)
        raise AgentKitError(
            f"{who} has no thought graph for {family.name} environments ({env}); AgentKit graphs are written for: "
            f"{', '.join(written)} (or --set thoughts=NAME|PATH to play one anyway)"
        )
    return family.thought_graph
