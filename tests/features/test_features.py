"""The feature language, the shipped default models, and the compiled extractor."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from barley.conllu import read_lines
from barley.errors import BarleyError, InputError
from barley.features import default_model, default_names, load_model, parse_model, rich_model, shipped_names
from barley.features.extract import Extractor, FeatureIndex, TokenTable, resolve
from barley.features.vocabulary import build_vocabularies
from barley.features.model import Address, parse_feature
from barley.systems import REGISTRY, get_system


def test_barley_and_maltparser_spellings_mean_the_same_feature():
    ours = parse_feature("XPOS(Stack[1]) & XPOS(Stack[0]) & XPOS(Input[0])")
    malt = parse_feature("Merge3(InputColumn(POSTAG, Stack[1]), InputColumn(POSTAG, Stack[0]), "
                         "InputColumn(POSTAG, Lookahead[0]))")
    assert ours == malt
    assert parse_feature("OutputColumn(DEPREL, ldep(Stack[0]))") == parse_feature("DEPREL(ld(σ[0]))")
    assert parse_feature("CPOSTAG(Left[0])").atoms[0].addresses[0] == Address("Lambda1", 0)
    assert str(parse_feature("FORM(head(Stack[0]))")) == "FORM(head(Stack[0]))"


def test_maltparser_xml_lines_and_comments_are_read():
    text = ("<featuremodels>\n <featuremodel name='x'>\n  <feature>InputColumn(FORM, Input[0])</feature>\n"
            "  <feature>Merge(InputColumn(POSTAG, Stack[0]), OutputColumn(DEPREL, Stack[0]))</feature>\n"
            " </featuremodel>\n</featuremodels>\n# a comment\nLDEPS(Stack[0])  # trailing comment\n")
    model = parse_model(text)
    assert [str(f) for f in model.features] == ["FORM(Input[0])", "XPOS(Stack[0]) & DEPREL(Stack[0])",
                                                "LDEPS(Stack[0])"]


@pytest.mark.parametrize("line, reason", [
    ("XPOS(Stack[0]", "expected )"),
    ("XPOZ(Stack[0])", "unknown attribute"),
    ("XPOS(Queue[0])", "unknown address"),
    ("XPOS(Stack[x])", "must be an integer"),
    ("XPOS(Stack[0]) & UPOS(Stack[0]) & FORM(Stack[0]) & LEMMA(Stack[0])", "at most 3"),
    ("FEATS(Stack[0]) & FEATS(Input[0])", "at most one FEATS"),
    ("XPOS(Stack[0]) UPOS(Input[0])", "join atoms with &"),
    ("Merge(XPOS(Stack[0]))", "Merge takes 2"),
])
def test_bad_feature_lines_are_reported_with_file_and_line(line, reason):
    with pytest.raises(InputError) as caught:
        parse_model(f"XPOS(Input[0])\n\n{line}\n", "my.features")
    message = str(caught.value)
    assert message.startswith("my.features:3: ") and reason in message


def test_a_duplicate_or_empty_model_is_an_error():
    with pytest.raises(InputError, match="listed twice"):
        parse_model("XPOS(Input[0])\nPOSTAG(Input[0])\n")
    with pytest.raises(InputError, match="no feature"):
        parse_model("# nothing\n")


def test_every_registered_system_ships_a_default_model():
    missing = set(REGISTRY) - set(default_names())
    assert not missing, f"systems without a default feature model: {missing}"


@pytest.mark.parametrize("name", default_names())
def test_every_address_of_a_shipped_model_resolves_for_its_system(name):
    if name not in REGISTRY:
        pytest.skip(f"defaults/{name}.txt: system {name} is not registered (yet)")
    Extractor(default_model(name), get_system(name))  # raises if an address base does not exist


@pytest.mark.parametrize("name", shipped_names("rich"))
def test_every_address_of_a_rich_model_resolves_for_its_system(name):
    Extractor(rich_model(name), get_system(name))


def test_features_rich_is_the_systems_rich_model_and_refused_where_there_is_none(tmp_path, monkeypatch):
    assert "arc-eager" in shipped_names("rich")
    rich = load_model("rich", "arc-eager")
    assert rich.text == rich_model("arc-eager").text and len(rich.features) > len(default_model("arc-eager").features)
    with pytest.raises(BarleyError, match="no rich feature model for 'covington-nonprojective'") as error:
        load_model("rich", "covington-nonprojective")
    assert "arc-eager" in error.value.fix
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rich").write_text("XPOS(Input[0])\n")
    with pytest.raises(BarleyError, match="names both a file here"):
        load_model("rich", "arc-eager")
    assert len(load_model("./rich", "arc-eager").features) == 1


def test_an_address_the_system_lacks_is_refused_by_name():
    model = parse_model("XPOS(Lambda1[0])\n", "cov.features")
    with pytest.raises(BarleyError, match="arc-eager configurations have no Lambda1"):
        Extractor(model, get_system("arc-eager"))


def test_a_stack_address_is_refused_for_covington_with_file_and_line():
    """Covington's configurations carry an (always empty) ``stack`` from the base State:
    the declared addresses, not the attributes, decide, so XPOS(Stack[0]) is no silent dead feature."""
    model = parse_model("# list-based\nFORM(Input[0])\nUPOS(Lambda1[0]) & XPOS(Stack[0])\n", "cov.features")
    with pytest.raises(InputError, match="covington-nonprojective configurations have no Stack") as caught:
        Extractor(model, get_system("covington-nonprojective"))
    assert caught.value.path == "cov.features" and caught.value.line == 3


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_declared_address_is_a_list_of_the_systems_configurations(name):
    from barley.features.extract import LISTS

    system = get_system(name)
    state = system.initial(3)
    for base in system.addresses:
        assert isinstance(getattr(state, LISTS[base][0]), Sequence), f"{name} declares {base}"


def _random_tree(rng: random.Random, n: int) -> list[int]:
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [-1] * (n + 1)
    placed = [0]
    for node in order:
        heads[node] = rng.choice(placed) if len(placed) > 1 else 0
        placed.append(node)
    return heads


EVERY_ADDRESS = "\n".join([
    "FORM(Stack[0]) & XPOS(Stack[1]) & UPOS(Stack[-1])",
    "FEATS(Input[0]) & DEPREL(ldep(Input[0]))",
    "LEMMA(Input[-1])",
    "XPOS(head(head(Stack[0])))",
    "DEPREL(lsib(rdep(Stack[0]))) & DEPREL(rsib(ldep(Stack[0])))",
    "UPOS(pred(Input[0])) & UPOS(succ(Stack[0]))",
    "LDEPS(Stack[0]) & RDEPS(Stack[0]) & RDEPS(head(Input[1]))",
    "DIST(Stack[0], Input[0])",
    "DIST(Input[2], Stack[1])",
])


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 14), st.integers(0, 2**32 - 1))
def test_the_compiled_extractor_agrees_with_the_interpreter(n, seed):
    """Random legal walks of every registered system: generated code == reference interpreter."""
    rng = random.Random(seed)
    for name in sorted(set(REGISTRY) & set(default_names())):
        system = get_system(name)
        model = parse_model(EVERY_ADDRESS if name == "arc-eager" else default_model(name).text)
        extractor = Extractor(model, system)
        state = system.initial(n)
        while not system.is_terminal(state):
            assert extractor.row(state) == extractor.reference_row(state)
            legal = [m for m, ok in enumerate(system.legal(state)) if ok]
            system.apply(state, rng.choice(legal), rng.randrange(3))
        assert extractor.row(state) == extractor.reference_row(state)


def test_resolve_follows_heads_dependents_and_siblings():
    system = get_system("arc-eager")
    state = system.initial(5)
    # 1 ← 3 → 2 ... build: 0 → 3, 3 → 1, 3 → 2 with arc-eager moves
    for move, label in [(3, -1), (3, -1), (0, 0), (0, 1), (1, 2)]:  # SH SH LA LA RA
        system.apply(state, move, label)
    assert state.heads[1:4] == [3, 3, 0]
    s0 = Address("Stack", 0)
    assert resolve(s0, state) == 3
    assert resolve(Address("Stack", 0, ("ldep",)), state) == 1
    assert resolve(Address("Stack", 0, ("rdep",)), state) == 2
    assert resolve(Address("Stack", 0, ("ldep", "rsib")), state) == 2
    assert resolve(Address("Stack", 0, ("rdep", "lsib")), state) == 1
    assert resolve(Address("Stack", 0, ("head",)), state) == 0
    assert resolve(Address("Stack", 0, ("head", "head")), state) == -1
    assert resolve(Address("Input", 1), state) == 5
    assert resolve(Address("Input", 2), state) == -1


CONLLU = """\
1\tDogs\tdog\tNOUN\tNNS\tNumber=Plur\t2\tnsubj\t_\t_
2\tbark\tbark\tVERB\tVBP\tMood=Ind|Tense=Pres\t0\troot\t_\t_
3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_
"""


def test_keys_of_conjunctions_and_feats_atoms():
    sentences = list(read_lines(CONLLU.splitlines()))
    model = parse_model("UPOS(Stack[0]) & UPOS(Input[0])\nFEATS(Input[0])\nFORM(Input[5])\n")
    system = get_system("arc-eager")
    extractor = Extractor(model, system)
    vocabularies = build_vocabularies(sentences, ["UPOS", "FEATS", "FORM"])
    table = TokenTable.build(sentences, vocabularies)
    state = system.initial(3)
    system.apply(state, 3, -1)  # SHIFT: Stack[0] = 1 (NOUN), Input[0] = 2 (VERB)
    sizes = extractor.atom_sizes(vocabularies, 3)
    keys = extractor.keys(np.array([extractor.row(state)]), table.offsets[:1], table, sizes)
    # one slot for the pair, one per FEATS atom of "bark" (2 atoms, padded to the widest), one for FORM
    assert keys.shape == (1, 1 + table.feats.shape[1] + 1)
    assert keys[0, 0] >= 0 and keys[0, 1] >= 0 and keys[0, 2] >= 0
    assert (keys[0, 3:-1] == -1).all()
    index = FeatureIndex.fit(keys)
    ids = index.ids(keys)
    assert sorted(ids[0][keys[0] >= 0]) == list(range(index.size))
    assert (ids[0][keys[0] < 0] == index.size).all()
    # another configuration: a key unseen in "training" maps to the zero row
    system.apply(state, 3, -1)
    other = index.ids(extractor.keys(np.array([extractor.row(state)]), table.offsets[:1], table, sizes))
    assert other[0, 0] == index.size


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 500), min_size=1, max_size=60), st.integers(0, 2**32 - 1))
def test_direct_tables_find_the_same_ids_as_binary_search(seen, seed):
    rng = np.random.default_rng(seed)
    templates, spaces = 4, [7, 3, 40, 10**9]  # the last template is too big for a table
    keys = np.array([(value % spaces[t]) * templates + t for t, value in
                     zip(rng.integers(0, templates, len(seen)), seen)], dtype=np.int64)
    index = FeatureIndex.fit(keys)
    slot_templates = np.array([0, 1, 2, 3, 2])
    queries = np.array([[(int(v) % spaces[t]) * templates + t if v >= 0 else -1
                         for t, v in zip(slot_templates, row)]
                        for row in rng.integers(-1, 500, size=(30, len(slot_templates)))], dtype=np.int64)
    expected = index.ids(queries)
    index.use_tables(templates, spaces)
    assert np.array_equal(index.ids(queries, slot_templates), expected)


def test_the_feature_index_counts_keys_over_chunks_and_keeps_the_frequent_ones():
    keys = np.array([[5, 9, -1], [5, 12, 9], [5, -1, -1], [7, 9, 12]], dtype=np.int64)
    assert FeatureIndex.fit(keys).keys.tolist() == [5, 7, 9, 12]
    chunked = FeatureIndex.fit([keys[:1], keys[1:3], keys[3:]], min_count=2)
    assert chunked.keys.tolist() == [5, 9, 12]  # 5 thrice, 9 thrice, 12 twice, 7 once
    assert chunked.ids(keys[3:]).tolist() == [[chunked.size, 1, 2]]  # the dropped key maps to the zero row


def test_the_features_command_prints_the_rich_model_and_refuses_it_where_there_is_none(capsys, tmp_path):
    from barley import cli
    assert cli.main(["features", "-a", "arc-eager", "--rich"]) == 0
    assert capsys.readouterr().out == rich_model("arc-eager").text
    assert cli.main(["features", "-a", "arc-hybrid", "--rich"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "no rich feature model for 'arc-hybrid'" in err
    (tmp_path / "f.txt").write_text("XPOS(Input[0])\n")
    assert cli.main(["features", "--check", str(tmp_path / "f.txt"), "--rich"]) == 2
    assert "exclude each other" in capsys.readouterr().err
