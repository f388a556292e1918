"""Model files that lie: every array and declared size is checked at load time (barley.models.check), and
the compiled loop checks again what it is handed. Each reproduction of issue 23 (items 1 and 5) is here:
a model rewritten with barley's own writer is refused with one line naming the file and the array,
before anything is allocated or parsed, with the compiled loop and with the reference path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from barley.errors import ModelError
from barley.kinds import train
from barley.models import archive, check
from barley.pipeline import Pipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))
import model_files  # noqa: E402  (the fuzzer's own rewriting of a model file)
import toy_language  # noqa: E402

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

SHIPPED = Path(__file__).resolve().parents[2] / "src" / "barley" / "models" / "en_ewt_linear.barley"
"""The shipped linear model: its compiled parser's tables are what a tampered file would aim at."""


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("toy") / "toy.conllu"
    toy_language.treebank(path, 40, seed=3)
    return path


@pytest.fixture(scope="module")
def linear(toy, tmp_path_factory) -> Path:
    """A small arc-eager model with the liblinear learner (the compiled loop's linear scorer)."""
    path = tmp_path_factory.mktemp("models") / "eager.barley"
    train(str(toy), system="arc-eager", record_time=False, log=lambda message: None).save(str(path))
    return path


def _edited(source: Path, target: Path, edit) -> Path:
    """``source`` rewritten by barley's own writer after ``edit(manifest, arrays)``."""
    manifest, arrays = archive.read(source)
    arrays = {name: np.array(value) for name, value in arrays.items()}
    edit(manifest, arrays)
    archive.write(target, manifest, arrays)
    return target


def _set(name, value, at=-1):
    def edit(manifest, arrays):
        arrays[name][at] = value
    return edit


def _fill(name, value):
    def edit(manifest, arrays):
        arrays[name][:] = value
    return edit


def _replace(name, make):
    def edit(manifest, arrays):
        arrays[name] = make(arrays[name])
    return edit


def _learner_param(prefix, key, value):
    def edit(manifest, arrays):
        entry = manifest["components"]["parse"] if prefix else manifest
        entry["learner"]["params"][key] = value
    return edit


def _parse(model: Path, toy: Path, fast: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ, BARLEY_NO_FAST="" if fast else "1")
    return subprocess.run([sys.executable, "-m", "barley", "parse", "-q", "-m", str(model), str(toy)],
                          capture_output=True, text=True, env=env, timeout=300)


def _refused(result: subprocess.CompletedProcess, *words: str) -> None:
    """One line on stderr, exit status 2, no output: the error names all of ``words``."""
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr[-2000:]
    for word in words:
        assert word in result.stderr, result.stderr


# --- issue 23, item 1: arrays that would make the compiled loop write out of bounds ------------

ITEM_1 = {
    "classes[-1] = 10**9": (_set("learner.classes", 10 ** 9), "array 'learner.classes' holds 1000000000"),
    "classes[-1] = -10**6": (_set("learner.classes", -10 ** 6), "array 'learner.classes' holds -1000000, below 0"),
    "weight_columns = 30000": (_fill("learner.weight_columns", 30000), "array 'learner.weight_columns' holds 30000"),
    "a short bias": (_replace("learner.bias", lambda bias: bias[:-1]), "array 'learner.bias' has"),
}


@pytest.mark.parametrize("fast", [True, False], ids=["compiled", "reference"])
@pytest.mark.parametrize("case", sorted(ITEM_1))
def test_out_of_range_learner_arrays_are_one_line_errors(case, fast, linear, toy, tmp_path):
    edit, message = ITEM_1[case]
    model = _edited(linear, tmp_path / "edited.barley", edit)
    _refused(_parse(model, toy, fast), str(model), message)


