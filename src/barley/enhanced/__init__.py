"""Enhanced Universal Dependencies: the graph of the DEPS column, where a word may have several heads.

:mod:`barley.enhanced.deps` reads and writes the DEPS column; :mod:`barley.enhanced.rules`
makes the graph from a basic tree by rules, for any language with UD's relations; :mod:`barley.enhanced.enhancer`
fills the DEPS column of parsed sentences (``barley parse --enhanced``). The graph
and its labels are those of the UD guidelines
(https://universaldependencies.org/u/overview/enhanced-syntax.html); ELAS and EULAS, the
IWPT 2020 shared task's scores of it, are in :mod:`barley.evaluation.conll18`.
"""
