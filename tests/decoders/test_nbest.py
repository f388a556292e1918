"""The k best analyses (``barley parse --nbest``) of the graph-based and biaffine parsers, their
oracle score (``barley evaluate``), and the one-line refusals of what has no k-best decoding.

The decoders themselves are tested against brute force in test_graph_decoders.py; here, what
the file says: distinct trees per sentence, ranked by the score they carry, which is the tree's
score under the model, the first being the 1-best parse.
"""

from __future__ import annotations

import json
import re
import urllib.parse

import pytest

from barley.cli import main
from barley.conllu import Sentence, read
from barley.decoders.tree_score import tree_score
from barley.nbest import analyses, evaluate_oracle, group_name
from barley.pipeline import Pipeline
from barley.tree import check_tree, is_projective

from toy_language import treebank

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

ONE_WORD = "# text = Hi\n1\tHi\thi\tINTJ\tI\t_\t0\troot\t_\t_\n\n"
"""A sentence of one word, without sent_id: it has one tree, and is named by its line."""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nbest")
    train, test = folder / "train.conllu", folder / "test.conllu"
    treebank(train, 40, seed=1)
    treebank(test, 12, seed=2)
    test.write_text(test.read_text(encoding="utf-8") + ONE_WORD, encoding="utf-8")
    models = {}
    for name, options in {"eisner": ["--decoder", "eisner"], "mst": ["--decoder", "mst"],
                          "npa": ["--decoder", "eisner+npa"], "second": ["--order", "2"]}.items():
        models[name] = str(folder / f"{name}.barley")
        assert main(["train", "--train", str(train), "--parser", "graph", "--epochs", "1", *options,
                     "--model", models[name]]) == 0
    models["transition"] = str(folder / "transition.barley")
    assert main(["train", "--train", str(train), "--model", models["transition"]]) == 0
    return {"folder": folder, "test": str(test), **models}


def _groups(sentences: list[Sentence]) -> list[list[Sentence]]:
    groups: dict[str, list[Sentence]] = {}
    for sentence in sentences:
        groups.setdefault(group_name(sentence), []).append(sentence)
    return list(groups.values())


def _comment(sentence: Sentence, key: str) -> str:
    return next(c.partition("=")[2].strip() for c in sentence.comments if c[1:].partition("=")[0].strip() == key)


@pytest.mark.parametrize("decoder", ["eisner", "mst"])
def test_nbest_writes_distinct_ranked_trees_with_their_scores(files, decoder):
    folder, model = files["folder"], files[decoder]
    one, five = folder / f"one-{decoder}.conllu", folder / f"five-{decoder}.conllu"
    assert main(["parse", "-q", "-m", model, files["test"], "-o", str(one)]) == 0
    assert main(["parse", "-q", "-m", model, files["test"], "-o", str(five), "--nbest", "5"]) == 0
    inputs, plain, groups = list(read(files["test"])), list(read(one)), _groups(list(read(five)))
    assert len(groups) == len(inputs)
    graph = Pipeline.load(model)["parse"].parser
    for given, best, group in zip(inputs, plain, groups):
        name = given.sent_id or f"line-{given.line}"
        count = 1 if len(given) == 1 else 5  # one word has one tree; the others have more than 5
        assert [s.sent_id for s in group] == [f"{name}#{rank}" for rank in range(1, count + 1)]
        assert [_comment(s, "nbest") for s in group] == [f"{rank}/{count}" for rank in range(1, count + 1)]
        assert group[0].rows == best.rows  # the first analysis is the 1-best parse
        assert all(s.column(1) == given.column(1) and s.column(9) == given.column(9) for s in group)
        trees = [tuple(s.heads()) for s in group]
        assert len(set(trees)) == len(trees) and all(check_tree(t, single_root=True) is None for t in trees)
        assert decoder == "mst" or all(is_projective(t) for t in trees)
        scores = [float(_comment(s, "score")) for s in group]
        assert scores == sorted(scores, reverse=True)
        arc = graph.graph.parse_scores(graph.tokens(given)).arc  # arc + best label: the tree's score
        assert scores == pytest.approx([tree_score(t, arc) for t in trees], abs=1e-3)
        labels = graph.graph.parse_scores(graph.tokens(given)).best_label
        assert all(s.deprels()[1:] == [graph.labels[labels[h, d]] for d, h in enumerate(s.heads()[1:], 1)]
                   for s in group)


