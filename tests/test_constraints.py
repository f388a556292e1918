"""Given and forbidden arcs (``barley parse --keep-arcs``, :mod:`barley.constraints`): theorems as tests.

* For every system that steers by its dynamic-oracle costs against a *partial* gold tree
  (``keeps_partial_gold``), those costs equal the brute-force loss over all completions, on
  random trees with random subsets of their arcs given and random configurations;
* following any actions the guide allows, from the initial configuration, ends in a tree that
  holds every given arc the system can build, with its label;
* the buildable subset is a largest one (brute force over subsets), and graph decoders given
  the constrained scores return a tree that holds the kept arcs and no forbidden arc;
* bad constraints are one-line errors naming the file and the line.
"""

from __future__ import annotations

import itertools
import random
import warnings

import numpy as np
import pytest
from brute_force_oracle import NO_SHRINK, BruteForce, key, random_configuration
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_trees import any_tree, draw_ints, projective_tree
from toy_models import QUIET, model, toy

from barley.conllu import Sentence
from barley.constraints import (
    FREE,
    ArcOptions,
    SentenceArcs,
    TransitionGuide,
    buildable,
    constrained_scores,
    labels_kept,
    write_tree,
)
from barley.decoders.decoding import decode
from barley.decoders.options import DecoderOptions
from barley.errors import InputError
from barley.systems import REGISTRY, get_system
from barley.tree import check_tree, is_projective

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

GUIDED = sorted(name for name in REGISTRY if get_system(name).keeps_partial_gold)
MAX_WORDS = {"covington-nonprojective": 5}


class PartialBruteForce(BruteForce):
    """The least number of *given* arcs lost over all completions (free words: no loss)."""

    def lost(self, state) -> int:
        return sum(state.heads[d] != h for d, h in enumerate(self.heads) if d and h != FREE)


def random_given(draw_int, n: int, single_root: bool, tree_class: str, forbid: bool = False) -> SentenceArcs:
    """A random tree's arcs, each given with probability 1/2 (labels 1..3 or none), the ones the
    class cannot build left out; with ``forbid``, a few random arcs that are no given arc forbidden."""
    heads = any_tree(draw_int, n, single_root) if draw_int(0, 1) else projective_tree(draw_int, n, single_root)
    given = [FREE] + [h if draw_int(0, 1) else FREE for h in heads[1:]]
    labels = [-1] + [draw_int(1, 3) if given[d] != FREE and draw_int(0, 1) else -1 for d in range(1, n + 1)]
    words = [[str(d), "w", "_", "_", "_", "_", "_", "_", "_", "_"] for d in range(1, n + 1)]
    arcs = SentenceArcs(given, labels, [None if label == -1 else str(label) for label in labels], set(),
                        Sentence([], words))
    arcs.dropped = buildable(given, tree_class)
    if forbid:
        for _ in range(draw_int(0, n)):
            h, d = draw_int(0, n), draw_int(1, n)
            if h != d and heads[d] != h and given[d] == FREE:
                arcs.forbidden.add((h, d))
    return arcs


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", GUIDED)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], phases=NO_SHRINK)
@given(data=st.data())
def test_partial_gold_costs_are_the_brute_force_loss(name, single_root, data):
    system = get_system(name, single_root=single_root)
    n = data.draw(st.integers(1, MAX_WORDS.get(name, 7)), label="n")
    arcs = random_given(draw_ints(data), n, single_root, system.tree_class)
    heads = arcs.kept_heads()
    costs = system.given_arc_costs(heads)
    brute = PartialBruteForce(system, heads, [-1] * len(heads))
    state = random_configuration(system, n, data)
    if system.is_terminal(state):
        return
    here = brute.loss(state)
    per_move = costs(state)
    for move, ok in enumerate(system.legal(state)):
        if ok:
            expected = brute.loss(brute.after(state, move, 1)) - here
            if system.dynamic_oracle:  # exact costs
                assert per_move[move] == expected, (f"{name}: {system.moves[move]} costs {per_move[move]}, brute "
                                                    f"force {expected}; given {heads}, state {key(state)}")
            elif here == 0:  # a rule of the system's own: zero exactly when nothing is lost
                assert (per_move[move] == 0) == (expected == 0), (
                    f"{name}: {system.moves[move]} costs {per_move[move]}, brute force {expected}; given {heads}, "
                    f"state {key(state)}")


