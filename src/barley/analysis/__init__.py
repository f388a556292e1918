"""Measuring treebanks and transition systems: :mod:`barley.analysis.treebank` (non-projectivity,
planarity, gap degree: ``barley analyze``) and :mod:`barley.analysis.oracles` (the oracles'
transition counts and running time over a treebank: ``barley oracle``)."""
