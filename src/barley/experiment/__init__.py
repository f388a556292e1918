"""``barley experiment``: the papers' comparisons of parsers on treebanks, one command, one report.

- :mod:`~barley.experiment.spec`: what to run (TOML spec: treebanks, parsers, metrics);
- :mod:`~barley.experiment.presets`: the specs of each paper's comparison;
- :mod:`~barley.experiment.runner`: train, parse and score every (treebank, parser) pair,
  resumable and in parallel, everything stored under one output folder;
- :mod:`~barley.experiment.report`: the Markdown and HTML report of the stored runs.
"""
