"""barley: data-driven dependency parsing (a parser generator).

Read and write treebanks losslessly, measure their structure, train transition-based
and graph-based parsers, parse, and evaluate.
"""

__version__ = "0.1.0"

from barley.conllu import Sentence, read, write  # noqa: E402
from barley.evaluation.attachment import evaluate  # noqa: E402  (the function shadows the module name on purpose)

__all__ = ["Sentence", "read", "write", "train", "load", "parse", "evaluate", "__version__"]


def __getattr__(name: str):
    """``barley.train``, imported on first use: what training needs is not loaded by commands
    that never train, e.g. ``barley evaluate``."""
    if name == "train":
        from barley.kinds import train

        return train
    raise AttributeError(f"module 'barley' has no attribute {name!r}")


def load(name_or_path: str):
    """The model ``name_or_path`` as a :class:`barley.pipeline.Pipeline`: the name of a shipped model
    or of an installed model package (``barley models``, e.g. ``"en_ewt"``), a language code (``"en"``) or the path of a model file (a pipeline, or a parser of any
    kind, which becomes a pipeline of one parser). ``.parse(text or sentences)`` analyses, and
    ``.pipe(texts, batch_size=..., n_process=...)`` streams many texts, as spaCy's ``nlp.pipe``."""
    from barley.models.catalog import resolve
    from barley.pipeline import Pipeline

    return Pipeline.load(resolve(name_or_path))


_default_pipeline = None


def parse(text: str) -> list[Sentence]:
    """The sentences of ``text`` (plain text, paragraphs separated by blank lines), tokenized,
    tagged, lemmatized and parsed by the default model that ships with barley (loaded once).
    With another model: ``barley.load(path).parse(text)``."""
    global _default_pipeline
    if _default_pipeline is None:
        from barley.models.shipped import default_model_path
        from barley.pipeline import Pipeline

        _default_pipeline = Pipeline.load(default_model_path())
    return list(_default_pipeline.parse(text))