def test_the_oracle_is_the_best_analysis_of_each_sentence(files, capsys):
    gold = list(read(files["test"]))
    wrong = [s.copy() for s in gold]
    for sentence in wrong:
        sentence.words[0][7] = "wrong"  # one label wrong in each first analysis
    ranked = []
    for bad, good in zip(wrong, gold):
        ranked += analyses(bad, [(2.0, bad.heads(), bad.deprels())], lambda s, h, d: None)
        if len(good) > 1:
            second = good.copy()
            ranked += [second]
            second.comments = [f"# sent_id = {bad.sent_id[:-2]}#2", "# nbest = 2/2", "# score = 1.0"]
    scores = evaluate_oracle(files["test"], ranked)
    words = sum(len(s) for s in gold)
    assert scores.first.as_dict()["LAS"] == pytest.approx(100 * (words - len(gold)) / words)
    assert scores.oracle.as_dict()["LAS"] == pytest.approx(100 * (words - 1) / words)  # the one-word sentence
    assert (scores.sentences, scores.analyses, scores.most) == (len(gold), 2 * len(gold) - 1, 2)
    path = files["folder"] / "ranked.conllu"
    path.write_text("".join(s.to_text() for s in ranked), encoding="utf-8")
    capsys.readouterr()
    assert main(["evaluate", files["test"], str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["k_best"]
    assert printed["oracle"]["LAS"] == scores.oracle.as_dict()["LAS"] and printed["most"] == 2
    assert main(["evaluate", files["test"], str(path)]) == 0
    assert "oracle (the best analysis of each sentence by LAS): LAS" in capsys.readouterr().out


def test_a_k_best_file_that_does_not_match_is_refused_in_one_line(files, capsys):
    path = files["folder"] / "five-eisner-mixed.conllu"
    ranked = list(read(files["folder"] / "five-eisner.conllu"))
    path.write_text("".join(s.to_text() for s in ranked[:-1]), encoding="utf-8")  # the last sentence left out
    capsys.readouterr()
    assert main(["evaluate", files["test"], str(path)]) == 2
    assert "analyses of 12 sentences and the gold has 13" in capsys.readouterr().err
    plain = list(read(files["test"]))
    path.write_text("".join(s.to_text() for s in ranked[:3] + plain[1:2]), encoding="utf-8")
    assert main(["evaluate", files["test"], str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "not an analysis of a k-best file" in error
    assert main(["evaluate", files["test"], str(files["folder"] / "five-eisner.conllu"), "--compare",
                 files["test"]]) == 2
    assert "--compare scores files of one analysis per sentence" in capsys.readouterr().err


@pytest.mark.parametrize("model,message", [
    ("npa", "this model's decoder (eisner+npa) has no k-best decoding"),
    ("second", "this model's decoder (second-order eisner) has no k-best decoding")])
def test_parsers_without_k_best_refuse_nbest_in_one_line(files, model, message, capsys):
    output = files["folder"] / "refused.conllu"
    capsys.readouterr()
    assert main(["parse", "-q", "-m", files[model], files["test"], "-o", str(output), "--nbest", "3"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error, error
    assert not output.exists()


def test_nbest_with_jobs_writes_the_same_bytes_and_k_must_be_positive(files, capsys):
    folder = files["folder"]
    for jobs in ("1", "2"):
        assert main(["parse", "-q", "-m", files["mst"], files["test"], "--nbest", "3", "--jobs", jobs,
                     "-o", str(folder / f"jobs{jobs}.conllu")]) == 0
    assert (folder / "jobs1.conllu").read_bytes() == (folder / "jobs2.conllu").read_bytes()
    for jobs in ("1", "2"):  # a transition-based parser's k best, from its beam (tests/transition/test_beam.py)
        assert main(["parse", "-q", "-m", files["transition"], files["test"], "--nbest", "3", "--jobs", jobs,
                     "-o", str(folder / f"beam-jobs{jobs}.conllu")]) == 0
    assert (folder / "beam-jobs1.conllu").read_bytes() == (folder / "beam-jobs2.conllu").read_bytes()
    with pytest.raises(SystemExit):
        main(["parse", "-m", files["eisner"], files["test"], "--nbest", "0"])


def test_analyses_replace_the_comments_of_an_earlier_k_best_file():
    sentence = Sentence(["# sent_id = a#1", "# nbest = 1/3", "# score = 9.0", "# text = x"],
                        [["1", "x", "_", "X", "_", "_", "0", "root", "_", "_"]], line=7)
    out = analyses(sentence, [(1.5, [-1, 0], ["", "dep"])], lambda s, h, d: s.set_tree(h, d))
    assert out[0].comments == ["# sent_id = a#1#1", "# nbest = 1/1", "# score = 1.5000", "# text = x"]
    assert out[0].words[0][7] == "dep"


def test_trees_that_the_inverse_transforms_make_one_are_written_once():
    sentence = Sentence([], [["1", "x", "_", "X", "_", "_", "_", "_", "_", "_"],
                             ["2", "y", "_", "X", "_", "_", "_", "_", "_", "_"]], line=3)

    def decoded(s: Sentence, heads: list[int], deprels: list[str]) -> None:
        s.set_tree(heads, [label.split("|")[0] for label in deprels])  # as a lifted label read back

    ranked = [(3.0, [-1, 0, 1], ["", "root", "dep|x"]), (2.0, [-1, 0, 1], ["", "root", "dep|y"]),
              (1.0, [-1, 2, 0], ["", "dep", "root"])]
    out = analyses(sentence, ranked, decoded)
    assert [s.comments[:3] for s in out] == [["# sent_id = line-3#1", "# nbest = 1/2", "# score = 3.0000"],
                                             ["# sent_id = line-3#2", "# nbest = 2/2", "# score = 1.0000"]]
    assert out[0] is sentence and [s.heads().tolist() for s in out] == [[-1, 0, 1], [-1, 2, 0]]


def test_the_python_api_and_the_biaffine_parser_take_nbest(tmp_path):
    pytest.importorskip("torch", reason="the biaffine parser needs PyTorch (pip install -e '.[neural]' in barley's checkout)")
    from barley.kinds import train

    path = tmp_path / "train.conllu"
    treebank(path, 30, seed=3)
    parser = train(str(path), parser="biaffine", decoder="mst", epochs=1, form_dim=16, lemma_dim=8, upos_dim=8,
                   xpos_dim=8, feats_dim=8, char_dim=8, char_hidden=8, lstm_hidden=16, lstm_layers=1, arc_mlp=16,
                   label_mlp=8, log=lambda message: None)
    pipeline = Pipeline.of(parser)
    plain = list(pipeline.parse(list(read(path))[:6]))
    ranked = list(pipeline.parse(list(read(path))[:6], nbest=3))
    groups = _groups(ranked)
    assert [group[0].rows for group in groups] == [s.rows for s in plain]
    for group in groups:
        assert len(group) == 3 and len({tuple(s.heads()) for s in group}) == 3
        scores = [float(_comment(s, "score")) for s in group]
        assert scores == sorted(scores, reverse=True) and scores[0] <= 0.0  # log-probabilities
    assert len(list(pipeline.parse(list(read(path))[:6]))) == 6  # nbest holds until the next call sets it


def test_the_service_takes_nbest(files):
    pytest.importorskip("fastapi", reason="barley serve needs the serve extra: pip install -e '.[serve]' in barley's checkout")
    from barley.errors import BarleyError
    from barley.service.app import _answer
    from barley.service.limits import Limits
    from barley.service.models import ModelRegistry

    registry = ModelRegistry([("graph", files["mst"]), ("transition", files["transition"])])
    data = open(files["test"], encoding="utf-8").read()

    def answer(**fields) -> dict:
        return json.loads(_answer(registry, Limits(), "application/json", b"", json.dumps(fields).encode()))

    ranked = answer(data=data, nbest=3)["sentences"]
    assert len(ranked) == 3 * 12 + 1 and ranked[1]["sent_id"] == "toy-0#2"
    assert "# nbest = 2/3" in ranked[1]["comments"]
    assert len(answer(data=data)["sentences"]) == 13  # the next request without nbest: one each
    form = _answer(registry, Limits(), "application/x-www-form-urlencoded", b"nbest=2",
                   urllib.parse.urlencode({"data": data}).encode())
    assert len(json.loads(form)["sentences"]) == 2 * 12 + 1
    for wrong, message in [(0, "the field 'nbest' is 0"), (True, "the field 'nbest' is true or false"),
                           ("2", "the field 'nbest' is a string"), (101, "the field 'nbest' is 101")]:
        with pytest.raises(BarleyError, match=re.escape(message)):
            answer(data=data, nbest=wrong)
    beam = answer(data=data, nbest=2, model="transition")["sentences"]  # from the beam
    assert 13 <= len(beam) <= 2 * 12 + 1 and beam[0]["sent_id"] == "toy-0#1"
    assert len(answer(data=data, model="transition")["sentences"]) == 13


def test_nbest_with_given_or_forbidden_arcs_is_refused_in_one_line(files, capsys):
    pytest.importorskip("fastapi", reason="barley serve needs the serve extra: pip install -e '.[serve]' in barley's checkout")
    from barley.constraints import ArcOptions
    from barley.errors import BarleyError
    from barley.service.app import _answer
    from barley.service.limits import Limits
    from barley.service.models import ModelRegistry

    message = "the k best trees (nbest) are not yet parsed around given or forbidden arcs"
    output = files["folder"] / "refused.conllu"
    capsys.readouterr()
    assert main(["parse", "-q", "-m", files["mst"], files["test"], "-o", str(output), "--nbest", "3",
                 "--keep-arcs"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error, error
    assert not output.exists()
    with pytest.raises(BarleyError, match=re.escape(message)):
        Pipeline.load(files["mst"]).parse(read(files["test"]), arcs=ArcOptions(keep=True), nbest=2)
    registry = ModelRegistry([("graph", files["mst"])])
    body = json.dumps({"data": open(files["test"], encoding="utf-8").read(), "nbest": 2, "keep_arcs": True})
    with pytest.raises(BarleyError, match=re.escape(message)):
        _answer(registry, Limits(), "application/json", b"", body.encode())
