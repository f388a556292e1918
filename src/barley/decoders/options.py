"""How a model's scores become trees: the decoder, its order and threshold, one root or several, and
whether arcs that cross a given arc are avoided. The graph-based parser's options extend these
(:class:`barley.graph.model.GraphOptions`); the neural parsers decode with these alone."""

from __future__ import annotations

from dataclasses import dataclass

from barley.decoders.nonprojective_approx import DEFAULT_THRESHOLD
from barley.errors import BarleyError
from barley.models import check

DECODERS = ("eisner", "mst", "eisner+npa")
"""The decoders a graph-based or neural model chooses from, by name. A tuple, not a registry
(:mod:`barley.registry`): a decoder is no object one could plug in but a choice that several places
act on together (the decoding, the marginals of the confidence, the tree class given arcs must fit,
second-order decoding, the description), each with its own code for each decoder; one decoder
interface that those places call is what would make decoders pluggable."""

RARE_CROSSING = 0.02
"""Below this share of crossing arcs in its training trees, a model avoids arcs that cross a given
arc (:meth:`DecoderOptions.avoids_crossing_given`). Measured with the joint networks, 50% of the gold
arcs given at random, LAS on the free words with and without avoiding them: UD_English-EWT (0.39%
of its training arcs cross another) 86.84 → 88.00, UD_Turkish-IMST (1.06%) 64.42 → 66.60,
UD_Gothic-PROIEL (5.95%) 77.87 → 77.52, UD_Latin-Perseus (14.41%) 57.10 → 55.89."""


@dataclass
class DecoderOptions:
    WHAT = "the decoding options"
    """What a model file's entry of these options is called in its errors."""

    decoder: str = "eisner"
    order: int = 1
    npa_threshold: float = DEFAULT_THRESHOLD
    single_root: bool = True
    crossing_arcs: float = -1.0
    """The share of the training trees' arcs that cross another (:func:`barley.tree.crossing_share`);
    -1 where it was not measured (models written before it was)."""

    @classmethod
    def from_json(cls, entry: dict):
        """The options of a model file's manifest entry, each of its type (:func:`barley.models.check.options`),
        then checked (:meth:`check`)."""
        options = check.options(cls, entry, cls.WHAT)
        options.check()
        return options

    def check(self) -> None:
        if self.decoder not in DECODERS:
            raise BarleyError(f"unknown decoder {self.decoder!r}", fix="use one of " + ", ".join(DECODERS))
        if self.order not in (1, 2):
            raise BarleyError(f"order {self.order} is not supported", fix="use --order 1 or 2")
        if not self.npa_threshold >= 0:  # a move must raise the tree's score, or moves could undo each other forever
            raise BarleyError(f"the non-projective approximation's threshold must be at least 0, not "
                              f"{self.npa_threshold}", fix="e.g. --npa-threshold 0.3")
        if not isinstance(self.crossing_arcs, (int, float)) or not (
                self.crossing_arcs == -1 or 0 <= self.crossing_arcs <= 1):
            raise BarleyError(f"the share of crossing arcs must be in [0, 1] (or -1: not measured), not "
                              f"{self.crossing_arcs!r}")
        if self.order == 2 and self.decoder == "mst":
            raise BarleyError("second-order MST decoding is NP-hard",
                              fix="use --decoder eisner+npa for non-projective second-order parsing")

    def avoids_crossing_given(self) -> bool:
        """Whether arcs that cross a given arc are avoided (:func:`barley.constraints.constrained_scores`):
        when crossing arcs are rare in the trees the model learned from, an arc that crosses a
        given one is far more likely to be wrong than right. Projective decoders never build one."""
        return 0 <= self.crossing_arcs < RARE_CROSSING
