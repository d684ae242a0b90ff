"""ariadnegraph: LLM agents for long text games with a temporal knowledge-graph world model."""

__version__ = "0.1.0"
