"""What the model layer says to a model on its own account: asking again after a reply that could
not be used. (Each role's prompts live with the nodes, in :mod:`ariadnegraph.nodes.prompts`.)"""

REASK_INVALID = "Your reply could not be used as {schema}: {problem}\nReply again with one valid {schema} JSON object and nothing else."
EMPTY_REPLY = "(an empty reply)"  # stands for the model's own empty turn when the conversation is sent back
REASK_CUT = "the reply was cut off at the length limit; write less: fewer items and shorter texts"
REASK_TOOL = "That was not a tool call that could be read. Call one of your tools ({tools}) with its arguments as JSON, or answer."
TOOL_RESULT = "Result of {call}:\n{result}"
JSON_TOOLS = """Memory tools (you see their results after each lookup):
{tools}
Reply with one JSON object and nothing else: a lookup such as {example}, or, once you know enough,
{{"answer": "one line per finding"}}."""
