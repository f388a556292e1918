"""Checks of what a model file holds, before anything is built from it.

A model file may come from anywhere (a shared model package, a download, a hand edit),
and the compiled parsing loop indexes its arrays with bounds checks off: a class id, a
weight column or a declared size that is not what the rest of the file says would make
it read or write outside its buffers. So every loader checks the arrays and manifest
entries it reads, once, at load time, here, before anything is allocated from a
declared size; any violation is one :class:`~barley.errors.ModelError` naming the file
and the array or entry. (:mod:`barley.models.archive` checks the file itself: zip damage,
each ``.npy`` header against its member's real size, the manifest's size and depth.)

Using it — every kind's ``from_files`` does this, and a new kind or format does the same::

    from barley.models import check

    with check.loading(path, "graph"):                    # any damage inside: one ModelError
        labels = check.texts(manifest["labels"], "labels", field=True, unique=True)
        check.arrays(arrays, {
            "graph_weights": check.Array("float", ("weights",)),
            "graph_allowed": check.Array("bool", ("upos", "upos", "labels")),
        }, weights=dims + label_rows * len(labels), labels=len(labels))

* :class:`Array` declares one array: its ``kind`` (``"int"``: signed integers;
  ``"float"``: finite floats unless ``finite=False``; ``"bool"``), its
  ``shape`` (each dimension an int, a size name, or None for any), the range
  ``[low, high)`` of its values (ints or size names), an ``order`` (``"increasing"``:
  sorted and unique; ``"nondecreasing"``) and whether it is ``optional``.
* :func:`arrays` checks a file's arrays (or one part of them, :func:`part`) against a
  dict of specs. A size name is bound by the keyword arguments (sizes the caller knows,
  e.g. from the manifest: each must be an int) or else by the first array with that
  dimension; every other use must agree (equal lengths of rows, columns and values).
  Arrays the specs do not name are refused unless their names start with one of
  ``others`` (the prefixes that another check reads). Returns the sizes, bound ones
  included.
* :func:`part` is the arrays under a prefix (one component's, one learner's), keeping
  their names in the file for the messages (:func:`array_name`).
* :func:`integer`, :func:`number`, :func:`boolean`, :func:`text`, :func:`texts`,
  :func:`items`, :func:`mapping`, :func:`equal` check manifest entries (``what`` names the entry);
  :func:`options` reads a dataclass of options, each entry of its default's type.
* :func:`loading` turns whatever a damaged or hand-edited manifest still makes the
  building code raise (a missing key, a wrong type) into one ModelError naming the file.
* The neural networks' weights are checked by
  :func:`barley.neural.numpy_encoder.checked_weights` against the shapes their options imply.

The checks read each array once (min, max, order, finiteness): O(size), at load time
only. ``barley.transition.fast`` checks again what the compiled loop receives.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from barley.errors import BarleyError, ModelError

FIX = "the file is damaged or was edited: use the model file as barley wrote it, or train the model again"
DAMAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RuntimeError)
"""What building a model from a damaged or hand-edited manifest raises (RuntimeError: PyTorch's, e.g. a
module too large to describe); :func:`loading` turns it into a ModelError."""
KINDS = {"int": "i", "float": "f", "bool": "b"}
"""numpy dtype kinds of each :class:`Array` kind: signed ints only, as barley writes them (the code that
reads index arrays does signed arithmetic with them)."""
CONLLU_BREAKS = ("\t", "\n", "\r")
"""What a value written into a CoNLL-U column must not hold (it would split the column or the line)."""


class Arrays(dict):
    """A model file's arrays, or the part of them under a prefix, with the prefix that their names
    have in the file (:func:`part`), so that a message names the array as the file does."""

    prefix = ""


def part(arrays: Mapping[str, np.ndarray], prefix: str) -> Arrays:
    """The arrays whose names start with ``prefix`` (``"parse."``, ``"learner."``), the prefix cut off."""
    found = Arrays({name[len(prefix):]: value for name, value in arrays.items() if name.startswith(prefix)})
    found.prefix = getattr(arrays, "prefix", "") + prefix
    return found


def array_name(arrays: Mapping, name: str) -> str:
    """``array 'NAME'``, as the file names the array ``name`` of ``arrays`` (for a message)."""
    return f"array {getattr(arrays, 'prefix', '') + name!r}"


def fail(what: str) -> NoReturn:
    """A ModelError about the model's contents (:func:`loading` adds the file's name)."""
    raise ModelError(what, fix=FIX)


@dataclass(frozen=True)
class Array:
    """What one array must be (see the module's docstring)."""

    kind: str
    shape: tuple[int | str | None, ...]
    low: int | str | None = None
    high: int | str | None = None
    order: str | None = None
    finite: bool = True
    optional: bool = False

    def check(self, array: np.ndarray, name: str, sizes: dict[str, int], bound_by: dict[str, str]) -> None:
        """Check ``array`` (called ``name``); ``sizes``: the sizes known so far, to which its own
        are added (``bound_by``: the array that fixed each)."""
        dtype = array.dtype
        if dtype.kind not in KINDS[self.kind] or dtype.itemsize > 8 or dtype.fields is not None:
            fail(f"{name} holds {dtype} values, not {self.kind}s")
        if array.ndim != len(self.shape):
            fail(f"{name} has {array.ndim} dimensions, not {len(self.shape)}")
        for axis, (length, want) in enumerate(zip(array.shape, self.shape)):
            if isinstance(want, str) and want not in sizes:
                sizes[want], bound_by[want] = length, name
            expected = sizes[want] if isinstance(want, str) else want
            if expected is not None and length != expected:
                because = (f"{bound_by[want]} has {expected}: they must be as long" if want in bound_by
                           else f"the model needs {expected}" + (f" ({want})" if isinstance(want, str) else ""))
                fail(f"{name} has {length} entries along axis {axis}, where {because}")
        if array.size == 0:
            return
        if self.kind == "float" and self.finite and not np.isfinite(array).all():
            fail(f"{name} holds NaN or infinite values")
        if self.kind == "int":
            self._check_range(array, name, sizes)
        if self.order is not None:
            flat = array.reshape(-1)
            steps = flat[1:] > flat[:-1] if self.order == "increasing" else flat[1:] >= flat[:-1]
            if not steps.all():
                fail(f"{name} is not in {self.order} order"
                     + (" (or repeats a value)" if self.order == "increasing" else ""))

    def _check_range(self, array: np.ndarray, name: str, sizes: dict[str, int]) -> None:
        low = sizes[self.low] if isinstance(self.low, str) else self.low
        high = sizes[self.high] if isinstance(self.high, str) else self.high
        smallest, largest = int(array.min()), int(array.max())
        if low is not None and smallest < low:
            fail(f"{name} holds {smallest}, below {low}")
        if high is not None and largest >= high:
            fail(f"{name} holds {largest}, where its values must be below {high}"
                 + (f" ({self.high})" if isinstance(self.high, str) else ""))


def arrays(found: Mapping[str, np.ndarray], specs: Mapping[str, Array], others: tuple[str, ...] = (),
           **sizes: int) -> dict[str, int]:
    """Check ``found`` against ``specs`` (see the module's docstring); the sizes, bound ones included."""
    for size, value in sizes.items():
        integer(value, size, low=0)
    bound = dict(sizes)
    bound_by: dict[str, str] = {}
    for name in found:
        if name not in specs and not name.startswith(others):
            fail(f"unexpected {array_name(found, name)}")
    for name, spec in specs.items():
        if name not in found:
            if spec.optional:
                continue
            fail(f"{array_name(found, name)} is missing")
        array = found[name]
        if not isinstance(array, np.ndarray):
            fail(f"{array_name(found, name)} is not an array")
        spec.check(array, array_name(found, name), bound, bound_by)
    return bound


def equal(value: Any, expected: int, what: str) -> int:
    """An int entry that must be ``expected`` (a size the arrays or other entries fix)."""
    if integer(value, what) != expected:
        fail(f"{what} is {value}, where the model's arrays make it {expected}")
    return value


def integer(value: Any, what: str, low: int | None = None, high: int | None = None) -> int:
    """An int entry (not a bool) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        fail(f"{what} is {type(value).__name__} {_short(value)}, not an integer")
    if (low is not None and value < low) or (high is not None and value > high):
        fail(f"{what} is {value}, outside {low if low is not None else '-∞'}..{high if high is not None else '∞'}")
    return value


def number(value: Any, what: str, low: float | None = None, high: float | None = None) -> float:
    """A finite int or float entry (not a bool) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(float(value)):
        fail(f"{what} is {type(value).__name__} {_short(value)}, not a finite number")
    if (low is not None and value < low) or (high is not None and value > high):
        fail(f"{what} is {value}, outside {low}..{high}")
    return value


def boolean(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        fail(f"{what} is {type(value).__name__} {_short(value)}, not true or false")
    return value


def text(value: Any, what: str, field: bool = False, empty: bool = False) -> str:
    """A string entry; ``field``: one barley writes into a CoNLL-U column (no tab or line break, and
    not empty unless ``empty``: a part of a column's value)."""
    if not isinstance(value, str):
        fail(f"{what} is {type(value).__name__} {_short(value)}, not a string")
    if field and ((not value and not empty) or _breaks(value)):
        fail(f"{what} holds {value!r}, which cannot be a CoNLL-U column's value")
    return value


def _breaks(value: str) -> bool:
    return any(mark in value for mark in CONLLU_BREAKS)


def texts(value: Any, what: str, field: bool = False, unique: bool = False) -> list[str]:
    """A list of strings (``field``: see :func:`text`; ``unique``: no repeats). Checked as a whole
    first (a lemmatizer's dictionary holds tens of thousands), item by item only to name a bad one."""
    if not all(type(item) is str for item in items(value, what)) or (field and _breaks("\x00".join(value) + (
            "\t" if "" in value else ""))):
        for item in value:
            text(item, f"an entry of {what}", field)
    if unique and len(set(value)) != len(value):
        fail(f"{what} repeats a value")
    return value


def items(value: Any, what: str) -> list:
    """A JSON list entry."""
    if not isinstance(value, list):
        fail(f"{what} is {type(value).__name__} {_short(value)}, not a list")
    return value


def mapping(value: Any, what: str) -> dict:
    """A JSON object entry."""
    if not isinstance(value, dict):
        fail(f"{what} is {type(value).__name__} {_short(value)}, not an object")
    return value


_OF_TYPE: dict[type, Callable[..., Any]] = {bool: boolean, int: integer, float: number, str: text}


def options(cls: type, entry: Any, what: str, most: int | None = None):
    """The dataclass ``cls`` of options from a manifest object: each entry one of its fields, of the
    type of the field's default (an int, a float (an int will do), a bool or a string); ``most``: the
    largest an int option may be (sizes that build a model: at most the numbers the file holds)."""
    fields = {field.name: field for field in dataclasses.fields(cls)}
    for name, value in mapping(entry, what).items():
        if name not in fields:
            fail(f"{what} have no option {name!r}")
        default = type(fields[name].default)
        if default in _OF_TYPE:
            _OF_TYPE[default](value, f"{what}' {name}", **({"high": most} if default is int else {}))
    return cls(**entry)


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


@contextmanager
def loading(path: str, what: str) -> Iterator[None]:
    """Building a ``what`` model from ``path``: whatever its damaged or inconsistent contents make the
    building code raise is one ModelError naming the file (a ModelError raised inside gets the file's
    name if it has none), and so is running out of memory."""
    try:
        yield
    except ModelError as error:
        if error.path is None:
            error.path = path
        raise
    except MemoryError:
        raise ModelError(f"not enough memory to build the {what} model", path=path,
                         fix="free some memory, or load it where there is more") from None
    except (*DAMAGE, BarleyError) as error:
        detail = str(error).splitlines()[0] if str(error) else ""
        raise ModelError(f"incomplete or inconsistent {what} model ({type(error).__name__}: {detail})",
                         path=path, fix="train the model again with this version of barley") from None
