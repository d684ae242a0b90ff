"""What a LangGraph server loads beside the graphs (langgraph.json): its auth, its long-term store, its checkpointer."""
