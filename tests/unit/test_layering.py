"""The package's imports run one way (docs/architecture.md): memory and environments at the bottom,
the agent's plumbing above them, then the nodes, then the graphs, then the CLI, evals, reports and
test doubles. Built from the source's import statements (AST), so a new upward import, a circle of
files or a node importing another node fails here, not in a review. The test doubles stay out of
the product: no module outside ``ariadnegraph.testing`` imports them."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import ariadnegraph

PACKAGE = Path(ariadnegraph.__file__).parent

# Bottom to top, by the first part of a module's name under ariadnegraph ("" is the package itself).
LAYERS: list[set[str]] = [
    {"", "config", "prompting", "runs", "fetch", "vocabulary", "lazy"},  # no imports from the package
    {"memory", "envs", "models", "tools", "tracing"},  # the world, the models and what reads them
    {"agent"},  # context, presets, state, the live session of a run
    {"controller"},  # what code proposes and vetoes, read from one typed view of the step
    {"nodes"},  # one role each
    {"agentkit"},  # declared thought graphs (AgentKit), compiled from YAML; they call models as nodes do
    {"graphs"},  # the state machines
    {"play", "live", "evals", "report", "cli", "server", "testing"},  # what users and tests drive
]
# Modules of nodes/ that nodes share; every other file there is one node, importing none of the others.
SHARED_NODE_MODULES = {"ariadnegraph.nodes", "ariadnegraph.nodes.common", "ariadnegraph.nodes.prompts", "ariadnegraph.nodes.schemas",
                       "ariadnegraph.nodes.choice"}
# What the controller may not read: the agent's state, context and session (it reads its own typed view, built by
# nodes/common.controller_view), and no node (it sits below them).
CONTROLLER_FORBIDS = ("ariadnegraph.agent.state", "ariadnegraph.agent.context", "ariadnegraph.agent.session",
                      "ariadnegraph.nodes", "ariadnegraph.models")


def module_name(path: Path) -> str:
    return ".".join(("ariadnegraph", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported_modules(path: Path) -> list[str]:
    """Absolute names of every module a file imports (relative imports resolved against its package;
    ``from package import name`` counts as importing ``package.name`` when that is a module)."""
    package = ".".join(("ariadnegraph", *path.relative_to(PACKAGE).parent.parts))
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            names += [f"{module}.{alias.name}" if f"{module}.{alias.name}" in MODULES else module for alias in node.names]
    return names


def import_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for name, path in MODULES.items():
        graph.add_node(name)
        graph.add_edges_from((name, target) for target in imported_modules(path) if target in MODULES and target != name)
    return graph


def layer_of(module: str) -> int:
    area = module.split(".")[1] if "." in module else ""
    for index, areas in enumerate(LAYERS):
        if area in areas:
            return index
    raise AssertionError(f"{module}: its folder is in no layer of LAYERS")


def test_every_module_has_a_layer():
    for name in MODULES:
        layer_of(name)


def test_no_import_goes_up_a_layer():
    upward = sorted(f"{a} -> {b}" for a, b in import_graph().edges if layer_of(b) > layer_of(a))
    assert upward == []


def test_no_circle_of_files():
    assert list(nx.simple_cycles(import_graph())) == []


def test_no_node_imports_another_node():
    nodes = [m for m in MODULES if m.startswith("ariadnegraph.nodes.")]
    crossing = sorted(f"{a} -> {b}" for a, b in import_graph().edges
                      if a in nodes and b in nodes and b not in SHARED_NODE_MODULES and a not in SHARED_NODE_MODULES)
    assert crossing == []


def test_the_controller_reads_its_view_not_the_agents_state_context_or_session():
    controller = [m for m in MODULES if m.startswith("ariadnegraph.controller")]
    assert "ariadnegraph.controller.guards" in controller  # (the scan sees the package)
    reads = sorted(f"{a} -> {b}" for a, b in import_graph().edges
                   if a in controller and any(b == f or b.startswith(f + ".") for f in CONTROLLER_FORBIDS))
    assert reads == []


def test_the_checks_see_what_they_must():
    graph = import_graph()
    assert ("ariadnegraph.nodes.actor", "ariadnegraph.nodes.common") in graph.edges  # relative import resolved
    assert ("ariadnegraph.graphs.agent", "ariadnegraph.nodes.planner") in graph.edges  # absolute import
    assert layer_of("ariadnegraph.nodes.actor") > layer_of("ariadnegraph.agent.session") > layer_of("ariadnegraph.memory.world")
    # a made-up upward import would be caught
    assert layer_of("ariadnegraph.graphs.agent") > layer_of("ariadnegraph.nodes.actor")


def test_no_product_module_imports_the_test_doubles():
    offenders = {str(path.relative_to(PACKAGE)): name
                 for path in PACKAGE.rglob("*.py") if "testing" not in path.relative_to(PACKAGE).parts
                 for name in imported_modules(path) if name.startswith("ariadnegraph.testing")}
    assert offenders == {}


def test_the_scan_sees_relative_imports():
    doubles = PACKAGE / "testing" / "scripted" / "model.py"
    assert "ariadnegraph.nodes.schemas" in imported_modules(doubles)
    assert "ariadnegraph.prompting" in imported_modules(doubles)


RESOLVERS = {"live_session", "open_session", "memory_view", "end_session", "get_session"}  # agent.session's lookups


def session_names(path: Path) -> set[str]:
    """The names a file imports from ariadnegraph.agent.session."""
    package = ".".join(("ariadnegraph", *path.relative_to(PACKAGE).parent.parts))
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            if ".".join([*base, node.module] if node.module else base) == "ariadnegraph.agent.session":
                names |= {alias.name for alias in node.names}
    return names


def test_no_node_looks_up_the_episodes_resources():
    """Nodes are handed the session (graphs/agent.py resolves it): none imports a lookup that could open a run or
    replay its game, only the session's type."""
    looking_up = {name: sorted(session_names(path) & RESOLVERS) for name, path in MODULES.items()
                  if name.startswith(("ariadnegraph.nodes.", "ariadnegraph.agentkit.")) and session_names(path) & RESOLVERS}
    assert looking_up == {}
    assert session_names(MODULES["ariadnegraph.nodes.actor"]) == {"Session"}  # the scan sees a node's import
    assert "live_session" in session_names(MODULES["ariadnegraph.graphs.agent"])
