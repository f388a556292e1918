"""Beam search (barley.transition.beam) for every transition system, its k best trees, and global training
(barley.transition.global_training): theorems against greedy parsing and brute force on a small treebank."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from toy_language import treebank

from barley.transition.loop import ParseStats, parse_batch
from barley.transition.beam import beam_parse, model_scorer, parse_batch_beam
from barley.cli import main
from barley.conllu import DEPREL, HEAD, Sentence, read, read_bytes
from barley.constraints import ArcOptions, guides, settle
from barley.nbest import group_name
from barley.pipeline import Pipeline
from barley.tree import check_tree

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

SYSTEMS = ("arc-eager", "arc-standard", "arc-hybrid", "swap-lazy", "covington-nonprojective", "2-planar")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("beam")
    train, test = folder / "train.conllu", folder / "test.conllu"
    treebank(train, 60, seed=3)
    treebank(test, 15, seed=4)
    models = {}
    for system in SYSTEMS:
        models[system] = str(folder / f"{system}.barley")
        assert main(["train", "--train", str(train), "-a", system, "-l", "perceptron", "--epochs", "1",
                     "--model", models[system]]) == 0
    return {"folder": folder, "train": str(train), "test": str(test), **models}


def _parser(path: str):
    return Pipeline.load(path).parser


def _text(sentences: list[Sentence]) -> str:
    return "".join(sentence.to_text() for sentence in sentences)


@pytest.mark.parametrize("system", SYSTEMS)
def test_width_one_is_the_greedy_parse_byte_for_byte(files, system):
    parser = _parser(files[system])
    greedy = _text(list(parser.parse(read(files["test"]))))  # the compiled loop where there is one
    batch = list(read(files["test"]))
    assert _text(parser._parse_beam(batch, [None] * len(batch))) == greedy
    reference = parse_batch(parser, list(read(files["test"])), ParseStats())
    beam = parse_batch_beam(parser, list(read(files["test"])), ParseStats(), 1)
    assert [(heads, labels) for _, heads, labels in (trees[0] for trees in beam)] == reference


def _sequences(system, classes, scorer, state, score: float):
    """Every transition sequence from ``state`` (forced moves taken as the beam takes them), as
    (score, terminal configuration): brute force."""
    if system.is_terminal(state):
        yield score, state
        return
    legal = system.legal(state)
    if legal.count(True) == 1 and not system.labeled[legal.index(True)]:
        system.apply(state, legal.index(True), -1)
        yield from _sequences(system, classes, scorer, state, score)
        return
    scores = scorer([0], [state])[0][0]
    for c, (move, label) in enumerate(classes.tolist()):
        if legal[move]:
            child = state.copy()
            system.apply(child, move, label)
            yield from _sequences(system, classes, scorer, child, score + float(scores[c]))


def _prefix(sentence: Sentence, n: int) -> Sentence:
    """The first ``n`` words of ``sentence`` as a sentence of its own (its heads are not read)."""
    text = "".join("\t".join([str(i), *word[1:6], "0", "root", "_", "_"]) + "\n"
                   for i, word in enumerate(sentence.words[:n], 1))
    return next(read_bytes((text + "\n").encode("utf-8")))


@pytest.mark.parametrize("system", ["arc-eager", "arc-hybrid", "swap-lazy", "covington-nonprojective"])
def test_a_beam_wide_enough_finds_the_best_sequence_of_brute_force(files, system):
    """With a width above the number of candidates of any step, nothing is ever pruned: the beam's best
    item is the highest-scoring transition sequence of all (and so scores at least the greedy one's)."""
    parser = _parser(files[system])
    tiny = [_prefix(sentence, n) for sentence, n in zip(read(files["test"]), (1, 2, 3, 2))]
    for sentence in tiny:
        scorer = model_scorer(parser, [sentence])
        every = list(_sequences(parser.system, parser.classes, scorer, parser.system.initial(len(sentence)), 0.0))
        best_score = max(score for score, _ in every)
        beam = beam_parse(parser.system, parser.classes, [len(sentence)], scorer, 10 ** 6)[0]
        assert len(beam) == len(every)
        assert beam[0].score == pytest.approx(best_score, rel=1e-9, abs=1e-6)
        assert sorted(item.score for item in beam) == pytest.approx(sorted(score for score, _ in every))
        greedy = beam_parse(parser.system, parser.classes, [len(sentence)], scorer, 1)[0][0]
        assert greedy.score <= best_score + 1e-6


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("width", [2, 5])
def test_every_tree_of_the_final_beam_is_a_tree(files, system, width):
    parser = _parser(files[system])
    for trees in parse_batch_beam(parser, list(read(files["test"])), ParseStats(), width, most=width):
        assert 1 <= len(trees) <= width
        for _, heads, labels in trees:
            assert check_tree(heads, parser.system.single_root) is None
            assert min(labels[1:]) >= 0


@pytest.mark.parametrize("system", ["arc-eager", "arc-hybrid"])
def test_every_beam_item_keeps_the_given_arcs(files, system):
    parser = _parser(files[system])
    sentences = list(read(files["test"]))
    rng = np.random.default_rng(5)
    given = []
    for sentence in sentences:
        partial = sentence.copy()
        for word in partial.words:
            if rng.random() < 0.6:
                word[HEAD] = word[DEPREL] = "_"
        arcs = ArcOptions(keep=True).of(partial, parser.labels)
        if arcs is not None:
            settle(arcs, parser.system.tree_class, False, system)
        given.append(arcs)
    assert any(arcs is not None for arcs in given)
    ranked = parse_batch_beam(parser, sentences, ParseStats(), 6, guides(parser.system, given), most=6)
    for arcs, trees in zip(given, ranked):
        if arcs is None:
            continue
        kept = arcs.kept_heads()
        for _, heads, _ in trees:
            assert all(heads[d] == h for d, h in enumerate(kept) if d and h >= 0)


def _comment(sentence: Sentence, key: str) -> str:
    return next(c.partition("=")[2].strip() for c in sentence.comments if c[1:].partition("=")[0].strip() == key)


@pytest.mark.parametrize("system", ["arc-eager", "swap-lazy"])
def test_nbest_from_the_beam_writes_distinct_trees_best_first(files, system):
    output = files["folder"] / f"nbest-{system}.conllu"
    assert main(["parse", "-q", "-m", files[system], files["test"], "--nbest", "4", "-o", str(output)]) == 0
    groups: dict[str, list[Sentence]] = {}
    for sentence in read(str(output)):
        groups.setdefault(group_name(sentence), []).append(sentence)
    assert len(groups) == len(list(read(files["test"])))
    assert any(len(group) > 1 for group in groups.values())
    for name, group in groups.items():
        assert 1 <= len(group) <= 4
        trees = {tuple((w[HEAD], w[DEPREL]) for w in s.words) for s in group}
        assert len(trees) == len(group)
        scores = [float(_comment(s, "score")) for s in group]
        assert scores == sorted(scores, reverse=True)
        assert [_comment(s, "nbest") for s in group] == [f"{r}/{len(group)}" for r in range(1, len(group) + 1)]
        assert [s.sent_id for s in group] == [f"{name}#{r}" for r in range(1, len(group) + 1)]
    # the first analysis of each sentence is the best tree of a beam of 4
    best = files["folder"] / f"beam4-{system}.conllu"
    assert main(["parse", "-q", "-m", files[system], files["test"], "--beam", "4", "-o", str(best)]) == 0
    firsts = [group[0] for group in groups.values()]
    assert [[w[HEAD] for w in s.words] for s in firsts] == [[w[HEAD] for w in s.words] for s in read(str(best))]


def test_beam_is_refused_for_other_parsers_and_with_confidence_or_valid_ud_in_one_line(files, capsys):
    graph = str(files["folder"] / "graph.barley")
    assert main(["train", "--train", files["train"], "--parser", "graph", "--epochs", "1", "--model", graph]) == 0
    capsys.readouterr()
    output = files["folder"] / "refused.conllu"
    assert main(["parse", "-q", "-m", graph, files["test"], "--beam", "4", "-o", str(output)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "only a transition-based parser searches with a beam" in error
    assert main(["parse", "-q", "-m", files["arc-eager"], files["test"], "--beam", "4", "--confidence",
                 "-o", str(output)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "--confidence is not yet written with a beam" in error
    assert main(["parse", "-q", "-m", files["arc-eager"], files["test"], "--beam", "4", "--valid-ud",
                 "-o", str(output)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "--valid-ud is not yet taken with a beam" in error
    assert not output.exists()


def test_the_python_api_and_jobs_take_the_beam(files):
    pipeline = Pipeline.load(files["arc-eager"])
    api = _text(list(pipeline.parse(read(files["test"]), beam=3)))
    folder = files["folder"]
    for jobs in ("1", "2"):
        assert main(["parse", "-q", "-m", files["arc-eager"], files["test"], "--beam", "3", "--jobs", jobs,
                     "-o", str(folder / f"beam-jobs{jobs}.conllu")]) == 0
    assert (folder / "beam-jobs1.conllu").read_text(encoding="utf-8") == api
    assert (folder / "beam-jobs2.conllu").read_text(encoding="utf-8") == api


# --- global training ---------------------------------------------------------------------------

def _las(parser, path: str) -> float:
    gold = list(read(path))
    parsed = list(parser.parse([s.copy() for s in gold]))
    right = sum(p[HEAD] == g[HEAD] and p[DEPREL] == g[DEPREL] for s, t in zip(gold, parsed)
                for g, p in zip(s.words, t.words))
    return right / sum(len(s) for s in gold)


def test_global_training_is_deterministic_and_learns(files):
    folder = files["folder"]
    paths = [str(folder / f"global{k}.barley") for k in (1, 2)]
    for path in paths:
        assert main(["train", "--train", files["train"], "-l", "perceptron", "--beam", "4", "--epochs", "3",
                     "--seed", "7", "--model", path]) == 0
    assert Path(paths[0]).read_bytes() == Path(paths[1]).read_bytes()
    trained = _parser(paths[0])
    assert trained.beam == 4  # it parses with the width it was trained at unless told
    untrained = _parser(paths[0])
    untrained.learner.weights[:] = 0.0
    assert _las(trained, files["train"]) > _las(untrained, files["train"]) + 0.2
    trained.set_beam(1)  # and greedily, by the compiled loop
    assert _las(trained, files["train"]) > 0.5


@pytest.mark.parametrize("system", ["arc-eager", "arc-standard", "swap-lazy", "covington-nonprojective", "2-planar"])
@pytest.mark.parametrize("update", ["early", "max-violation"])
def test_both_updates_train_every_system(files, system, update):
    path = str(files["folder"] / f"global-{system}-{update}.barley")
    assert main(["train", "--train", files["train"], "-a", system, "-l", "perceptron", "--beam", "3",
                 "--update", update, "--epochs", "2", "--seed", "1", "--model", path]) == 0
    parser = _parser(path)
    assert parser.manifest["training"]["update"] == update
    for trees in parse_batch_beam(parser, list(read(files["test"])), ParseStats(), 3, most=3):
        assert all(check_tree(heads, parser.system.single_root) is None for _, heads, _ in trees)
    assert _las(parser, files["test"]) > 0.3


@pytest.mark.parametrize("options,message", [
    (["-l", "linear", "--beam", "4"], "--beam 4 trains the perceptron globally"),
    (["-l", "perceptron", "--beam", "4", "--oracle", "dynamic"], "--beam 4 trains the perceptron globally"),
    (["-l", "perceptron", "--update", "early"], "--update is how global training with a beam updates"),
    (["--parser", "graph", "--beam", "4"], "a graph parser takes no option --beam")])
def test_global_training_refuses_what_it_cannot_do_in_one_line(files, capsys, options, message):
    capsys.readouterr()
    path = files["folder"] / "refused.barley"
    assert main(["train", "--train", files["train"], *options, "--model", str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error, error
    assert not path.exists()


def test_experiment_specs_take_the_widths_of_training_and_parsing(tmp_path, files):
    from barley.errors import BarleyError
    from barley.experiment import spec

    path = tmp_path / "spec.toml"
    head = f'name = "x"\n[[treebanks]]\nname = "t"\ndata = "{files["train"]}"\n'
    path.write_text(head + '[[parsers]]\nname = "g"\nlearner = "perceptron"\nbeam = 8\nupdate = "early"\n'
                    '[[parsers]]\nname = "g16"\nlearner = "perceptron"\nbeam = 8\nparse_beam = 16\n', encoding="utf-8")
    trained, wider = spec.load(path).parsers
    assert trained.train_options() == {"learner": "perceptron", "beam": 8, "update": "early"}
    assert wider.parse_beam == 16 and "parse_beam" not in wider.train_options()
    assert "parse beam 16" in wider.describe()
    for entry, message in [('parser = "graph"\nparse_beam = 4\n', "a graph parser searches with no beam"),
                           ('parse_beam = 0\n', "parse_beam must be a whole number of at least 1"),
                           ('beam = "wide"\n', "beam must be int")]:
        path.write_text(head + '[[parsers]]\nname = "p"\n' + entry, encoding="utf-8")
        with pytest.raises(BarleyError, match=message):
            spec.load(path)


@pytest.mark.parametrize("system", ["arc-hybrid", "swap-lazy"])
def test_the_neural_transition_parser_parses_with_a_beam(files, system):
    pytest.importorskip("torch")
    from barley.confidence import Confidence
    from barley.errors import BarleyError
    from barley.kinds import train

    parser = train(files["train"], parser="neural-transition", system=system, epochs=1, form_dim=16, lemma_dim=8,
                   upos_dim=8, xpos_dim=8, feats_dim=8, char_dim=8, char_hidden=8, lstm_hidden=32, lstm_layers=1,
                   hidden=64, batch_words=100, log=lambda message: None)
    greedy = _text(list(parser.parse(read(files["test"]))))
    parser.set_beam(4)
    wide = list(parser.parse(read(files["test"])))
    assert all(check_tree([int(h) for h in s.heads()], parser.system.single_root) is None for s in wide)
    parser.set_beam(1)
    assert _text(list(parser.parse(read(files["test"])))) == greedy
    parser.set_beam(4)
    parser.confidence = Confidence()
    with pytest.raises(BarleyError, match="--confidence is not yet written with a beam"):
        list(parser.parse(read(files["test"])))