@pytest.fixture(scope="module")
def shipped_edited(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("shipped")
    return {value: _edited(SHIPPED, folder / f"edited{value}.barley", _set("parse.learner.classes", value))
            for value in (10 ** 9, -10 ** 6)}


@pytest.mark.parametrize("fast", [True, False], ids=["compiled", "reference"])
@pytest.mark.parametrize("value", [10 ** 9, -10 ** 6])
def test_the_shipped_model_edited_the_same_way_is_refused(shipped_edited, value, fast, toy):
    _refused(_parse(shipped_edited[value], toy, fast), str(shipped_edited[value]),
             f"array 'parse.learner.classes' holds {value}")


# --- issue 23, item 5: damaged or lying model files -------------------------------------------

ITEM_5 = {
    "truncated weight_rows": (_replace("learner.weight_rows", lambda rows: rows[:-5]),
                              "array 'learner.weight_columns' has"),
    "weight_values relabelled <i4": (_replace("learner.weight_values", lambda values: values.view("<i4")),
                                     "array 'learner.weight_values' holds int32 values, not floats"),
    "a re-typed classes array": (_replace("learner.classes", lambda classes: classes.astype(np.float64)),
                                 "array 'learner.classes' holds float64 values, not ints"),
    "weight_columns re-typed uint64 (found by fuzzing)": (
        _replace("learner.weight_columns", lambda columns: columns.astype(np.uint64)),
        "array 'learner.weight_columns' holds uint64 values, not ints"),
    "a 1-D classes.npy": (_replace("classes", lambda classes: classes.reshape(-1)),
                          "array 'classes' has 1 dimensions, not 2"),
    "a lie about n_classes": (_learner_param(False, "n_classes", 10 ** 10),
                              "the linear learner's n_classes is 10000000000"),
    "n_classes one too many": (lambda manifest, arrays: manifest["learner"]["params"].update(
        n_classes=manifest["learner"]["params"]["n_classes"] + 1), "the linear learner's n_classes is"),
    "n_features = 10**12": (_learner_param(False, "n_features", 10 ** 12),
                            "the linear learner's n_features is 1000000000000"),
    "a row beyond the features": (_set("learner.weight_rows", 10 ** 6), "array 'learner.weight_rows' holds 1000000"),
    "NaN weights": (_set("learner.weight_values", np.nan, at=0), "array 'learner.weight_values' holds NaN"),
    "unsorted feature keys": (_replace("feature_keys", lambda keys: keys[::-1].copy()),
                              "array 'feature_keys' is not in increasing order"),
    "classes not the system's": (_set("classes", 7, at=0), "array 'classes' is not the (move, label) pairs"),
    "an extra array": (lambda manifest, arrays: arrays.update({"learner.extra": np.zeros(3)}),
                       "unexpected array 'learner.extra'"),
    "a label with a tab": (lambda manifest, arrays: manifest["labels"].__setitem__(0, "nsubj\tx"),
                           "cannot be a CoNLL-U column's value"),
}


@pytest.mark.parametrize("case", sorted(ITEM_5))
def test_lying_model_files_are_refused_at_load_time(case, linear, tmp_path):
    edit, message = ITEM_5[case]
    model = _edited(linear, tmp_path / "edited.barley", edit)
    with pytest.raises(ModelError) as error:
        Pipeline.load(str(model))
    assert str(error.value).startswith(f"{model}: ") and message in str(error.value), str(error.value)


@pytest.mark.parametrize("name", ["learner.weight_values", "feature_keys"], ids=["stored raw", "deflated"])
def test_an_npy_header_declaring_10_to_the_11_elements_is_refused_before_reading(name, linear, tmp_path):
    path = tmp_path / "huge.barley"
    path.write_bytes(linear.read_bytes())
    model_files.patch_header(str(path), name, (10 ** 11,))
    with pytest.raises(ModelError, match=rf"damaged arrays .*{name.split('.')[-1]}'s header declares \(100000000000,\)"):
        archive.read(path)


def test_a_flipped_byte_in_the_deflated_manifest_is_a_model_error(tmp_path):
    with zipfile.ZipFile(SHIPPED) as zipped:
        info = zipped.getinfo("manifest.json")
    assert info.compress_type == zipfile.ZIP_DEFLATED and info.header_offset + 30 + len(info.filename) < 100
    path = tmp_path / "flipped.barley"
    data = bytearray(SHIPPED.read_bytes())
    data[100] ^= 0xFF  # inside the deflated manifest
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="not a barley model file or damaged"):
        archive.read(path)
    _refused(subprocess.run([sys.executable, "-m", "barley", "info", str(path)], capture_output=True, text=True),
             str(path))


