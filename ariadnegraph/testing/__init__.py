"""Test doubles, never imported by product modules: the offline ``scripted`` chat model (registered as
a model through the ``ariadnegraph.chat_models`` entry point) and an OpenAI-wire server answered by it,
with faults on demand."""
