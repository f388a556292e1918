"""Scoring parsers: :mod:`barley.evaluation.attachment` (LAS, UAS, LEM, by relation and length,
calibration of confidence, McNemar), :mod:`barley.evaluation.conll18` (the CoNLL 2018 shared
task's metrics from raw text: tokens, sentences, MLAS, BLEX) and :mod:`barley.evaluation.parallel`
(one large file scored on every core). The function ``barley.evaluate`` is the first's."""
