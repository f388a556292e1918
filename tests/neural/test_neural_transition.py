"""The neural transition parser (``--parser neural-transition``): every system trains and
parses into trees, a model learns a small treebank by heart, model files round-trip,
training is deterministic, and position models and options it cannot use are refused."""

from __future__ import annotations

import subprocess
import sys

import pytest
from toy_language import treebank

from barley.conllu import read
from barley.errors import BarleyError, InputError
from barley.kinds import evaluate_parser, train
from barley.models.archive import read as read_model_file
from barley.neural.positions import load_positions, parse_positions
from barley.pipeline import Pipeline
from barley.systems import get_system, system_names
from barley.tree import check_tree

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

torch = pytest.importorskip("torch", reason="the neural transition parser needs PyTorch (pip install -e '.[neural]' in barley's checkout)")

TINY = dict(form_dim=16, lemma_dim=8, upos_dim=8, xpos_dim=8, feats_dim=8, char_dim=8, char_hidden=8,
            lstm_hidden=32, lstm_layers=1, hidden=64, batch_words=100)
LEARN = dict(TINY, dropout=0.0, word_dropout=0.0, learning_rate=0.01)
QUIET = dict(log=lambda message: None)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("neural_transition")
    paths = {"train": folder / "train.conllu", "test": folder / "test.conllu", "small": folder / "small.conllu"}
    treebank(paths["train"], 40, seed=1)
    treebank(paths["test"], 20, seed=3)
    treebank(paths["small"], 30, seed=5)
    return {name: str(path) for name, path in paths.items()}


def _trees(parser, path):
    return list(parser.parse(list(read(path))))


@pytest.mark.parametrize("system", system_names())
def test_every_system_trains_and_parses_into_trees(data, system):
    parser = train(data["train"], parser="neural-transition", system=system, epochs=1, **TINY, **QUIET)
    sentences = _trees(parser, data["test"])
    assert len(sentences) == 20
    for sentence in sentences:
        heads = [int(h) for h in sentence.heads()]
        assert check_tree(heads) is None, (system, heads)
        assert all(deprel in parser.labels for deprel in sentence.deprels()[1:])
    assert parser.stats.sentences == 20 and parser.stats.scored > 0


@pytest.mark.parametrize("system,oracle", [("arc-hybrid", "dynamic"), ("arc-eager", "static"),
                                           ("swap-lazy", "dynamic"), ("covington-nonprojective", "dynamic"),
                                           ("2-planar", "static")])
def test_learns_a_small_treebank_by_heart(data, system, oracle):
    parser = train(data["small"], parser="neural-transition", system=system, oracle=oracle, epochs=15, **LEARN,
                   **QUIET)
    assert parser.manifest["oracle"] == oracle
    if oracle == "dynamic":  # its own default, not the perceptron's
        assert parser.manifest["training"]["exploration"] == {"after": 2, "p": 0.9}
    assert evaluate_parser(parser, data["small"])["LAS"] >= 95.0


# "the dog sees a cat too": "too" belongs to the subject, across the verb (non-projective)
CROSSING = "".join(f"{i}\t{form}\t{form}\t{upos}\t{upos[0]}\t_\t{head}\t{deprel}\t_\t_\n" for i, (form, upos, head, deprel)
                   in enumerate([("the", "DET", 2, "det"), ("dog", "NOUN", 3, "nsubj"), ("sees", "VERB", 0, "root"),
                                 ("a", "DET", 5, "det"), ("cat", "NOUN", 3, "obj"), ("too", "PART", 2, "advmod")], 1))


@pytest.mark.parametrize("system,outside", [("arc-eager", 2), ("swap-lazy", 0)])
def test_the_log_counts_the_training_trees_outside_the_systems_class(data, tmp_path, system, outside):
    path = tmp_path / "with_crossing.conllu"
    path.write_text(open(data["small"], encoding="utf-8").read() + CROSSING + "\n" + CROSSING + "\n", encoding="utf-8")
    lines = []
    parser = train(str(path), parser="neural-transition", system=system, epochs=1, **TINY, log=lines.append)
    assert f"outside {system}'s class: {outside} of 32 training trees" in " ".join(lines)
    assert parser.manifest["training"]["outside_class_sentences"] == outside


def test_early_stopping_keeps_the_best_epoch(data):
    parser = train(data["small"], parser="neural-transition", dev=data["test"], epochs=6, patience=2, **LEARN,
                   **QUIET)
    history = parser.manifest["training"]
    assert history["dev_las_per_epoch"][history["best_epoch"] - 1] == max(history["dev_las_per_epoch"])
    assert parser.manifest["dev"]["LAS"] == max(history["dev_las_per_epoch"])


