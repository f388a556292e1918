"""The biaffine parser (``--parser biaffine``): it learns a small treebank written here, its
outputs are trees for every decoder, training is deterministic, loading runs no code, and
options of other kinds are refused."""

from __future__ import annotations

import io
import pickle
import random
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from toy_language import treebank

from barley.conllu import read
from barley.errors import BarleyError, InputError, ModelError
from barley.kinds import evaluate_parser, train
from barley.pipeline import Pipeline
from barley.tree import check_tree, is_projective

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

torch = pytest.importorskip("torch", reason="the biaffine parser needs PyTorch (pip install -e '.[neural]' in barley's checkout)")

TINY = dict(form_dim=16, lemma_dim=8, upos_dim=8, xpos_dim=8, feats_dim=8, char_dim=8, char_hidden=8,
            lstm_hidden=32, lstm_layers=1, arc_mlp=32, label_mlp=16, batch_words=150, dropout=0.1)
QUIET = dict(log=lambda message: None)

# "Det Noun Verb Det Noun Part": the particle belongs to the subject, across the verb (non-projective)
NONPROJECTIVE = [("the", "DET", 2, "det"), ("dog", "NOUN", 3, "nsubj"), ("sees", "VERB", 0, "root"),
                 ("a", "DET", 5, "det"), ("cat", "NOUN", 3, "obj"), ("too", "PART", 2, "advmod")]


