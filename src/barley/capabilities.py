"""What a trained parser can be asked beyond parsing, declared once, and the one refusal.

Each kind of trained parser — the ``parser`` of the component that writes the trees: transition-based
(:class:`barley.transition.parser.Parser`), graph-based, biaffine, neural transition, joint — names its
``kind`` and, in ``capabilities``, which of :data:`CAPABILITIES` it takes, and has the attribute or
method of each (``max_words``, ``set_nbest``, ``set_valid_ud``, ``set_beam``; tests/test_capabilities.py
checks both against every kind). :class:`barley.pipeline.Pipeline` asks through :func:`has` and refuses
through :func:`require`, so that the command line, the service and the Python API refuse alike, in
one line; a parser may still refuse a case of a capability it has (a second-order graph-based model
has no k-best decoding: its own message).
"""

from __future__ import annotations

from dataclasses import dataclass

from barley.errors import BarleyError


@dataclass(frozen=True)
class Capability:
    option: str    # as the command line names it
    setter: str    # the parser's attribute or method that sets it
    refusal: str   # the message, ``{which}`` the parser asked


CAPABILITIES = {
    "max_words": Capability("--max-words", "max_words",
                            "--max-words limits graph-based and biaffine parsers and the joint network, whose time "
                            "and memory grow faster than the sentence; {which} has no such limit"),
    "nbest": Capability("--nbest", "set_nbest",
                        "--nbest: {which} has no k-best decoding; first-order graph-based, biaffine, joint and "
                        "transition-based (linear) parsers have"),
    "valid_ud": Capability("--valid-ud", "set_valid_ud",
                           "--valid-ud: {which} does not keep UD's rules yet; joint, biaffine and transition-based "
                           "parsers do"),
    "beam": Capability("--beam", "set_beam",
                       "--beam: only a transition-based parser searches with a beam; {which} is not one"),
}
"""Each capability a parser may declare."""

NAMES = {"transition": "transition-based", "graph": "graph-based", "neural-transition": "neural transition"}
"""A kind's name in messages, where it is not the kind itself."""


def has(parser, capability: str) -> bool:
    """Whether ``parser`` (None: the model has none) takes ``capability``."""
    return parser is not None and capability in parser.capabilities


def require(parser, capability: str) -> None:
    """Nothing if ``parser`` takes ``capability``; else the one-line refusal."""
    if has(parser, capability):
        return
    which = "this model (no parser)" if parser is None else f"the {NAMES.get(parser.kind, parser.kind)} parser of this model"
    option = CAPABILITIES[capability].option
    raise BarleyError(CAPABILITIES[capability].refusal.format(which=which),
                      fix=f"leave {option} out, or parse with a model whose parser takes it")
