"""randomize, seeded random weights for a trained parser: for test_fast and test_fast_beam."""

from __future__ import annotations

import numpy as np

from barley.learners import SplitLearner


def randomize(parser, seed: int):
    """Seeded random weights (the "no feature" row stays zero, as every learner keeps it)."""
    rng = np.random.default_rng(seed)
    learner = parser.learner
    parts = learner.parts if isinstance(learner, SplitLearner) else [learner]
    for part in parts:
        part.weights = rng.normal(size=part.weights.shape).astype(np.float32)
        part.weights[-1] = 0.0
        if hasattr(part, "bias"):
            part.bias = rng.normal(size=part.bias.shape).astype(np.float32)
    if isinstance(learner, SplitLearner):
        learner._scoring = None
    parser._compiled = None
    return parser
