"""The transition-based parser family (Nivre 2008): a transition system, a feature model and a learner.

Read in the order of the data's path:

- :mod:`barley.transition.featurize`: a configuration's features, as ids, a batch at a time;
- :mod:`barley.transition.loop`: the one loop that advances configurations in lockstep
  (parsing, collecting training instances, exploring), with the policy as an object;
- :mod:`barley.transition.training`: the oracles' policies (static, dynamic with exploration);
- :mod:`barley.transition.parser`: the trained parser (the ``transition`` kind of
  :mod:`barley.kinds`), its training, its model file;
- :mod:`barley.transition.fast`: the same greedy loop compiled (Cython), tested against the
  reference path above.

The systems themselves are :mod:`barley.systems` (one file each), the feature models
:mod:`barley.features`, the learners :mod:`barley.learners`: the papers' leaves, shared with
the neural transition parser (:mod:`barley.neural`).
"""
