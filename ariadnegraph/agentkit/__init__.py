"""AgentKit (Wu et al. 2024): an agent as a graph of prompt nodes declared in YAML.

:mod:`.spec` reads and checks a declaration (nodes, their prompts, dependencies, output fields,
after-query checks, database writes, temporary nodes and removals); :mod:`.database` says how an entry keeps what is
written to it; :mod:`.thoughts` compiles it to a LangGraph StateGraph that one agent step runs. The
``agentkit`` preset plays the graph written for the environment's family (Crafter: ``crafter.yaml``).
"""

from .spec import AgentKitError, NodeSpec, ThoughtSpec, load_thoughts

__all__ = ["AgentKitError", "NodeSpec", "ThoughtSpec", "load_thoughts"]