def guided_parse(system, arcs: SentenceArcs, rng: random.Random) -> tuple[list[int], list[int]]:
    """Random allowed actions from the initial configuration to the end (a model's scores are
    arbitrary), then the system's finalize."""
    moves = len(system.moves)
    classes = np.array([(m, label) for m in range(moves) for label in (range(4) if system.labeled[m] else [-1])])
    guide = TransitionGuide(system, arcs)
    state = system.initial(arcs.n)
    while not system.is_terminal(state):
        allowed = guide.allowed(state, system.legal(state), classes[:, 0], classes[:, 1])
        move, label = classes[rng.choice(np.flatnonzero(allowed).tolist())]
        system.apply(state, int(move), int(label))
    system.finalize(state, 0)
    return state.heads, labels_kept(state.labels, arcs)  # as the parsers do: finalize's root arcs too


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", GUIDED)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_guided_parses_keep_every_buildable_given_arc(name, single_root, data, seed):
    system = get_system(name, single_root=single_root)
    arcs = random_given(draw_ints(data), data.draw(st.integers(1, 14), label="n"), single_root,
                        system.tree_class, forbid=True)
    heads, labels = guided_parse(system, arcs, random.Random(seed))
    assert check_tree(heads, single_root) is None
    for d, h in enumerate(arcs.kept_heads()):
        if d and h != FREE:
            assert heads[d] == h, f"{name}: given {h} → {d} lost; given {arcs.heads}, built {heads}"
            assert arcs.labels[d] in (-1, labels[d]), f"{name}: the label of {d} is {labels[d]}, given {arcs.labels[d]}"


def projective_trees(n: int) -> list[list[int]]:
    """Every projective tree over n words (brute force over all head lists)."""
    return [[-1, *heads] for heads in itertools.product(range(n + 1), repeat=n)
            if check_tree([-1, *heads]) is None and is_projective([-1, *heads])]


PROJECTIVE_TREES = {n: projective_trees(n) for n in range(1, 6)}


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_buildable_keeps_arcs_of_one_projective_tree_and_drops_none_needlessly(data):
    draw = draw_ints(data)
    n = data.draw(st.integers(1, 5))
    heads = any_tree(draw, n, False)
    given = [FREE] + [h if draw(0, 3) else FREE for h in heads[1:]]
    dropped = buildable(given, "projective")

    def fits(arcs: list[int]) -> bool:
        return any(all(h == FREE or tree[d] == h for d, h in enumerate(arcs)) for tree in PROJECTIVE_TREES[n])

    kept = [FREE if d in dropped else h for d, h in enumerate(given)]
    assert fits(kept), f"kept {kept} of {given}: in no projective tree"
    assert not dropped or not fits(given), f"dropped {dropped} of {given}, which fits a projective tree"
    assert buildable(given, "any") == []