def _nonprojective_treebank(path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    nouns, verbs = ["dog", "cat", "fox", "owl"], ["sees", "likes", "feeds"]
    text = []
    for number in range(count):
        lines = [f"# sent_id = np-{number}"]
        for i, (form, upos, head, deprel) in enumerate(NONPROJECTIVE, 1):
            form = rng.choice(nouns) if upos == "NOUN" else rng.choice(verbs) if upos == "VERB" else form
            lines.append(f"{i}\t{form}\t{form}\t{upos}\t{upos[0]}\t_\t{head}\t{deprel}\t_\t_")
        text.append("\n".join(lines) + "\n\n")
    path.write_text("".join(text), encoding="utf-8")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("biaffine")
    paths = {name: folder / f"{name}.conllu" for name in ("train", "dev", "test", "np_train", "np_test")}
    treebank(paths["train"], 60, seed=1)
    treebank(paths["dev"], 15, seed=2)
    treebank(paths["test"], 25, seed=3)
    _nonprojective_treebank(paths["np_train"], 30, seed=4)
    _nonprojective_treebank(paths["np_test"], 10, seed=5)
    return {name: str(path) for name, path in paths.items()}


@pytest.fixture(scope="module")
def trained(data):
    """A biaffine parser trained on the toy language with early stopping on its dev part."""
    return train(data["train"], parser="biaffine", dev=data["dev"], epochs=25, patience=6, **TINY, **QUIET)


def test_learns_the_toy_language(trained, data):
    scores = evaluate_parser(trained, data["test"])
    assert scores["LAS"] >= 97.0, scores
    history = trained.manifest["training"]
    assert history["dev_las_per_epoch"][history["best_epoch"] - 1] == max(history["dev_las_per_epoch"])


# the functions of barley.decoders.decoding that each decoder calls: the graph parser's own
CALLED = {"mst": {"chu_liu_edmonds"}, "eisner": {"eisner"}, "eisner+npa": {"eisner", "nonprojective_approximation"}}


@pytest.mark.parametrize("decoder", ["mst", "eisner", "eisner+npa"])
def test_every_decoder_gives_trees(data, decoder, monkeypatch):
    """Barely trained, most sentences' best heads are no tree, so the decoder does the work — the
    graph-based parser's decoder functions, not copies of them."""
    import barley.decoders.decoding as decoding

    called = set()
    for name in ("chu_liu_edmonds", "eisner", "nonprojective_approximation"):
        def spy(*args, _name=name, _function=getattr(decoding, name)):
            called.add(_name)
            return _function(*args)
        monkeypatch.setattr(decoding, name, spy)
    parser = train(data["np_train"], parser="biaffine", decoder=decoder, epochs=1, **TINY, **QUIET)
    sentences = list(parser.parse(list(read(data["np_test"])) + list(read(data["test"]))))
    assert parser.stats.decoded > 0
    assert called == CALLED[decoder]
    for sentence in sentences:
        heads = sentence.heads()
        assert check_tree(heads, single_root=True) is None
        if decoder == "eisner":
            assert is_projective(heads)


@pytest.mark.parametrize("strategy", [dict(decoder="mst"), dict(decoder="eisner+npa"),
                                      *(dict(decoder="eisner", encoding=encoding)
                                        for encoding in ("head", "path", "head+path"))],
                         ids=lambda strategy: "+".join(strategy.values()))
def test_nonprojective_arcs_with_every_strategy(data, strategy):
    """The crossing arc is learnt by MST directly, by Eisner + the non-projective approximation,
    and by Eisner through pseudo-projective lifting with every encoding that marks the lifted arc
    (the encoded labels never reach the output): Björkelund & Kuhn's strategies, biaffine scores."""
    from barley.transforms.pseudo_projective import PseudoProjective

    gold = list(read(data["np_test"]))
    options = dict(strategy)
    if "encoding" in options:
        options["transforms"] = [PseudoProjective(options.pop("encoding"))]
    parser = train(data["np_train"], parser="biaffine", epochs=30, **options, **TINY, **QUIET)
    parsed = list(parser.parse([s.copy() for s in gold]))
    assert [s.heads().tolist() for s in parsed] == [s.heads().tolist() for s in gold]
    assert [s.deprels() for s in parsed] == [s.deprels() for s in gold]
    if strategy["decoder"] == "eisner+npa":
        assert parser.stats.approximation_moves >= len(gold)


def test_dev_scores_during_training_undo_the_transforms(data):
    """Early stopping compares dev LAS on the treebank's own trees: the per-epoch dev LAS of the kept
    epoch is the dev LAS of the finished parser, lifted arcs lowered and encoded labels decoded."""
    from barley.transforms.pseudo_projective import PseudoProjective

    parser = train(data["np_train"], parser="biaffine", dev=data["np_test"], epochs=30, patience=30,
                   decoder="eisner", transforms=[PseudoProjective("head")], **TINY, **QUIET)
    history = parser.manifest["training"]
    assert parser.manifest["dev"]["LAS"] == 100.0  # every lifted arc lowered again, every label decoded
    assert history["dev_las_per_epoch"][history["best_epoch"] - 1] == pytest.approx(parser.manifest["dev"]["LAS"])


def test_the_baseline_encoding_gives_projective_trees_with_plain_labels(data):
    """Lifting without marking the arc (the ``baseline`` encoding) cannot be undone: Eisner's
    projective output passes through, with the treebank's own labels."""
    from barley.transforms.pseudo_projective import PseudoProjective

    parser = train(data["np_train"], parser="biaffine", epochs=10, decoder="eisner",
                   transforms=[PseudoProjective("baseline")], **TINY, **QUIET)
    labels = {deprel for s in read(data["np_train"]) for deprel in s.deprels()}
    for sentence in parser.parse(read(data["np_test"])):
        assert is_projective(sentence.heads())
        assert set(sentence.deprels()) <= labels


def test_the_shortcut_gives_the_decoders_tree():
    """Skipping the decoder when the best heads already form a (projective) tree changes no result."""
    from barley.decoders.decoding import decode
    from barley.decoders.options import DecoderOptions
    from barley.decoders.tree_score import tree_score
    from barley.neural.trees import BiaffineParseStats, best_tree

    rng = np.random.default_rng(7)
    for decoder in ("mst", "eisner"):
        decoding = DecoderOptions(decoder=decoder)
        for _ in range(200):
            size = int(rng.integers(2, 8))
            arc = rng.normal(size=(size, size)) + 4 * np.eye(size, k=-1)  # often a chain: a tree
            arc[:, 0] = -np.inf
            np.fill_diagonal(arc, -np.inf)
            full, _ = decode(decoding, arc)
            assert tree_score(best_tree(decoding, arc, BiaffineParseStats()), arc) == pytest.approx(
                tree_score(full, arc))


def test_label_scores_a_block_of_dependents_at_a_time(trained, data, monkeypatch):
    """A long sentence's label scores (dependents × heads × labels) are made a block of dependents
    at a time: the same best labels, and arc scores equal but for float rounding."""
    from barley.neural import numpy_biaffine
    from barley.neural.inputs import pad

    padded = pad([trained.vocabularies.encode(s) for s in read(data["test"])])
    whole = trained.network.tree_scores(padded)
    monkeypatch.setattr(numpy_biaffine, "LABEL_CELLS", 1)  # one dependent at a time
    blocks = trained.network.tree_scores(padded)
    for (arc, label), (arc_in_blocks, label_in_blocks) in zip(whole, blocks):
        assert np.allclose(arc, arc_in_blocks, atol=1e-5) and np.array_equal(label, label_in_blocks)


def test_the_numpy_network_scores_as_the_pytorch_network_it_was_trained_as(trained, data):
    """The parser parses with numpy (no PyTorch): its arc and label scores are those of the PyTorch
    network holding the same weights, in eval mode, but for float rounding."""
    from barley.neural.biaffine_model import BiaffineModel
    from barley.neural.encoder import make_batch
    from barley.neural.fitting import load_weights
    from barley.neural.inputs import pad

    encoded = [trained.vocabularies.encode(s) for s in read(data["test"])]
    model = BiaffineModel(trained.encoder, trained.biaffine, trained.vocabularies.sizes(), len(trained.labels))
    load_weights(model, trained.to_files()[1])
    model.eval()
    batch = make_batch(encoded, trained.vocabularies)
    with torch.inference_mode():
        vectors = model.encoder(batch)
        arc = model._arc_scores(vectors, batch.mask).log_softmax(-1)
        labels = model.label_attention(model.label_dep(vectors), model.label_head(vectors)).log_softmax(-1)
    best_score, best_label = labels.max(-1)
    expected = (arc + best_score).transpose(1, 2).double().numpy()
    scored = trained.network.tree_scores(pad(encoded))
    for k, (scores, best) in enumerate(scored):
        n = len(encoded[k])
        finite = np.isfinite(scores)
        assert np.array_equal(finite[:, 1:], np.isfinite(expected[k, :n, :n])[:, 1:])
        assert np.allclose(scores[finite], expected[k, :n, :n][finite], atol=1e-4)
        assert np.array_equal(best[:, 1:], best_label[k, :n, :n].T.numpy()[:, 1:])


def test_a_biaffine_model_parses_without_pytorch(trained, data, tmp_path):
    """Loading and parsing import no PyTorch: a model trained with it parses on an install without it."""
    path = tmp_path / "b.barley"
    trained.save(str(path))
    expected = [s.to_text() for s in Pipeline.load(str(path)).parse(list(read(data["test"])))]
    program = ("import sys; sys.modules['torch'] = None\n"  # any import of torch fails
               "from barley.conllu import read\nfrom barley.pipeline import Pipeline\n"
               f"parsed = Pipeline.load({str(path)!r}).parse(list(read({data['test']!r})))\n"
               "sys.stdout.write(''.join(s.to_text() for s in parsed))")
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "".join(expected)


def test_a_sentence_over_max_words_is_refused_in_one_line(trained, data, monkeypatch):
    from barley.decoders.decoding import FIRST_ORDER_MAX_WORDS

    assert trained.max_words == FIRST_ORDER_MAX_WORDS
    monkeypatch.setattr(trained, "max_words", 3)
    with pytest.raises(InputError, match=r"test\.conllu:\d+: a sentence of \d+ words: this biaffine parser "
                                         r"parses at most 3 \(--max-words\)"):
        list(trained.parse(read(data["test"])))


def test_training_is_deterministic(data, tmp_path):
    paths = []
    for run in range(2):
        parser = train(data["train"], parser="biaffine", dev=data["dev"], seed=5, epochs=2, record_time=False,
                       **TINY, **QUIET)
        path = tmp_path / f"model{run}.barley"
        parser.save(str(path))
        paths.append(path)
        parsed = [s.to_text() for s in Pipeline.load(str(path)).parse(read(data["test"]))]
        if run == 0:
            first = parsed
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert parsed == first


def test_a_saved_model_parses_as_the_trained_one_and_loading_runs_no_code(trained, data, tmp_path,
                                                                          monkeypatch):
    path = str(tmp_path / "toy.barley")
    trained.save(path)
    expected = [s.to_text() for s in trained.parse(read(data["test"]))]

    def forbidden(*args, **kwargs):
        raise AssertionError("loading a model must not unpickle")

    monkeypatch.setattr(torch, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "load", forbidden)
    loaded = Pipeline.load(path)
    assert [s.to_text() for s in loaded.parse(read(data["test"]))] == expected
    with zipfile.ZipFile(path) as zipped:
        names = zipped.namelist()
        arrays = np.load(io.BytesIO(zipped.read("arrays.npz")), allow_pickle=False)
        assert names == ["manifest.json", "arrays.npz"]
        assert all(arrays[name].dtype == np.float32 for name in arrays.files)


def test_a_damaged_model_is_a_clear_error(trained, tmp_path):
    from barley.models import archive

    manifest, arrays = trained.to_files()
    arrays.pop(sorted(arrays)[0])
    path = str(tmp_path / "damaged.barley")
    archive.write(path, manifest, arrays)
    with pytest.raises(ModelError, match="damaged.barley: inconsistent biaffine network: missing array arc_attention.weight"):
        Pipeline.load(path)


@pytest.mark.parametrize("kind,option", [("transition", {"lstm_hidden": 64}), ("graph", {"device": "cpu"}),
                                         ("graph", {"pretrained": "x.vec"}), ("biaffine", {"system": "arc-eager"}),
                                         ("biaffine", {"order": 2}), ("biaffine", {"learner": "linear"})])
def test_options_of_other_kinds_are_refused(data, kind, option):
    with pytest.raises(BarleyError, match="takes no option --"):
        train(data["train"], parser=kind, **option, **QUIET)


@pytest.mark.parametrize("option,message", [({"npa_threshold": 0.1}, "eisner\\+npa only"),
                                            ({"device": "tpu"}, "--device"), ({"dropout": 1.0}, "--dropout"),
                                            ({"lstm_layers": 0}, "--lstm-layers"), ({"decoder": "x"}, "decoder")])
def test_bad_options_are_refused(data, option, message):
    with pytest.raises(BarleyError, match=message):
        train(data["train"], parser="biaffine", **option, **QUIET)


def test_pretrained_vectors_initialise_the_form_embeddings(data, tmp_path):
    vectors = tmp_path / "toy.vec"
    words = ["dog", "cat", "the", "sees", "unseen"]
    vectors.write_text(f"{len(words)} 4\n" + "".join(f"{w} {i} 0.5 -1 2\n" for i, w in enumerate(words)),
                       encoding="utf-8")
    messages = []
    parser = train(data["train"], parser="biaffine", pretrained=str(vectors), epochs=1,
                   **{**TINY, "form_dim": 16}, log=messages.append)
    assert parser.to_files()[0]["encoder"]["form_dim"] == 4
    assert any("pretrained vectors from" in m and ": 4 of" in m for m in messages), messages  # the dog cat sees
    bad = tmp_path / "bad.vec"
    bad.write_text("dog 1 2\ncat 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.vec:2:"):
        train(data["train"], parser="biaffine", pretrained=str(bad), epochs=1, **TINY, **QUIET)


def test_without_torch_the_error_says_what_to_install(monkeypatch):
    from barley.neural import require_torch

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(BarleyError, match=r"training a neural model needs PyTorch, which is not installed \(install PyTorch; the CPU build "
                                          r"is enough \(docs/install.md\)\)"):
        require_torch()


def test_command_line(data, tmp_path):
    model, out = str(tmp_path / "cli.barley"), str(tmp_path / "out.conllu")
    barley = [sys.executable, "-m", "barley"]
    small = ["--form-dim", "16", "--lstm-hidden", "32", "--lstm-layers", "1", "--arc-mlp", "32", "--label-mlp",
             "16", "--char-hidden", "8", "--batch-words", "150"]
    done = subprocess.run(barley + ["train", "--parser", "biaffine", "--train", data["train"], "--dev", data["dev"],
                                    "--epochs", "2", "--seed", "3", "--decoder", "eisner", "-m", model] + small,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "epoch 2/2" in done.stderr and "dev LAS" in done.stderr and "ETA" in done.stderr
    info = subprocess.run(barley + ["info", model], capture_output=True, text=True)
    assert "biaffine" in info.stdout and "decoder eisner" in info.stdout, info.stdout + info.stderr
    parsed = subprocess.run(barley + ["parse", "-m", model, data["test"], "-o", out], capture_output=True, text=True)
    assert parsed.returncode == 0, parsed.stderr
    assert len(list(read(out))) == 25
    refused = subprocess.run(barley + ["train", "--train", data["train"], "--lstm-hidden", "8", "-m", model],
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "takes no option --lstm-hidden" in refused.stderr


def test_in_a_pipeline_with_its_options(data, tmp_path):
    """The parse component of a pipeline takes the biaffine kind's options and stores the same parser."""
    from barley.pipeline import Pipeline

    pipeline = Pipeline.train(data["train"], ["parse"], options={"parse": {"parser": "biaffine", "epochs": 1, **TINY}},
                              jackknife=None, seed=2, **QUIET)
    path = str(tmp_path / "pipeline.barley")
    pipeline.save(path)
    sentences = list(Pipeline.load(path).parse(read(data["test"])))
    assert len(sentences) == 25 and all(check_tree(s.heads(), single_root=True) is None for s in sentences)


@pytest.mark.parametrize("decoder", ["mst", "eisner"])
def test_confidence_gives_probabilities_and_keeps_the_trees(data, decoder):
    from confidence_checks import assert_confidence

    parser = train(data["np_train"], parser="biaffine", decoder=decoder, epochs=3, **TINY, **QUIET)
    assert_confidence(parser, data["np_test"])
