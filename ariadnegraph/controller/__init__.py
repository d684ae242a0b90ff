"""The controller: what code proposes and vetoes at each step, read from one typed view of it (:class:`View`).

It works out the next step (a text read, the goal, a key for a lock; ``steps``), what memory says the step needs and
the way to it (``finding``), what the game family's rules forbid (``rules``), and the guards the actor asks of a
command (``guards``). Nodes build the view once where they ask (``nodes/common.controller_view``); nothing here reads
the agent's state, context or session, and nothing here calls a model.
"""