def test_model_file_round_trip_parses_alike(data, tmp_path):
    parser = train(data["train"], parser="neural-transition", system="arc-eager", epochs=2, **TINY, **QUIET)
    path = str(tmp_path / "model.barley")
    parser.save(path)
    loaded = Pipeline.load(path).parser
    assert loaded.kind == "neural-transition" and loaded.system.name == "arc-eager"
    assert [(s.heads().tolist(), s.deprels()) for s in _trees(parser, data["test"])] == \
           [(s.heads().tolist(), s.deprels()) for s in _trees(loaded, data["test"])]


def test_same_seed_same_model_bytes(data, tmp_path):
    paths = []
    for run in range(2):
        parser = train(data["train"], parser="neural-transition", epochs=2, seed=7, record_time=False, **TINY,
                       **QUIET)
        paths.append(tmp_path / f"model{run}.barley")
        parser.save(str(paths[-1]))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    other = train(data["train"], parser="neural-transition", epochs=2, seed=8, record_time=False, **TINY, **QUIET)
    other.save(str(tmp_path / "other.barley"))
    assert (tmp_path / "other.barley").read_bytes() != paths[0].read_bytes()


def test_info_describes_the_model(data, tmp_path):
    parser = train(data["train"], parser="neural-transition", system="covington-nonprojective", epochs=1, **TINY,
                   **QUIET)
    path = str(tmp_path / "model.barley")
    parser.save(path)
    manifest, arrays = read_model_file(path)
    assert manifest["parser"] == "neural-transition" and all(name.startswith("weights.") for name in arrays)
    result = subprocess.run([sys.executable, "-m", "barley", "info", path], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "neural transition" in result.stdout and "Lambda1[0]" in result.stdout


# --- position models ------------------------------------------------------------------------

@pytest.mark.parametrize("system", system_names())
def test_every_system_has_a_default_position_model(system):
    positions = load_positions(None, system)
    positions.check(get_system(system))
    assert len(positions) >= 4


def test_a_position_the_system_lacks_is_refused_with_file_and_line(data, tmp_path):
    path = tmp_path / "positions.txt"
    path.write_text("# covington's lists\nInput[0]\nldep(Lambda1[0])\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        train(data["train"], parser="neural-transition", system="arc-hybrid", positions=str(path), **TINY, **QUIET)
    assert caught.value.path == str(path) and caught.value.line == 3
    assert "Lambda1" in str(caught.value)


def test_the_command_refuses_a_bad_position_model_in_one_line(data, tmp_path):
    path = tmp_path / "positions.txt"
    path.write_text("Stack[0]\nStack[0\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "barley", "train", "--parser", "neural-transition",
                             "--train", data["train"], "--positions", str(path), "-m", str(tmp_path / "m.barley")],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert f"{path}:2" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "m.barley").exists()


def test_position_syntax():
    positions = parse_positions("Stack[0]  # the top\n\nrdep(ldep(Stack[1]))\nhd(Input[0])\n")
    assert [str(a) for a in positions.addresses] == ["Stack[0]", "rdep(ldep(Stack[1]))", "head(Input[0])"]
    assert positions.lines == (1, 3, 4)
    for bad, line in (("Stack[0]\nStack[0]\n", 2), ("UPOS(Stack[0])\n", 1), ("Stack[0] Input[0]\n", 1),
                      ("# nothing\n", None)):
        with pytest.raises(InputError) as caught:
            parse_positions(bad, "p.txt")
        assert caught.value.line == line


# --- options ----------------------------------------------------------------------------

@pytest.mark.parametrize("options", [{"decoder": "mst"}, {"learner": "linear"}, {"arc_mlp": 10},
                                     {"features": "f.txt"}])
def test_options_of_other_kinds_are_refused(data, options):
    with pytest.raises(BarleyError, match="neural-transition parser takes no option"):
        train(data["train"], parser="neural-transition", **options, **TINY, **QUIET)


def test_inconsistent_oracle_options_are_refused(data):
    with pytest.raises(BarleyError, match="dynamic"):
        train(data["train"], parser="neural-transition", system="planar", oracle="dynamic", **TINY, **QUIET)
    with pytest.raises(BarleyError, match="--oracle dynamic only"):
        train(data["train"], parser="neural-transition", oracle="static", explore_p=0.5, **TINY, **QUIET)
    with pytest.raises(BarleyError, match="--hidden"):
        train(data["train"], parser="neural-transition", **{**TINY, "hidden": 0}, **QUIET)
    with pytest.raises(BarleyError, match="--oracle"):
        train(data["train"], parser="neural-transition", oracle="clairvoyant", **TINY, **QUIET)


def test_parse_with_jobs_gives_the_one_process_output(data, tmp_path):
    """Forked workers parse with a neural model (PyTorch's thread pool once made them wait for ever)."""
    parser = train(data["train"], parser="neural-transition", system="arc-hybrid", epochs=1, **TINY, **QUIET)
    model = str(tmp_path / "model.barley")
    parser.save(model)
    outputs = []
    for jobs in ("1", "2"):
        output = tmp_path / f"jobs{jobs}.conllu"
        subprocess.run([sys.executable, "-m", "barley", "parse", "-q", "-m", model, "--jobs", jobs, data["test"],
                        "-o", str(output)], check=True, timeout=120)
        outputs.append(output.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0]


@pytest.mark.parametrize("system", ["arc-hybrid", "swap-lazy"])
def test_confidence_gives_probabilities_and_keeps_the_trees(data, system):
    from confidence_checks import assert_confidence

    parser = train(data["train"], parser="neural-transition", system=system, epochs=1, **TINY, **QUIET)
    assert_confidence(parser, data["test"])


@pytest.mark.parametrize("parser", ["transition", "neural-transition"])
def test_a_static_oracle_choosing_an_illegal_move_is_reported_with_the_sentence_file_and_line(data, parser,
                                                                                              monkeypatch):
    """A bug in an oracle (here: one that always asks for a move illegal at the start) names where it
    happened, for the transition parser and the neural one alike (one rule: Oracle.legal_next)."""
    import barley.transition.training
    from barley.systems.base import OracleError

    system = get_system("arc-eager")
    illegal = system.legal(system.initial(3)).index(False)
    monkeypatch.setattr(barley.transition.training.Oracle, "next", property(lambda oracle: lambda state: (illegal, -1)))
    lines = {sentence.line for sentence in read(data["train"])}
    options = {"epochs": 1, **TINY} if parser == "neural-transition" else {}
    with pytest.raises(OracleError, match=rf"arc-eager oracle chose illegal {system.moves[illegal]} in "
                                          rf"{data['train']}:(\d+)$") as raised:
        train(data["train"], parser=parser, system="arc-eager", oracle="static", **options, **QUIET)
    assert int(str(raised.value).rpartition(":")[2]) in lines  # where a sentence starts


def test_the_numpy_scorer_scores_as_the_pytorch_network_it_was_trained_as(data):
    """The parser parses with numpy (no PyTorch): its class scores at the positions of every
    configuration are those of the PyTorch network holding the same weights, but for float rounding."""
    import numpy as np

    from barley.neural.encoder import make_batch
    from barley.neural.fitting import load_weights
    from barley.neural.inputs import pad
    from barley.neural.transition_model import TransitionScorer

    parser = train(data["train"], parser="neural-transition", epochs=2, **TINY, **QUIET)
    model = TransitionScorer(parser.encoder, parser.scorer, parser.vocabularies.sizes(), len(parser.positions),
                             len(parser.classes.table))
    load_weights(model, parser.to_files()[1])
    model.eval()
    encoded = [parser.vocabularies.encode(s) for s in read(data["test"])]
    vectors, longest = parser.network.vectors(pad(encoded))
    parts = parser.network.parts(vectors)
    index = np.random.default_rng(1).integers(0, len(parts), size=(200, len(parser.positions)))
    with torch.inference_mode():
        expected_vectors = model.encoder(make_batch(encoded, parser.vocabularies))
        expected_parts = model.parts(expected_vectors.reshape(-1, expected_vectors.shape[-1]))
        expected = model.scores(expected_parts, torch.from_numpy(index)).numpy()
    assert longest == expected_vectors.shape[1]
    assert np.allclose(parts, expected_parts.numpy(), atol=1e-5)
    assert np.allclose(parser.network.scores(parts, index), expected, atol=1e-4)


def test_a_neural_transition_model_parses_without_pytorch(data, tmp_path):
    """Loading and parsing (greedy and with a beam) import no PyTorch."""
    path = tmp_path / "t.barley"
    train(data["train"], parser="neural-transition", epochs=1, **TINY, **QUIET).save(str(path))
    for beam in (1, 4):
        pipeline = Pipeline.load(str(path))
        pipeline.parser.set_beam(beam)
        expected = "".join(s.to_text() for s in pipeline.parse(list(read(data["test"]))))
        program = ("import sys; sys.modules['torch'] = None\n"  # any import of torch fails
                   "from barley.conllu import read\nfrom barley.pipeline import Pipeline\n"
                   f"pipeline = Pipeline.load({str(path)!r})\npipeline.parser.set_beam({beam})\n"
                   f"parsed = pipeline.parse(list(read({data['test']!r})))\n"
                   "sys.stdout.write(''.join(s.to_text() for s in parsed))")
        run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout == expected