def test_a_manifest_of_100000_brackets_is_a_model_error(tmp_path):
    path = tmp_path / "deep.barley"
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr("manifest.json", "[" * 100_000)
        zipped.writestr("arrays.npz", b"")
    with pytest.raises(ModelError, match="nests lists or objects deeper than 32"):
        archive.read(path)
    nested = {"format": archive.FORMAT, "format_version": archive.FORMAT_VERSION, "x": []}
    for _ in range(32):
        nested["x"] = [nested["x"]]
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr("manifest.json", json.dumps(nested))
        zipped.writestr("arrays.npz", b"")
    with pytest.raises(ModelError, match="deeper than 32"):
        archive.read(path)


def test_a_member_declaring_more_than_deflate_can_hold_is_refused(tmp_path):
    path = tmp_path / "bomb.barley"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("manifest.json", b"{}")
        zipped.writestr("arrays.npz", b"")
    data = bytearray(path.read_bytes())
    directory = data.index(b"PK\x01\x02")  # the manifest's entry in the central directory, written first
    data[directory + 24:directory + 28] = (10 ** 9).to_bytes(4, "little")  # its uncompressed size
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="declares 1000000000 bytes, more than its 4 stored bytes can hold"):
        archive.read(path)


# --- found by the structure-aware fuzzer (fuzz/model_files.py) -----------------------------------

