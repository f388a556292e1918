"""Pipelines: text or tokenized sentences in, analysed sentences out, in one model file.

:mod:`~barley.pipeline.components` (the kinds of component, their interface and registry),
:mod:`~barley.pipeline.pipeline` (:class:`Pipeline`: running, model files), :mod:`~barley.pipeline.request`
(one parse request, checked once), :mod:`~barley.pipeline.training`
(training and jackknifing, fine-tuning), :mod:`~barley.pipeline.scoring` (scores on gold sentences); the
components themselves (``tokenize.py``, ``tagger.py``, ``parse.py``, ``joint.py``) and
:mod:`~barley.pipeline.stream` (``Pipeline.pipe`` over many texts)."""

from barley.pipeline.components import (
    COMPONENTS,
    JOBS,
    NOUNS,
    WHAT_RUNS,
    check_options,
    component_class,
    component_names,
    components_for,
    does,
    has_values,
    ordered,
    require_component,
)
from barley.pipeline.pipeline import Pipeline, loader
from barley.pipeline.request import ParseRequest
from barley.pipeline.scoring import SCORES, accuracies
from barley.pipeline.training import DEFAULT_JACKKNIFE, folds

__all__ = ["COMPONENTS", "DEFAULT_JACKKNIFE", "JOBS", "NOUNS", "ParseRequest", "SCORES", "WHAT_RUNS", "Pipeline", "accuracies",
           "check_options", "component_class", "component_names", "components_for", "does", "folds", "has_values",
           "loader", "ordered", "require_component"]
