"""Position models: where in a configuration the neural transition scorer looks.

A position model lists one address per line, in the feature language
(:mod:`barley.features.model`): ``Stack[0]``, ``Input[1]``, ``ldep(Stack[1])``,
``head(Lambda1[0])`` … The scorer concatenates the encoder's vectors of the words at
these positions (Kiperwasser & Goldberg 2016, §5.1); an empty position gets a learned
padding vector. ``#`` starts a comment. Each system ships a default in
``position_models/<system>.txt``; an address on a list the system lacks is refused
with the file and line, as for feature models.

Configurations are read by the feature extractor's compiled reader
(:class:`barley.features.extract.Extractor`): the positions are those of one token
atom per address, so the neural and the linear scorers read configurations alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from barley.conllu import read_text
from barley.errors import BarleyError
from barley.features.extract import Extractor, check_address
from barley.features.model import Address, Atom, Feature, FeatureModel, parse_address, parse_lines

FOLDER = "position_models"


@dataclass(frozen=True)
class PositionModel:
    addresses: tuple[Address, ...]
    text: str
    source: str = "<memory>"
    lines: tuple[int, ...] = ()

    def __len__(self) -> int:
        return len(self.addresses)

    def check(self, system) -> None:
        """Refuse an address on a list ``system``'s configurations lack (file and line named)."""
        for address, line in zip(self.addresses, self.lines or [None] * len(self.addresses)):
            check_address(address, system, "the position model", self.source, line)

    def reader(self, system):
        """``row(state)``: the node at each position of ``state`` (-1 where there is none)."""
        self.check(system)
        features = tuple(Feature((Atom("FORM", (address,)),)) for address in self.addresses)
        return Extractor(FeatureModel(features, self.text, self.source, self.lines), system).row


def parse_positions(text: str, source: str = "<memory>") -> PositionModel:
    """A position model from its text; errors name ``source:line``."""
    addresses, lines = parse_lines(text, source, parse_address, "position",
                                   "write one address per line, e.g. Stack[0] or ldep(Stack[1])")
    return PositionModel(tuple(addresses), text, source, tuple(lines))


def load_positions(path: str | None, system_name: str) -> PositionModel:
    """The user's position model if given, else ``system_name``'s default."""
    if path is not None:
        return parse_positions(read_text(path), path)
    entry = resources.files("barley.neural") / FOLDER / f"{system_name}.txt"
    if not entry.is_file():
        raise BarleyError(f"no default position model for {system_name!r}", fix="give one with --positions FILE")
    return parse_positions(entry.read_text(encoding="utf-8"), f"{FOLDER}/{system_name}.txt")