@pytest.fixture(scope="module")
def every_kind() -> dict[str, Path]:
    """The fuzzer's tiny models of every kind and component (trained once into its folder)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))
    import model_files

    return model_files.fixtures(model_files.MODELS)


FOUND_BY_FUZZING = {
    "10**10 LSTM layers (a hang, building them on the meta device)": (
        "biaffine", lambda manifest, arrays: manifest["encoder"].update(lstm_layers=10 ** 10),
        "the encoder options' lstm_layers is 10000000000, outside"),
    "a label MLP of 10**12 (a size PyTorch cannot compute)": (
        "biaffine", lambda manifest, arrays: manifest["biaffine"].update(label_mlp=10 ** 12),
        "the biaffine options' label_mlp is 1000000000000, outside"),
    "sentences of at most 1 token (a ValueError cutting sentences in their second half)": (
        "pipeline", lambda manifest, arrays: manifest["components"]["tokenize"]["options"].update(
            max_sentence_tokens=1), "max_sentence_tokens is 1, outside 2.."),
    "a negative threshold (the approximation's moves undo each other forever)": (
        "graph-second-order-npa", lambda manifest, arrays: manifest["graph"].update(npa_threshold=-0.3),
        "threshold must be at least 0, not -0.3"),
    "a DEPREL label that is a list (a TypeError in the rules of UD, on by default)": (
        "pipeline-neural", lambda manifest, arrays: manifest["components"]["joint"]["tables"]["labels"].__setitem__(
            3, [1, 2]), "DEPREL labels"),
    "a lemma class that is no edit rule (a ValueError lemmatizing)": (
        "pipeline-neural", lambda manifest, arrays: manifest["components"]["joint"]["tables"]["values"][
            "lemma"].__setitem__(1, "line\nbreak"), "no edit rule"),
    "a dictionary lemma with a tab (an output line of 11 columns)": (
        "pipeline-neural", lambda manifest, arrays: manifest["components"]["joint"]["tables"]["lemmas"][0].__setitem__(
            2, "chase\t"), "the lemma dictionary's lemmas"),
    "a UPOS class with a line break (an output that reads back otherwise)": (
        "pipeline-neural", lambda manifest, arrays: manifest["components"]["joint"]["tables"]["values"][
            "upos"].__setitem__(0, "NO\nUN"), "the UPOS classes"),
    "a tokenizer context of 0.5 (an IndexError cutting the text into windows)": (
        "pipeline-neural", lambda manifest, arrays: manifest["components"]["tokenize"]["options"].update(
            context=0.5), "options are damaged"),
}


@pytest.mark.parametrize("case", sorted(FOUND_BY_FUZZING))
def test_what_the_fuzzer_found_is_refused(case, every_kind, tmp_path):
    kind, edit, message = FOUND_BY_FUZZING[case]
    model = _edited(every_kind[kind], tmp_path / "edited.barley", edit)
    with pytest.raises(ModelError, match=message):
        Pipeline.load(str(model))


def test_every_kind_loads_and_parses_untouched(every_kind, toy):
    for kind, path in every_kind.items():
        result = _parse(path, toy, fast=True)
        assert result.returncode == 0 and result.stdout.count("\n\n") == 40, (kind, result.stderr[-2000:])


# --- the compiled loop's own guard --------------------------------------------------------------

def test_the_compiled_loop_refuses_tables_that_bypass_the_loader(linear, toy):
    from barley.conllu import read
    from barley.transition.fast import loop_module

    if loop_module() is None:
        pytest.skip("the compiled loop is not built here")
    parser = Pipeline.load(str(linear)).parser
    parser.learner.classes = parser.learner.classes.copy()
    parser.learner.classes[-1] = 10 ** 9  # after loading: only the loop's check stands in the way
    with pytest.raises(ModelError, match=r"compiled parsing loop refuses .*class columns holds values outside"):
        list(parser.parse(read(str(toy))))


def test_the_loop_checks_types_lengths_and_ranges():
    from barley.transition.fast import loop_module

    loop = loop_module()
    if loop is None:
        pytest.skip("the compiled loop is not built here")
    assert loop.checked("t", [1, 2], np.int32, 2, 0, 3).dtype == np.int32
    for values, message in [(np.array([0.5]), "holds float64 values"), ([1, 2, 3], "has 3 values, not 2"),
                            ([1, 3], r"outside \[0, 3\)"), ([2 ** 40, 1], r"outside \[0, 3\)")]:
        with pytest.raises(ValueError, match=message):
            loop.checked("t", values, np.int32, 2, 0, 3)


# --- the checker itself -------------------------------------------------------------------------

def test_array_specs_bind_sizes_and_name_both_arrays_of_a_mismatch():
    arrays = check.part({"learner.rows": np.arange(4), "learner.columns": np.arange(3), "other": np.zeros(1)},
                        "learner.")
    specs = {"rows": check.Array("int", ("n",), low=0), "columns": check.Array("int", ("n",), low=0)}
    with pytest.raises(ModelError, match="array 'learner.columns' has 3 entries along axis 0, where array "
                                         "'learner.rows' has 4: they must be as long"):
        check.arrays(arrays, specs)
    assert check.arrays({"rows": np.arange(4)}, {"rows": specs["rows"]}) == {"n": 4}
    with pytest.raises(ModelError, match="array 'rows' holds 3, where its values must be below 3 \\(k\\)"):
        check.arrays({"rows": np.arange(4)}, {"rows": check.Array("int", (None,), high="k")}, k=3)
    with pytest.raises(ModelError, match="array 'gone' is missing"):
        check.arrays({}, {"gone": check.Array("float", (2,))})
    assert check.arrays({}, {"gone": check.Array("float", (2,), optional=True)}) == {}
    with pytest.raises(ModelError, match="holds bool values, not ints"):
        check.arrays({"x": np.zeros(2, bool)}, {"x": check.Array("int", (2,))})
    with pytest.raises(ModelError, match="k is bool True, not an integer"):
        check.arrays({}, {}, k=True)


def test_options_entries_take_the_types_of_their_defaults():
    from barley.graph.model import GraphOptions

    assert check.options(GraphOptions, {"dims": 1024, "npa_threshold": 1}, "the graph options").dims == 1024
    for entry, message in [({"dims": "1024"}, "the graph options' dims is str"),
                           ({"single_root": 1}, "single_root is int 1, not true or false"),
                           ({"npa_threshold": float("nan")}, "not a finite number"),
                           ({"decoder": ["mst"]}, "decoder is list"), ({"fuzz": 1}, "have no option 'fuzz'")]:
        with pytest.raises(ModelError, match=message):
            check.options(GraphOptions, entry, "the graph options")


def test_training_refuses_the_tokenizer_options_loading_refuses():
    from barley.errors import BarleyError
    from barley.tokenizer import Tokenizer, TokenizerOptions

    with pytest.raises(BarleyError, match="max_sentence_tokens must be at least 2, not 1"):
        Tokenizer.train([], TokenizerOptions(max_sentence_tokens=1))
    with pytest.raises(BarleyError, match="bits must be between 1 and 24, not 40"):
        Tokenizer.train([], TokenizerOptions(bits=40))


def test_running_out_of_memory_while_building_a_model_is_one_line(linear, monkeypatch):
    """Issue 37 (6): under a memory limit, loading a model ended in a MemoryError traceback."""
    from barley.transition import parser

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(parser, "Vocabulary", no_memory)  # what building allocates first
    with pytest.raises(ModelError, match="not enough memory to build the transition model") as error:
        Pipeline.load(str(linear))
    assert str(error.value).startswith(f"{linear}: ") and "\n" not in str(error.value)