@pytest.mark.parametrize("decoder", ["eisner", "mst", "eisner+npa"])
@settings(max_examples=80, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_graph_decoders_keep_the_given_arcs(decoder, data, seed):
    single_root = data.draw(st.booleans())
    options = DecoderOptions(decoder=decoder, single_root=single_root)
    arcs = random_given(draw_ints(data), data.draw(st.integers(1, 5)), single_root,
                        "any" if decoder == "mst" else "projective", forbid=True)
    scores = np.random.default_rng(seed).normal(size=(arcs.n + 1, arcs.n + 1))
    heads, _ = decode(options, constrained_scores(scores, arcs))
    heads = [int(h) for h in heads]
    assert check_tree(heads, single_root) is None
    for d, h in enumerate(arcs.kept_heads()):
        assert h == FREE or heads[d] == h, f"{decoder}: given {h} → {d}, decoded {heads}"
    trees = [[-1, *tree] for tree in itertools.product(range(arcs.n + 1), repeat=arcs.n)
             if check_tree([-1, *tree], single_root) is None and (decoder == "mst" or is_projective([-1, *tree]))]
    avoidable = any(all(h == FREE or tree[d] == h for d, h in enumerate(arcs.kept_heads()))
                    and not {(tree[d], d) for d in range(1, arcs.n + 1)} & arcs.forbidden for tree in trees)
    if avoidable and decoder != "eisner+npa":  # the approximation starts from Eisner's tree, then moves arcs
        assert not {(heads[d], d) for d in range(1, arcs.n + 1)} & arcs.forbidden, f"{decoder}: {heads}"


@settings(max_examples=80, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_mst_avoiding_crossing_arcs_finds_the_brute_force_best_tree(data, seed):
    """Chu-Liu-Edmonds on the constrained scores with ``avoid_crossing``: among the trees with every
    kept given arc, one with the fewest forbidden arcs, then the fewest arcs crossing a given one
    (root arcs aside), then the best score — checked against every tree."""
    single_root = data.draw(st.booleans())
    arcs = random_given(draw_ints(data), data.draw(st.integers(1, 5)), single_root, "any", forbid=True)
    scores = np.random.default_rng(seed).normal(size=(arcs.n + 1, arcs.n + 1))
    options = DecoderOptions(decoder="mst", single_root=single_root)
    heads, _ = decode(options, constrained_scores(scores, arcs, avoid_crossing=True))
    given_arcs = [(h, d) for d, h in enumerate(arcs.kept_heads()) if d and h != FREE and h != 0]

    def crosses(h: int, d: int) -> bool:
        low, high = min(h, d), max(h, d)
        return h != 0 and any(min(a, b) < low < max(a, b) < high or low < min(a, b) < high < max(a, b)
                              for a, b in given_arcs)

    def rank(tree) -> tuple[int, int, float]:
        arcs_of = [(tree[d], d) for d in range(1, arcs.n + 1)]
        return (sum(arc in arcs.forbidden for arc in arcs_of), sum(crosses(*arc) for arc in arcs_of),
                -sum(scores[h, d] for h, d in arcs_of))

    trees = [[-1, *tree] for tree in itertools.product(range(arcs.n + 1), repeat=arcs.n)
             if check_tree([-1, *tree], single_root) is None
             and all(h == FREE or tree[d - 1] == h for d, h in enumerate(arcs.kept_heads()) if d)]
    best = min(map(rank, trees))
    found = rank([int(h) for h in heads])
    assert found[:2] == best[:2] and found[2] == pytest.approx(best[2]), f"{heads}: {found}, best {best}"


def test_models_avoid_crossing_given_arcs_only_where_crossing_arcs_are_rare():
    from barley.tree import crossing_share

    assert crossing_share([[-1, 2, 0, 2]]) == 0.0
    assert crossing_share([[-1, 3, 4, 0, 3]]) == pytest.approx(2 / 3)  # 3 → 1 and 4 → 2 cross; 3 → 4 crosses none
    assert crossing_share([[-1, 3, 4, 0, 3], [-1, 0, 1, 1, 1]]) == pytest.approx(2 / 6)
    assert DecoderOptions(crossing_arcs=0.0039).avoids_crossing_given()
    assert not DecoderOptions(crossing_arcs=0.0595).avoids_crossing_given()
    assert not DecoderOptions().avoids_crossing_given()  # not measured: a model written before it was
    for damaged in (1.5, -0.5, "0.01"):
        with pytest.raises(Exception, match="share of crossing arcs"):
            DecoderOptions(crossing_arcs=damaged).check()


# --- reading the constraints --------------------------------------------------------------

LABELS = ["root", "nsubj", "obj", "punct"]


def sentence(rows: str) -> Sentence:
    words = [line.split() for line in rows.strip().splitlines()]
    return Sentence(["# sent_id = s1"], [[w[0], f"w{w[0]}", "_", "X", "_", "_", w[1], w[2], "_", "_"] for w in words],
                    line=10, source="in.conllu")


@pytest.mark.parametrize("rows, message", [
    ("1 2 _\n2 3 _\n3 1 _", "in.conllu:11: the given arcs form a cycle: 1 → 2 → 3 → 1"),
    ("1 0 root\n2 0 root\n3 _ _", "in.conllu:12: two given roots"),
    ("1 _ nsubj\n2 0 root", "in.conllu:11: word 1 has a DEPREL (nsubj) but no HEAD"),
    ("1 2 dobj\n2 0 root", "in.conllu:11: the model does not know the label 'dobj' of word 1"),
])
def test_bad_given_arcs_are_one_line_errors(rows, message):
    with pytest.raises(InputError) as error:
        ArcOptions().of(sentence(rows), LABELS)
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_the_forbid_file(tmp_path):
    from barley.constraints import ForbiddenArcs

    path = tmp_path / "forbid.txt"
    path.write_text("# forbidden\ns1 0 1\n\ns1 1 2  # a comment\n")
    arcs = ArcOptions(keep=False, forbid=ForbiddenArcs.read(str(path))).of(sentence("1 _ _\n2 _ _"), LABELS)
    assert arcs.forbidden == {(0, 1), (1, 2)}
    for text, message in [("s1 0\n", ":1: expected SENT_ID HEAD DEPENDENT"), ("s1 2 2\n", ":1: 2 → 2 is no arc")]:
        path.write_text(text)
        with pytest.raises(InputError, match=message):
            ForbiddenArcs.read(str(path))
    path.write_text("s1 0 1\ns2 0 1\n")
    options = ArcOptions(forbid=ForbiddenArcs.read(str(path)))
    options.of(sentence("1 _ _\n2 _ _"), LABELS)
    with pytest.raises(InputError, match=r"forbid.txt:2: no sentence with sent_id s2"):
        options.done()
    path.write_text("s1 2 1\n")
    with pytest.raises(InputError, match="both given and forbidden"):
        ArcOptions(forbid=ForbiddenArcs.read(str(path))).of(sentence("1 2 _\n2 0 _"), LABELS)


def test_write_tree_refuses_a_lost_given_arc():
    arcs = ArcOptions().of(sentence("1 2 nsubj\n2 0 root"), LABELS)
    target = sentence("1 _ _\n2 _ _")
    write_tree(target, [-1, 2, 0], ["", "nsubj", "root"], arcs=arcs)
    with pytest.raises(AssertionError, match="not kept"):
        write_tree(target, [-1, 0, 1], ["", "root", "nsubj"], arcs=arcs)


# --- every kind of parser, end to end ----------------------------------------------------

KINDS = ["arc-eager", "arc-hybrid", "arc-standard", "stack-projective", "covington-nonprojective", "covington-projective", "arc-eager+pseudo-projective", "graph-mst",
         "graph-eisner", "biaffine", "neural-transition", "joint"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_parser_keeps_the_given_arcs_of_other_trees(kind, tmp_path):
    """Given arcs taken from random projective trees (not what the model would say) are all kept,
    with their labels, every output is a tree, and the MST decoder avoids every forbidden arc."""
    from barley.conllu import read

    train_path, test_path = toy(tmp_path)
    pipeline = model(kind, train_path)
    labels = sorted({word[7] for sentence in read(str(train_path)) for word in sentence.words})
    rng = random.Random(3)
    sentences, wanted = [], []
    for sentence in read(str(test_path)):
        tree = projective_tree(rng.randint, len(sentence), True)
        given = {}
        for d, word in enumerate(sentence.words, 1):
            word[6] = word[7] = "_"
            if rng.random() < 0.5:
                given[d] = (tree[d], rng.choice(labels) if rng.random() < 0.5 else None)
                word[6], word[7] = str(tree[d]), given[d][1] or "_"
        sentences.append(sentence)
        wanted.append(given)
    parsed = list(pipeline.parse([s.copy() for s in sentences], arcs=ArcOptions()))
    for sentence, given in zip(parsed, wanted):
        heads = sentence.heads().tolist()
        assert check_tree(heads, True) is None, f"{kind}: {heads} is no tree"
        for d, (h, label) in given.items():
            assert heads[d] == h and label in (None, sentence.words[d - 1][7]), \
                f"{kind}: given {h} → {d} ({label}), parsed {heads[d]} ({sentence.words[d - 1][7]})"
    if kind == "graph-mst":  # forbid what the constrained parse chose for free words: any tree may replace it
        forbid = tmp_path / "forbid.txt"
        free = [(s.sent_id, s.heads().tolist()[d], d) for s, given in zip(parsed, wanted)
                for d in range(1, len(s) + 1) if d not in given][:20]
        forbid.write_text("".join(f"{i} {h} {d}\n" for i, h, d in free))
        from barley.constraints import ForbiddenArcs

        again = list(pipeline.parse([s.copy() for s in sentences],
                                    arcs=ArcOptions(forbid=ForbiddenArcs.read(str(forbid)))))
        by_id = {s.sent_id: s.heads().tolist() for s in again}
        assert all(by_id[i][d] != h for i, h, d in free)


def test_the_parse_command(tmp_path, capsys):
    from barley import cli
    from barley.kinds import train

    train_path, test_path = toy(tmp_path)
    model = tmp_path / "eager.barley"
    train(str(train_path), system="arc-eager", **QUIET).save(str(model))
    lines = test_path.read_text().splitlines()
    # the first sentence: keep word 1's gold arc, cross it with word 3 → 1 given on word 2... a crossing pair
    rows = [k for k, line in enumerate(lines) if line[:1].isdigit()]
    first = [k for k in rows if k < rows[0] + 5]
    for k in rows:
        columns = lines[k].split("\t")
        columns[6:8] = ["_", "_"]
        lines[k] = "\t".join(columns)
    given = tmp_path / "given.conllu"
    # word 1 → 3 and word 2 → 4: crossing arcs, which arc-eager cannot build together
    for k, head in zip(first[:2], ("3", "4")):
        columns = lines[k].split("\t")
        columns[6] = head
        lines[k] = "\t".join(columns)
    given.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.conllu"
    assert cli.main(["parse", "-m", str(model), str(given), "-o", str(out), "--keep-arcs", "-q"]) == 0
    assert "left to it" in capsys.readouterr().err
    heads = next(iter(__import__("barley").read(str(out)))).heads().tolist()
    assert heads[1] == 3 or heads[2] == 4
    for arguments, message in [(["--keep-arcs", "--strict-arcs"], "cannot keep the given arcs"),
                               (["--strict-arcs"], "--strict-arcs applies to the arcs that --keep-arcs keeps"),
                               (["--keep-arcs", "--input", "tokenized"], "--keep-arcs keeps the HEAD and DEPREL"),
                               (["--keep-arcs", "-j", "2"], "not yet with --jobs")]:
        assert cli.main(["parse", "-m", str(model), str(given), "-o", str(tmp_path / "x.conllu"), "-q",
                         *arguments]) == 2
        error = capsys.readouterr().err.strip()
        assert message in error and "\n" not in error, error
    swap = tmp_path / "swap.barley"
    train(str(train_path), system="swap-eager", **QUIET).save(str(swap))
    assert cli.main(["parse", "-m", str(swap), str(given), "-o", str(out), "--keep-arcs", "-q", "--force"]) == 2
    assert "the swap-eager system has no rule yet" in capsys.readouterr().err


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_enforce_puts_the_given_arcs_into_any_tree(data):
    """After an inverse transform the tree may have moved given words: :func:`enforce` puts every
    given arc back (crossing ones too) and still returns a tree, with a single root if asked."""
    from barley.constraints import enforce

    draw = draw_ints(data)
    n, single_root = data.draw(st.integers(1, 10)), data.draw(st.booleans())
    arcs = random_given(draw, n, single_root, "any")
    heads = any_tree(draw, n, single_root)
    deprels = [""] + ["x"] * n
    enforce(heads, deprels, arcs, single_root)
    assert check_tree(heads, single_root) is None, heads
    for d, h in enumerate(arcs.heads):
        assert h == FREE or (heads[d] == h and deprels[d] == (arcs.deprels[d] or "x"))


@pytest.mark.parametrize("system", ["arc-eager", "arc-hybrid"])
def test_the_compiled_loop_keeps_given_arcs_as_the_reference_path(system, tmp_path):
    """The compiled loop's costs against the given arcs are the reference's: the same trees."""
    from barley.conllu import read
    from barley.constraints import guides
    from barley.kinds import train
    from barley.transition.loop import ParseStats, parse_batch

    train_path, test_path = toy(tmp_path)
    parser = train(str(train_path), system=system, **QUIET)
    if parser.compiled is None:
        pytest.skip("the compiled loop is not built")
    rng = random.Random(5)
    sentences = list(read(str(test_path)))
    given = []
    for sentence in sentences:
        tree = projective_tree(rng.randint, len(sentence), True)
        for d, word in enumerate(sentence.words, 1):
            keep = rng.random() < 0.5
            word[6] = str(tree[d]) if keep else "_"
            word[7] = rng.choice(parser.labels) if keep and rng.random() < 0.5 else "_"
        given.append(ArcOptions().of(sentence, parser.labels))
    assert parser.compiled.keeps(given)
    compiled = parser.compiled.parse_batch(sentences, ParseStats(), given=given)
    reference = parse_batch(parser, sentences, ParseStats(), guides(parser.system, given))
    assert compiled == reference
    for (heads, labels), arcs in zip(compiled, given):
        for d, h in enumerate(arcs.kept_heads()):
            assert h == FREE or (heads[d] == h and arcs.labels[d] in (-1, labels[d]))


def test_behind_a_transform_even_crossing_given_arcs_are_kept(tmp_path):
    """Behind pseudo-projective parsing the given arcs are enforced after the inverse transform,
    so a projective system keeps crossing ones too, and says nothing about leaving them."""
    from barley.conllu import read
    from barley.kinds import train
    from barley.pipeline import Pipeline
    from barley.transforms.pseudo_projective import PseudoProjective

    train_path, test_path = toy(tmp_path)
    pipeline = Pipeline.of(train(str(train_path), system="arc-eager", transforms=[PseudoProjective()], **QUIET))
    rng = random.Random(11)
    sentences, wanted = [], []
    for sentence in read(str(test_path)):
        tree = any_tree(rng.randint, len(sentence), True)
        given = {d: tree[d] for d in range(1, len(sentence) + 1) if rng.random() < 0.6}
        for d, word in enumerate(sentence.words, 1):
            word[6], word[7] = (str(given[d]), "_") if d in given else ("_", "_")
        sentences.append(sentence)
        wanted.append(given)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is left to the parser
        parsed = list(pipeline.parse(sentences, arcs=ArcOptions()))
    for sentence, given in zip(parsed, wanted):
        heads = sentence.heads().tolist()
        assert check_tree(heads, True) is None and all(heads[d] == h for d, h in given.items()), (heads, given)
