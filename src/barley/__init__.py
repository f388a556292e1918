"""barley: data-driven dependency parsing (a parser generator).

Read and write treebanks losslessly, measure their structure, train transition-based
and graph-based parsers, parse, and evaluate.
"""

__version__ = "0.1.0"

from barley.conllu import Sentence, read, write  # noqa: E402
from barley.parser import load, train  # noqa: E402
from barley.evaluate import evaluate  # noqa: E402  (the function shadows the module name on purpose)

__all__ = ["Sentence", "read", "write", "train", "load", "evaluate", "__version__"]
