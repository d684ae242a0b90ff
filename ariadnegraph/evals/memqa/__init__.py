"""Experience-conditioned memory QA (EMemBench for text games): questions generated from a run's own
trajectory, answered by an in-context, a full-history and a memory (``ask`` graph) answerer, and when asked by
EMemBench's memory agents (Mem0, LangMem: ``memagents``), scored by EMemBench's rules (appendix A.5).

Modules, one job each: ``index`` (timeline + event index), ``templates`` (table 14), ``generate``
(instantiation, preconditions, adversarial values, balanced sampling, horizon), ``paraphrase``,
``prompts``, ``answerers``, ``memagents`` (the memory libraries), ``scorer``, ``report`` (the tables),
``evaluate`` (runs -> scored items).
The scripted double answers without any of them but ``prompts`` (the transcript's format): it reads its
context, never the generator (tests/unit/test_memqa_scripted_reader.py blocks the imports).
"""
