"""The neural tokenizer's own parts: numpy against PyTorch, no PyTorch when tokenizing, the
windows, its model arrays checked on loading, its options, reproducible training.

What every kind of tokenizer must do (exact round trip, bounded sentences, multiword
tokens, the CLI) is tested for both kinds in test_tokenizer.py.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizer_treebank import SMALL_NEURAL, quiet, write_treebank

from barley.cli import main
from barley.conllu import FORM, read, read_lines
from barley.errors import BarleyError, ModelError
from barley.models import archive
from barley.pipeline import Pipeline
from barley.pipeline.tokenize import TokenizeComponent
from barley.tokenizer import features, spaces
from barley.tokenizer.neural import LINE_BREAK, NeuralTokenizer, character_inputs, chunk_hashes, windows

torch = pytest.importorskip("torch")
from barley.tokenizer.neural_training import train_neural_tokenizer  # noqa: E402  (needs PyTorch)

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

TEXT = ("Juan vio la casa del rey, y Rosa's perro come. Ana lee al gato!\n\nPedro tiene un libro. "
        "Maria come con Luis? el rey lee sin la mesa. ") * 6 + "Fin del libro."


@pytest.fixture(scope="module")
def treebank(tmp_path_factory):
    path = tmp_path_factory.mktemp("neural-tokenizer") / "train.conllu"
    write_treebank(path, 300, seed=3)
    return path


@pytest.fixture(scope="module")
def tokenizer(treebank) -> NeuralTokenizer:
    return train_neural_tokenizer(read(str(treebank)), SMALL_NEURAL, seed=1, log=quiet)


@pytest.fixture(scope="module")
def model(tokenizer, tmp_path_factory):
    path = tmp_path_factory.mktemp("neural-tokenizer-model") / "tokenizer.barley"
    Pipeline([TokenizeComponent(tokenizer)], {"pipeline": {"components": ["tokenize"]}}).save(str(path))
    return path


class TorchScored(NeuralTokenizer):
    """The same tokenizer with its character scores from the PyTorch network it was trained as."""

    def __init__(self, tokenizer: NeuralTokenizer):
        super().__init__(tokenizer.characters, tokenizer.chunks, tokenizer.network, tokenizer.multiword,
                         tokenizer.options, tokenizer.training, tokenizer.sentence_threshold)
        from barley.tokenizer.neural_training import CharacterBiLSTM

        self.model = CharacterBiLSTM(len(tokenizer.characters), len(tokenizer.chunks), tokenizer.options)
        self.model.load_state_dict({name[len("weights."):]: torch.from_numpy(np.array(value))
                                    for name, value in tokenizer.network.arrays.items()})
        self.model.eval()

    def _character_scores(self, text, encoded, solid):
        inputs = character_inputs(text, encoded, self.characters, self.chunks)
        starts, decided_by, length = windows(len(inputs), self.options.window, self.options.context)
        index = starts[:, None] + np.arange(length)
        with torch.no_grad():
            scores = self.model(torch.from_numpy(inputs[index])).numpy()
        return scores.reshape(-1, 3)[decided_by][solid]


def test_numpy_and_torch_give_the_same_scores_and_segmentation(tokenizer):
    twin = TorchScored(tokenizer)
    encoded = features.encode(TEXT)
    solid = np.flatnonzero(encoded[1][features.PAD:features.PAD + len(TEXT)] != features.SPACE)
    assert len(TEXT) > 4 * tokenizer.options.window  # several windows
    np.testing.assert_allclose(tokenizer._character_scores(TEXT, encoded, solid),
                               twin._character_scores(TEXT, encoded, solid), atol=1e-4)
    ours = [s.to_text() for s in tokenizer.tokenize(TEXT)]
    assert ours == [s.to_text() for s in twin.tokenize(TEXT)]
    assert len(ours) > 10


def test_the_inputs_of_a_character_are_its_id_class_and_chunk(tokenizer):
    text = "Juan vio\nZzz. juan"
    inputs = character_inputs(text, features.encode(text), tokenizer.characters, tokenizer.chunks)
    assert inputs.shape == (len(text), 3)
    assert inputs[0, 0] == inputs[14, 0] != 0 and inputs[10, 0] == 0  # j (lower-cased) known, z unknown
    assert list(inputs[[0, 1, 4, 8, 12], 1]) == [features.UPPER, features.LOWER, features.SPACE, LINE_BREAK,
                                                   features.PUNCT]
    assert len(set(inputs[0:4, 2])) == 1 and inputs[0, 2] == inputs[14, 2] != 0  # "juan" known, any case
    assert inputs[4, 2] == 0 and list(inputs[9:13, 2]) == [0] * 4  # whitespace, and an unknown chunk


@settings(max_examples=100, deadline=None)
@given(text=st.text(st.sampled_from(list("ab A.\n\t'é😀")), max_size=40))
def test_chunk_hashes_are_the_polynomial_hash_of_each_chunk(text):
    codes, classes = (array[features.PAD:features.PAD + len(text)] for array in features.encode(text))
    starts, ends, hashes = chunk_hashes(codes, classes == features.SPACE)
    assert [text[a:b] for a, b in zip(starts, ends)] == text.split()
    base = 0x100000001B3
    assert [int(h) for h in hashes] == [sum(int(c) * pow(base, k, 1 << 64) for k, c in enumerate(codes[a:b]))
                                        % (1 << 64) for a, b in zip(starts, ends)]


def test_it_learns_the_sentences_and_multiword_tokens(tokenizer):
    sentences = list(tokenizer.tokenize("Ana lee al gato del rey. Juan vio la casa!"))
    assert [[w[FORM] for w in s.words] for s in sentences] == [["Ana", "lee", "a", "el", "gato", "de", "el", "rey",
                                                                "."], ["Juan", "vio", "la", "casa", "!"]]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 2000), window=st.integers(2, 300), context=st.integers(0, 150))
def test_every_character_is_decided_by_one_window_with_context_on_both_sides(n, window, context):
    if 2 * context >= window:
        return
    starts, decided_by, length = windows(n, window, context)
    assert length == min(window, n) and np.all((starts >= 0) & (starts + length <= n))
    owner, offset = np.divmod(decided_by, length)
    assert np.all(starts[owner] + offset == np.arange(n))  # each character is read where it is
    before, after = offset, length - 1 - offset
    position = np.arange(n)
    assert np.all((before >= context) | (before == position))  # at least `context` read before, or all there is
    assert np.all((after >= context) | (after == n - 1 - position))
    assert len(starts) <= max(1, -(-n // (window - 2 * context)))


def test_tokenizing_imports_no_torch(model):
    # PyTorch made unimportable: a model file tokenizes with numpy alone
    code = ("import sys; sys.modules['torch'] = None\n"
            "from barley.pipeline import Pipeline\n"
            f"pipeline = Pipeline.load({str(model)!r})\n"
            "sentences = list(pipeline.tokenize('Juan vio la casa del rey. Ana come!'))\n"
            "assert len(sentences) == 2, sentences\n"
            "assert 'torch' not in {name for name, module in sys.modules.items() if module is not None}\n"
            "print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_same_data_and_seed_give_the_same_model_bytes(treebank, tmp_path):
    files = []
    for name in ("a", "b"):
        tokenizer = train_neural_tokenizer(read(str(treebank)), SMALL_NEURAL, seed=4, log=quiet)
        path = tmp_path / f"{name}.barley"
        Pipeline([TokenizeComponent(tokenizer)], {"pipeline": {"components": ["tokenize"]}}).save(str(path))
        files.append(path.read_bytes())
    assert files[0] == files[1]


def test_training_logs_progress_and_the_held_out_text(treebank):
    lines: list[str] = []
    options = SMALL_NEURAL.__class__(**{**SMALL_NEURAL.__dict__, "epochs": 2})
    tokenizer = train_neural_tokenizer(read(str(treebank)), options, seed=1, log=lines.append)
    text = "\n".join(lines)
    assert "held out: no dev set" in text and "epoch 2/2" in text and "ETA" in text and "kept epoch" in text
    assert tokenizer.training["dev"].startswith("the last 30 training sentences")
    assert len(tokenizer.training["dev_per_epoch"]) == 2


def _damaged(model, tmp_path, change) -> str:
    manifest, arrays = archive.read(str(model))
    arrays = {name: np.array(value) for name, value in arrays.items()}
    change(manifest["components"]["tokenize"], arrays)
    path = tmp_path / "damaged.barley"
    archive.write(str(path), manifest, arrays)
    return str(path)


def _replace(name, value):
    def change(_manifest, arrays):
        arrays[name] = value(arrays[name])
    return change


DAMAGE = {
    "float64 weights": (_replace("tokenize.weights.output.weight", lambda a: a.astype(np.float64)), "not float32"),
    "a missing row": (_replace("tokenize.weights.characters.weight", lambda a: a[:-1]), "not float32"),
    "a NaN": (_replace("tokenize.weights.lstm.bias_ih_l0", lambda a: np.where(np.arange(len(a)) == 3, np.nan, a)
                       .astype(np.float32)), "not finite"),
    "unsorted characters": (_replace("tokenize.characters", lambda a: a[::-1].copy()), "not sorted"),
    "characters beyond Unicode": (_replace("tokenize.characters", lambda a: np.r_[a, 0x110000].astype(np.uint32)),
                                  "beyond Unicode"),
    "characters as int64": (_replace("tokenize.characters", lambda a: a.astype(np.int64)), "not a uint32"),
    "chunks as uint32": (_replace("tokenize.chunks", lambda a: a.astype(np.uint32)), "not a uint64"),
    "unsorted chunks": (_replace("tokenize.chunks", lambda a: a[::-1].copy()), "chunk table is not sorted"),
    "fewer chunks": (_replace("tokenize.chunks", lambda a: a[1:]), "not float32"),
    "a missing array": (lambda _m, arrays: arrays.pop("tokenize.weights.output.bias"), "missing"),
    "an extra array": (lambda _m, arrays: arrays.update({"tokenize.weights.extra": np.zeros(2, np.float32)}),
                       "unexpected"),
    "other sizes in the manifest": (lambda manifest, _a: manifest["options"].update(hidden=32), "not float32"),
    "a bad option": (lambda manifest, _a: manifest["options"].update(window="big"), "options are damaged"),
    "an unknown option": (lambda manifest, _a: manifest["options"].update(colour=1), "options are damaged"),
    "an unknown kind": (lambda manifest, _a: manifest.update(kind="quantum"), "does not know"),
    "a bad threshold": (lambda manifest, _a: manifest.update(sentence_threshold="x"), "threshold"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_model_is_one_clear_error(model, tmp_path, capsys, damage):
    change, message = DAMAGE[damage]
    path = _damaged(model, tmp_path, change)
    with pytest.raises(ModelError, match=message) as raised:
        Pipeline.load(path)
    assert path in str(raised.value) and "\n" not in str(raised.value)
    source = tmp_path / "in.txt"
    source.write_text("Juan vio la casa.\n", encoding="utf-8")
    assert main(["tokenize", "--model", path, str(source)]) == 2
    error = capsys.readouterr().err
    assert len(error.strip().splitlines()) == 1 and "Traceback" not in error


def test_options_of_the_other_kind_are_refused(treebank):
    sentences = list(read(str(treebank)))[:20]
    with pytest.raises(BarleyError, match="neural tokenizer takes no option 'bits'"):
        Pipeline.train(sentences, ["tokenize"], options={"tokenize": {"tokenizer": "neural", "bits": 16}}, log=quiet)
    with pytest.raises(BarleyError, match="linear tokenizer takes no option 'hidden'"):
        Pipeline.train(sentences, ["tokenize"], options={"tokenize": {"hidden": 16}}, log=quiet)
    with pytest.raises(BarleyError, match="unknown tokenizer 'cnn'"):
        Pipeline.train(sentences, ["tokenize"], options={"tokenize": {"tokenizer": "cnn"}}, log=quiet)
    with pytest.raises(BarleyError, match="context 40 must be"):
        Pipeline.train(sentences, ["tokenize"], options={"tokenize": {"tokenizer": "neural", "context": 40,
                                                                      "window": 64}}, log=quiet)


def test_cli_trains_the_neural_kind_with_dev(tmp_path, capsys):
    train, dev = tmp_path / "train.conllu", tmp_path / "dev.conllu"
    write_treebank(train, 60, seed=5)
    write_treebank(dev, 20, seed=6)
    model = tmp_path / "neural.barley"
    assert main(["train", "--train", str(train), "--dev", str(dev), "--components", "tokenize", "--tokenizer",
                 "neural", "--seed", "1", "--model", str(model)]) == 0
    err = capsys.readouterr().err
    assert "dev: 20 dev sentences" in err and "neural tokenizer: epoch 1/" in err
    source = tmp_path / "in.txt"
    source.write_text("Juan vio la casa. Ana come del gato.\n", encoding="utf-8")
    assert main(["tokenize", "--model", str(model), str(source), "-q"]) == 0
    assert spaces.text_of(read_lines(capsys.readouterr().out.split("\n"))) == source.read_text(encoding="utf-8")
    assert main(["info", str(model)]) == 0
    assert "neural" in capsys.readouterr().out
    assert main(["train", "--train", str(train), "--components", "tag", "--tokenizer", "neural",
                 "--model", str(tmp_path / "x.barley")]) == 2
    assert "--components has no tokenize" in capsys.readouterr().err
    assert main(["train", "--train", str(train), "--tokenizer", "neural", "--model", str(tmp_path / "x.barley")]) == 2
    assert "--tokenizer applies to a pipeline" in capsys.readouterr().err
