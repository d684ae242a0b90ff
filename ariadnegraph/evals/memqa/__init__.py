"""Experience-conditioned memory QA (EMemBench for text games): questions generated from a run's own
trajectory, answered by an in-context, a full-history and a memory (``ask`` graph) answerer, scored by
EMemBench's rules (appendix A.5).

Modules, one job each: ``index`` (timeline + event index), ``templates`` (table 14), ``generate``
(instantiation, preconditions, adversarial values, balanced sampling, horizon), ``paraphrase``,
``prompts``, ``answerers``, ``scorer``, ``report`` (the table), ``evaluate`` (runs -> scored items).
Nothing is imported here, so the scripted model can read ``templates`` without pulling in the graphs.
"""
