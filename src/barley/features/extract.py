"""Feature extraction: from configurations to integer feature ids, for a whole batch at once.

Three steps, each one place:

1. ``Extractor.row(state)`` reads the configuration: the position of every address
   of the model (-1 when it does not exist) and the value of every attribute of the
   partial graph (DEPREL, LDEPS, RDEPS). This is the only per-state Python work; it
   runs a function generated from the feature model (``Extractor.source``), and
   :meth:`Extractor.reference_row` is the plain interpreter it must agree with.
2. ``Extractor.keys(rows, ...)`` turns a batch of rows into one int64 key per
   feature (numpy, vectorised): token attributes are looked up in integer-coded
   token tables (:class:`TokenTable`), conjunctions are mixed-radix combinations.
3. :class:`FeatureIndex` maps keys to dense feature ids (a sorted array and
   ``searchsorted``); keys never seen in training map to the id ``size`` (a zero
   weight row).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from operator import itemgetter

import numpy as np

from barley.conllu import FEATS, Sentence
from barley.errors import InputError
from barley.features.model import Address, Atom, FeatureModel, TOKEN_ATTRIBUTES
from barley.features.vocabulary import COLUMN_OF, NONE, ROOT, UNKNOWN, Vocabulary, feats_atoms

# Where each address base lives in a configuration: (State attribute, element 0 is the list's end?).
# Stacks have their top at the end of the Python list; the buffer has its front at index 0.
LISTS = {
    "Stack": ("stack", True),
    "Input": ("buffer", False),
    "Lambda1": ("lambda1", True),
    "Lambda2": ("lambda2", False),
    "Inactive": ("inactive", True),
}

DIST_BUCKETS = (0, 1, 2, 3, 4, 5, 5, 5, 5, 5)  # |d| 0..9 → bucket; 10 and more → 6
DIST_VALUES = 2 * 7 + 1
COUNT_CAP = 3


@dataclass
class TokenTable:
    """Integer-coded token attributes of many sentences, concatenated.

    Sentence k's node i (0 = root) is row ``offsets[k] + i``; the last row is the
    NONE token that a missing address points to. ``tokens`` has one column per
    single-valued attribute (named in ``attributes``); ``feats`` is padded with -1.
    """

    attributes: list[str]
    tokens: np.ndarray
    feats: np.ndarray | None
    offsets: np.ndarray

    @property
    def none_row(self) -> int:
        return len(self.tokens) - 1

    @classmethod
    def build(cls, sentences: Sequence[Sentence], vocabularies: dict[str, Vocabulary]) -> TokenTable:
        lengths = np.array([len(s) + 1 for s in sentences], dtype=np.int64)
        offsets = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        words = list(chain.from_iterable(sentence.words for sentence in sentences))
        is_word = np.ones(offsets[-1] + 1, dtype=bool)
        is_word[offsets] = False  # node 0 of every sentence, and the NONE row after the last one
        attributes = [a for a in vocabularies if a != "FEATS"]
        tokens = np.full((offsets[-1] + 1, len(attributes)), ROOT, dtype=np.int64)
        tokens[-1] = NONE
        for j, attribute in enumerate(attributes):  # C-level loops: this runs for every parsed batch
            values = map(itemgetter(COLUMN_OF[attribute]), words)
            tokens[is_word, j] = np.fromiter(map(vocabularies[attribute].ids.get, values, repeat(UNKNOWN)),
                                             dtype=np.int64, count=len(words))
        feats = None
        if "FEATS" in vocabularies:
            ids = vocabularies["FEATS"].ids
            # few distinct FEATS strings: number them, split and look up each once
            number = {value: k for k, value in enumerate(dict.fromkeys(map(itemgetter(FEATS), words)))}
            coded = [[ids.get(a, UNKNOWN) for a in feats_atoms(value)] for value in number]
            width = max(map(len, coded), default=1)
            distinct = np.array([a + [-1] * (width - len(a)) for a in coded], dtype=np.int64).reshape(-1, width)
            feats = np.full((offsets[-1] + 1, width), -1, dtype=np.int64)
            feats[~is_word, 0] = ROOT
            feats[-1, 0] = -1
            if words:
                codes = np.fromiter(map(number.__getitem__, map(itemgetter(FEATS), words)), dtype=np.int64,
                                    count=len(words))
                feats[is_word] = distinct[codes]
        return cls(attributes, tokens, feats, offsets)


# --- reading a configuration -------------------------------------------------------------

def list_element(state, base: str, index: int) -> int:
    """The element ``index`` of the list ``base`` (an address base: Stack, Input, ...) of ``state``; -1: none."""
    attribute, from_end = LISTS[base]
    items = getattr(state, attribute)
    if index < 0:  # counted from the far end: -1 is the last element (λ2[n] in Nivre 2008)
        index, from_end = -index - 1, not from_end
    if index >= len(items):
        return -1
    return items[-1 - index] if from_end else items[index]


def _lsib(node: int, heads, children) -> int:
    head = heads[node]
    if head < 0:
        return -1
    siblings = children[head]
    at = bisect_left(siblings, node)
    return siblings[at - 1] if at > 0 else -1


def _rsib(node: int, heads, children) -> int:
    head = heads[node]
    if head < 0:
        return -1
    siblings = children[head]
    at = bisect_left(siblings, node) + 1
    return siblings[at] if at < len(siblings) else -1


def resolve(address: Address, state) -> int:
    """The node at ``address`` in ``state``, or -1 (the reference interpreter)."""
    node = list_element(state, address.base, address.index)
    for function in address.path:
        if node < 0:
            return -1
        if function == "head":
            node = state.heads[node]
        elif function == "ldep":
            node = state.children[node][0] if state.children[node] else -1
        elif function == "rdep":
            node = state.children[node][-1] if state.children[node] else -1
        elif function == "lsib":
            node = _lsib(node, state.heads, state.children)
        elif function == "rsib":
            node = _rsib(node, state.heads, state.children)
        elif function == "pred":
            node = node - 1 if node > 0 else -1
        elif function == "succ":
            node = node + 1 if node < state.n else -1
    return node


def state_value(atom: Atom, state) -> int:
    """Encoded value of a DEPREL/LDEPS/RDEPS atom: 0 when the address is empty."""
    node = resolve(atom.addresses[0], state)
    if node < 0:
        return 0
    if atom.attribute == "DEPREL":
        return state.labels[node] + 2  # 1 = no label yet
    left = bisect_left(state.children[node], node)
    count = left if atom.attribute == "LDEPS" else len(state.children[node]) - left
    return min(count, COUNT_CAP) + 1


def _code_for(address: Address, names: dict[Address, str]) -> str:
    """Python expression computing ``address`` from already computed inner addresses."""
    if not address.path:
        attribute, from_end = LISTS[address.base]
        index = address.index
        if index < 0:
            index, from_end = -index - 1, not from_end
        element = f"{attribute}[{-1 - index}]" if from_end else f"{attribute}[{index}]"
        return f"{element} if len({attribute}) > {index} else -1"
    inner = names[Address(address.base, address.index, address.path[:-1])]
    function = address.path[-1]
    return {
        "head": f"heads[{inner}] if {inner} >= 0 else -1",
        "ldep": f"(children[{inner}][0] if children[{inner}] else -1) if {inner} >= 0 else -1",
        "rdep": f"(children[{inner}][-1] if children[{inner}] else -1) if {inner} >= 0 else -1",
        "lsib": f"_lsib({inner}, heads, children) if {inner} >= 0 else -1",
        "rsib": f"_rsib({inner}, heads, children) if {inner} >= 0 else -1",
        "pred": f"{inner} - 1 if {inner} > 0 else -1",
        "succ": f"{inner} + 1 if 0 <= {inner} < n else -1",
    }[function]


def _value_code(atom: Atom, node: str) -> str:
    if atom.attribute == "DEPREL":
        return f"(labels[{node}] + 2 if {node} >= 0 else 0)"
    left = f"bisect_left(children[{node}], {node})"
    count = left if atom.attribute == "LDEPS" else f"len(children[{node}]) - {left}"
    return f"(min({count}, {COUNT_CAP}) + 1 if {node} >= 0 else 0)"


class Extractor:
    """A compiled feature model for one transition system."""

    def __init__(self, model: FeatureModel, system):
        self.model = model
        self.system_name = system.name
        check_addresses(model, system)
        self.atoms = model.atoms()
        # Columns of a row: positions of the addresses whose tokens are looked up, then state values.
        positions: dict[Address, None] = {}
        for atom in self.atoms:
            if atom.attribute in TOKEN_ATTRIBUTES or atom.attribute == "DIST":
                for address in atom.addresses:
                    positions.setdefault(address)
        self.position_columns = list(positions)
        self.value_atoms = [a for a in self.atoms if a.attribute not in TOKEN_ATTRIBUTES and a.attribute != "DIST"]
        self.source = self._generate()
        self._plans: dict = {}
        namespace: dict = {"_lsib": _lsib, "_rsib": _rsib, "bisect_left": bisect_left}
        exec(compile(self.source, f"<feature model {model.source}>", "exec"), namespace)
        self.row = namespace["row"]

    @property
    def width(self) -> int:
        return len(self.position_columns) + len(self.value_atoms)

    def _generate(self) -> str:
        names = {address: f"a{i}" for i, address in enumerate(self.model.addresses())}
        bases = sorted({address.base for address in names})
        lines = ["def row(state):",
                 "    heads = state.heads; children = state.children; labels = state.labels; n = state.n"]
        lines += [f"    {LISTS[b][0]} = state.{LISTS[b][0]}" for b in bases]
        lines += [f"    {name} = {_code_for(address, names)}" for address, name in names.items()]
        outputs = [names[a] for a in self.position_columns]
        outputs += [_value_code(atom, names[atom.addresses[0]]) for atom in self.value_atoms]
        lines.append(f"    return ({', '.join(outputs)},)")
        return "\n".join(lines) + "\n"

    def reference_row(self, state) -> tuple[int, ...]:
        """What :attr:`row` computes, by interpretation (the readable reference)."""
        return (tuple(resolve(address, state) for address in self.position_columns)
                + tuple(state_value(atom, state) for atom in self.value_atoms))

    def atom_sizes(self, vocabularies: dict[str, Vocabulary], n_labels: int) -> list[int]:
        sizes = []
        for atom in self.atoms:
            if atom.attribute in TOKEN_ATTRIBUTES:
                sizes.append(len(vocabularies[atom.attribute]))
            elif atom.attribute == "DIST":
                sizes.append(DIST_VALUES)
            elif atom.attribute == "DEPREL":
                sizes.append(n_labels + 2)
            else:
                sizes.append(COUNT_CAP + 2)
        return sizes

    def template_spaces(self, sizes: Sequence[int]) -> list[int]:
        """How many distinct values each template (feature) can take."""
        size_of = dict(zip(self.atoms, sizes))
        return [int(np.prod([size_of[atom] for atom in feature.atoms], dtype=np.int64))
                for feature in self.model.features]

    def slot_templates(self, feats_width: int) -> np.ndarray:
        """The template of each slot (column) of :meth:`keys`, for a FEATS table this wide."""
        scalar = [t for t, f in enumerate(self.model.features) if all(a.attribute != "FEATS" for a in f.atoms)]
        feats = [t for t, f in enumerate(self.model.features) if any(a.attribute == "FEATS" for a in f.atoms)]
        return np.array(scalar + [t for t in feats for _ in range(feats_width)], dtype=np.int64)

    def keys(self, rows: np.ndarray, sentence_rows: np.ndarray, table: TokenTable,
             sizes: Sequence[int]) -> np.ndarray:
        """One int64 key per (instance, feature slot); -1 where the slot has no value.

        ``rows``: (B, width) from :attr:`row`; ``sentence_rows``: (B,) the table row of
        each instance's node 0. The key of a conjunction of atoms with values v1, v2, v3
        (value ranges s1, s2) in template t of T is ``((v3·s2 + v2)·s1 + v1)·T + t``.
        A FEATS conjunction fills one slot per atom of FEATS.
        """
        plan = self.key_plan(tuple(sizes), tuple(table.attributes))
        positions = rows[:, :len(self.position_columns)]
        global_rows = np.where(positions >= 0, sentence_rows[:, None] + positions, table.none_row)
        values = np.zeros((len(rows), len(self.atoms) + 1), dtype=np.int64)  # last column: constant 0
        values[:, plan.token_atoms] = table.tokens[global_rows[:, plan.token_positions], plan.token_attributes]
        values[:, plan.value_atoms] = rows[:, plan.value_columns]
        for atom, (a, b) in plan.dist_atoms:
            distance = positions[:, b] - positions[:, a]
            bucket = _DIST_BUCKET[np.minimum(np.abs(distance), 10)]
            encoded = np.where(distance >= 0, 1 + bucket, 8 + bucket)
            values[:, atom] = np.where((positions[:, a] >= 0) & (positions[:, b] >= 0), encoded, 0)
        # one term per atom position (not a sum over a length-3 axis, which numpy does slowly)
        keys = plan.scalar_templates + values[:, plan.scalar_atoms[:, 0]] * plan.scalar_multipliers[:, 0]
        for position in range(1, plan.scalar_atoms.shape[1]):
            keys += values[:, plan.scalar_atoms[:, position]] * plan.scalar_multipliers[:, position]
        if not plan.feats_templates:
            return keys
        slots = [keys]
        if table.feats is None:
            raise ValueError("FEATS templates over a table without FEATS")
        for template, atoms, multipliers, feats_position, feats_multiplier in plan.feats_templates:
            base = (values[:, atoms] * multipliers).sum(axis=1) + template
            feats = table.feats[global_rows[:, feats_position]]  # (B, K), -1 = padding
            slots.append(np.where(feats >= 0, base[:, None] + feats * feats_multiplier, -1))
        return np.concatenate(slots, axis=1)

    def key_plan(self, sizes: tuple[int, ...], attributes: tuple[str, ...]) -> _KeyPlan:
        """Index arrays that turn :meth:`keys` into a few numpy operations (cached)."""
        cached = self._plans.get((sizes, attributes))
        if cached:
            return cached
        position = {address: i for i, address in enumerate(self.position_columns)}
        atom_index = {atom: i for i, atom in enumerate(self.atoms)}
        constant = len(self.atoms)
        token = [(i, position[a.addresses[0]], attributes.index(a.attribute))
                 for i, a in enumerate(self.atoms) if a.attribute in TOKEN_ATTRIBUTES and a.attribute != "FEATS"]
        value = [(atom_index[a], len(self.position_columns) + j) for j, a in enumerate(self.value_atoms)]
        dist = [(atom_index[a], (position[a.addresses[0]], position[a.addresses[1]]))
                for a in self.atoms if a.attribute == "DIST"]
        count = len(self.model.features)
        scalar, feats = [], []
        for t, feature in enumerate(self.model.features):
            indices, multipliers, multiplier, feats_at = [], [], count, None
            for atom in feature.atoms:
                if atom.attribute == "FEATS":
                    feats_at = (position[atom.addresses[0]], multiplier)
                else:
                    indices.append(atom_index[atom])
                    multipliers.append(multiplier)
                multiplier *= sizes[atom_index[atom]]
            if feats_at is None:
                scalar.append((t, indices, multipliers))
            else:
                feats.append((t, np.array(indices, dtype=np.int64), np.array(multipliers, dtype=np.int64),
                              *feats_at))
        width = 3
        plan = _KeyPlan(
            token_atoms=np.array([i for i, _, _ in token], dtype=np.int64),
            token_positions=np.array([p for _, p, _ in token], dtype=np.int64),
            token_attributes=np.array([a for _, _, a in token], dtype=np.int64),
            value_atoms=np.array([i for i, _ in value], dtype=np.int64),
            value_columns=np.array([c for _, c in value], dtype=np.int64),
            dist_atoms=dist,
            scalar_atoms=np.array([ix + [constant] * (width - len(ix)) for _, ix, _ in scalar],
                                  dtype=np.int64).reshape(-1, width),
            scalar_multipliers=np.array([m + [0] * (width - len(m)) for _, _, m in scalar],
                                        dtype=np.int64).reshape(-1, width),
            scalar_templates=np.array([t for t, _, _ in scalar], dtype=np.int64),
            feats_templates=feats,
        )
        self._plans[(sizes, attributes)] = plan
        return plan


_DIST_BUCKET = np.asarray(DIST_BUCKETS + (6,), dtype=np.int64)


@dataclass
class _KeyPlan:
    token_atoms: np.ndarray
    token_positions: np.ndarray
    token_attributes: np.ndarray
    value_atoms: np.ndarray
    value_columns: np.ndarray
    dist_atoms: list
    scalar_atoms: np.ndarray
    scalar_multipliers: np.ndarray
    scalar_templates: np.ndarray
    feats_templates: list


def check_addresses(model: FeatureModel, system) -> None:
    """Every address of ``model`` must be one that ``system``'s configurations have
    (``system.addresses``): a feature on a list the system lacks would always be empty."""
    for feature, line in zip(model.features, model.lines or [None] * len(model.features)):
        for atom in feature.atoms:
            for address in atom.addresses:
                check_address(address, system, f"feature {feature}", model.source, line)


def check_address(address: Address, system, user: str, source: str, line: int | None) -> None:
    """Refuse ``address`` (used by ``user``, on ``source``'s ``line``) if ``system`` lacks its list."""
    if address.base not in system.addresses:
        raise InputError(f"{user} uses {address}, but {system.name} configurations have "
                         f"no {address.base} (only {', '.join(system.addresses)})", path=source, line=line,
                         fix=f"use the addresses of {system.name} (see `barley features --system {system.name}`)")


TABLE_BUDGET = 1 << 23
"""Most entries (int32) of the direct lookup tables of one :class:`FeatureIndex` (32 MB)."""


class FeatureIndex:
    """Dense ids for the feature keys seen in training.

    The reference lookup is a binary search in the sorted keys. For speed,
    :meth:`use_tables` adds a direct lookup table for each template whose value space
    is small (tags and their conjunctions), smallest first, within ``TABLE_BUDGET``;
    templates over word pairs keep the binary search.
    """

    def __init__(self, keys: np.ndarray):
        self.keys = np.asarray(keys, dtype=np.int64)
        self._tables: tuple[int, np.ndarray, np.ndarray] | None = None

    @property
    def size(self) -> int:
        return len(self.keys)

    @classmethod
    def fit(cls, keys: np.ndarray | Sequence[np.ndarray], min_count: int = 1) -> FeatureIndex:
        """The keys (-1 = none) occurring at least ``min_count`` times in ``keys``, one array or
        chunks of one (counted chunk by chunk, so that no copy of all keys is ever made)."""
        values, counts = [], []
        for chunk in [keys] if isinstance(keys, np.ndarray) else keys:
            chunk_values, chunk_counts = np.unique(chunk[chunk >= 0], return_counts=True)
            values.append(chunk_values)
            counts.append(chunk_counts)
        if not values:
            return cls(np.zeros(0, dtype=np.int64))
        unique, inverse = np.unique(np.concatenate(values), return_inverse=True)
        totals = np.bincount(inverse, weights=np.concatenate(counts), minlength=len(unique))
        return cls(unique[totals >= min_count])

    def use_tables(self, template_count: int, spaces: Sequence[int]) -> None:
        """Direct tables for the templates with the smallest value spaces (``spaces[t]``)."""
        offsets = np.full(template_count, -1, dtype=np.int64)
        total = 0
        for t in sorted(range(template_count), key=lambda t: spaces[t]):
            if total + spaces[t] > TABLE_BUDGET:
                break
            offsets[t] = total
            total += spaces[t]
        template, local = self.keys % template_count, self.keys // template_count
        outside = local >= np.asarray(spaces, dtype=np.int64)[template]
        if outside.any():  # no feature model makes such a key: a damaged or edited model file
            raise ValueError(f"the feature key {self.keys[outside][0]} lies outside the "
                             f"{spaces[template[outside][0]]} values of its template {template[outside][0]}")
        table = np.full(total, self.size, dtype=np.int32)
        chosen = offsets[template] >= 0
        table[offsets[template[chosen]] + local[chosen]] = np.nonzero(chosen)[0]
        self._tables = (template_count, offsets, table)

    def direct_tables(self) -> tuple[int, np.ndarray, np.ndarray] | None:
        """``(template count, offset of each template's table or -1, the tables)`` of
        :meth:`use_tables`, or None (for the compiled loop, :mod:`barley.transition.fast`)."""
        return self._tables

    def ids(self, keys: np.ndarray, slot_templates: np.ndarray | None = None) -> np.ndarray:
        """Feature ids of ``keys`` (B, slots); ``size`` for absent or unseen keys.

        ``slot_templates``: the template of each slot, to use the direct tables.
        """
        if self._tables is None or slot_templates is None:
            return self._search(keys)
        template_count, offsets, table = self._tables
        direct = offsets[slot_templates] >= 0
        out = np.empty(keys.shape, dtype=np.int64)
        chosen = keys[:, direct]
        at = offsets[slot_templates[direct]] + chosen // template_count
        out[:, direct] = np.where(chosen >= 0, table[np.maximum(at, 0)], self.size)
        out[:, ~direct] = self._search(keys[:, ~direct])
        return out

    def _search(self, keys: np.ndarray) -> np.ndarray:
        if self.size == 0:
            return np.zeros(keys.shape, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.keys, keys), self.size - 1)
        found = (self.keys[at] == keys) & (keys >= 0)
        return np.where(found, at, self.size)
