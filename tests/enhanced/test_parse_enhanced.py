"""`barley parse --enhanced` and Pipeline.parse(enhanced=True): DEPS filled from the predicted trees, by the
model's own enhancer or the rules."""

from __future__ import annotations

import pytest

from barley import conllu
from barley.cli import main
from barley.conllu import DEPS, HEAD, ID
from barley.enhanced.enhancer import RuleEnhancer, enhancer_for
from barley.enhanced.rules import DEFAULT, enhance
from barley.errors import BarleyError, BarleyWarning
from barley.pipeline import Pipeline
from enhanced_checks import assert_valid
import toy_language


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("enhanced")
    toy_language.treebank(folder / "train.conllu", 120, seed=1)
    toy_language.treebank(folder / "test.conllu", 30, seed=2)
    pipeline = Pipeline.train(str(folder / "train.conllu"), ["parse"], jackknife=None, log=lambda _: None)
    pipeline.save(str(folder / "model.barley"))
    return folder


def test_the_pipeline_fills_deps_from_its_own_trees(toy):
    pipeline = Pipeline.load(str(toy / "model.barley"))
    parsed = list(pipeline.parse(conllu.read(toy / "test.conllu"), enhanced=True))
    plain = list(pipeline.parse(conllu.read(toy / "test.conllu")))
    assert [s.column(HEAD) for s in parsed] == [s.column(HEAD) for s in plain]
    for tree, basic in zip(parsed, plain):
        assert tree.column(DEPS) == enhance(basic) and set(basic.column(DEPS)) == {"_"}
        assert_valid(tree, tree.column(DEPS))
    assert any("obl:with" in value for tree in parsed for value in tree.column(DEPS))


def test_a_component_s_own_enhancer_comes_before_the_rules(toy):
    pipeline = Pipeline.load(str(toy / "model.barley"))
    assert enhancer_for(pipeline) == RuleEnhancer(DEFAULT)

    class Learned:
        name = "learned"

        def enhance(self, sentence):
            return ["0:root"] * len(sentence)

    pipeline.components[-1].enhancer = Learned()
    assert enhancer_for(pipeline).name == "learned"
    parsed = next(iter(pipeline.parse(conllu.read(toy / "test.conllu"), enhanced=True)))
    assert set(parsed.column(DEPS)) == {"0:root"}


def test_a_model_without_a_parser_is_refused(toy):
    tagger = Pipeline.train(str(toy / "train.conllu"), ["tag"], jackknife=None, log=lambda _: None)
    with pytest.raises(BarleyError, match="enhanced graphs are made from the trees"):
        tagger.parse(conllu.read(toy / "test.conllu"), enhanced=True)


def test_the_command_with_jobs_writes_what_one_process_writes(toy, capsys):
    model, test = str(toy / "model.barley"), str(toy / "test.conllu")
    outputs = []
    for jobs in ("1", "2"):
        out = toy / f"out{jobs}.conllu"
        assert main(["parse", test, "--model", model, "--enhanced", "--jobs", jobs, "--output", str(out), "-q",
                     "--force"]) == 0
        outputs.append(out.read_text("utf-8"))
    assert outputs[0] == outputs[1] and ":obl:with" in outputs[0]
    assert main(["parse", test, "--model", model, "--enhanced", "--scheduler", "local:1", "--out-dir",
                 str(toy / "cluster")]) == 2
    assert "--enhanced is not yet taken with --scheduler" in capsys.readouterr().err


def test_empty_nodes_of_the_input_are_left_out_with_a_warning(toy):
    text = (toy / "test.conllu").read_text("utf-8").split("\n\n")[0].split("\n")
    words = [line for line in text if line and line[0].isdigit()]
    with_empty = "\n".join([*text[:2], words[0], "1.1\tgone\tgo\tVERB\t_\t_\t_\t_\t0:root\t_", *words[1:]]) + "\n\n"
    pipeline = Pipeline.load(str(toy / "model.barley"))
    with pytest.warns(BarleyWarning, match="empty nodes of the input are left out"):
        [parsed] = list(pipeline.parse(conllu.read_lines(with_empty.splitlines()), enhanced=True))
    assert [row[ID] for row in parsed.rows] == [str(i) for i in range(1, len(words) + 1)]
    assert_valid(parsed, parsed.column(DEPS))


def test_a_kept_graph_beside_new_trees_is_flagged_once(toy, tmp_path):
    """Parsed without --enhanced, a file's DEPS stays as it was (nothing is altered), with one warning: it is
    the graph of the trees the file had. With --enhanced, or with its arcs kept, nothing to flag."""
    sentences = list(conllu.read(toy / "test.conllu"))
    for sentence in sentences:
        for word, value in zip(sentence.words, enhance(sentence)):
            word[DEPS] = value
    conllu.write(sentences, str(tmp_path / "with-deps.conllu"))
    pipeline = Pipeline.load(str(toy / "model.barley"))
    with pytest.warns(BarleyWarning, match="DEPS column .* kept as it was") as caught:
        parsed = list(pipeline.parse(conllu.read(tmp_path / "with-deps.conllu")))
    assert len([w for w in caught if issubclass(w.category, BarleyWarning)]) == 1
    assert [s.column(DEPS) for s in parsed] == [s.column(DEPS) for s in sentences]
    import warnings

    from barley.constraints import ArcOptions

    with warnings.catch_warnings():
        warnings.simplefilter("error", BarleyWarning)
        list(pipeline.parse(conllu.read(tmp_path / "with-deps.conllu"), enhanced=True))
        list(pipeline.parse(conllu.read(tmp_path / "with-deps.conllu"), arcs=ArcOptions(keep=True)))
