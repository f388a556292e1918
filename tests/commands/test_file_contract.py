"""The command line's file contract: what every command does with the files it writes and reads.

Outputs: a folder, a read-only file or one of the command's own inputs is refused in one
line before any work; a replaced file keeps its mode; a symbolic link is written through.
Inputs: a model without the component a command runs, UTF-16 and UTF-32 text, NUL bytes,
a line that never ends and a feature file that is not UTF-8 are one-line errors, with
memory bounded.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from barley import atomic, conllu
from barley.cli import main
from barley.errors import BarleyError, InputError
from barley.kinds import train
from barley.pipeline import Pipeline
from fixed_grammar import toy_treebank

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

BARLEY = [sys.executable, "-m", "barley"]
TEXT = "The dog barks.\n\nA cat sleeps here.\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A toy treebank, a parser, a tokenizer alone and a tagger alone; a text; an empty folder."""
    folder = tmp_path_factory.mktemp("contract")
    toy_treebank(folder / "train.conllu", 120, seed=1)
    toy_treebank(folder / "test.conllu", 10, seed=2)
    quiet = lambda message: None  # noqa: E731
    train(str(folder / "train.conllu"), system="arc-eager", log=quiet).save(str(folder / "parser.barley"))
    for name in ("tokenize", "tag"):
        Pipeline.train(str(folder / "train.conllu"), [name], log=quiet).save(str(folder / f"{name}.barley"))
    (folder / "text.txt").write_text(TEXT, encoding="utf-8")
    (folder / "folder").mkdir()
    return folder


def _run(capsys, *argv) -> tuple[int, str]:
    status = main([str(arg) for arg in argv])
    return status, capsys.readouterr().err


def _writers(f, output) -> dict[str, list]:
    """Every command that writes a file, writing ``output``."""
    test = f / "test.conllu"
    return {
        "parse": ["parse", "-m", f / "parser.barley", test, "-o", output],
        "parse --jobs 2": ["parse", "-j", "2", "-m", f / "parser.barley", test, "-o", output],
        "tag": ["tag", "-m", f / "tag.barley", test, "-o", output],
        "tokenize": ["tokenize", "-m", f / "tokenize.barley", f / "text.txt", "-o", output],
        "train": ["train", "--train", f / "train.conllu", "-m", output],
        "train --components": ["train", "--train", f / "train.conllu", "--components", "tag", "-m", output],
        "convert": ["convert", test, output],
        "transform": ["transform", test, output, "--pseudo-projective", "head"],
        "show": ["show", test, "-s", "1", "-o", output],
        "evaluate --errors-page": ["evaluate", test, test, "--show-errors", "1", "--errors-page", output],
        "oracle --show": ["oracle", test, "--show", "--sentence", "1", "-o", output],
        "oracle --plot": ["oracle", test, "--plot", output],
    }


WRITERS = list(_writers(Path(), None))


@pytest.mark.parametrize("writer", WRITERS)
def test_an_output_that_is_a_folder_is_refused_in_one_line_before_any_work(files, capsys, writer):
    folder = files / "folder"
    argv = _writers(files, folder)[writer]
    status, err = _run(capsys, *argv)
    assert status == 2
    assert err == f"barley {argv[0]}: error: {folder}: this is a folder, not a file (give a file name, e.g. " \
                  f"{folder / 'out'})\n"  # the only line: no training log, nothing parsed
    assert os.listdir(folder) == []


def test_the_writer_itself_refuses_a_folder(files):
    with pytest.raises(BarleyError, match="this is a folder, not a file"):
        conllu.write(conllu.read(files / "test.conllu"), files / "folder")


def test_an_output_folder_that_is_a_file_is_refused(files, capsys):
    a_file = files / "test.conllu"
    status, err = _run(capsys, "parse", "-m", files / "parser.barley", "--scheduler", "local:1", a_file,
                       "--out-dir", a_file)
    assert status == 2 and err == (f"barley parse: error: {a_file}: this is a file, not a folder (give a folder for "
                                   "the outputs; a missing one is made)\n")
    spec = files / "spec.toml"
    spec.write_text('name = "tiny"\n[[treebanks]]\nname = "t"\ntrain = "train.conllu"\ntest = "test.conllu"\n'
                    '[[parsers]]\nname = "P"\nsystem = "arc-eager"\n', encoding="utf-8")
    status, err = _run(capsys, "experiment", spec, "--out", a_file)
    assert status == 2 and err.startswith(f"barley experiment: error: {a_file}: this is a file, not a folder")


@pytest.mark.parametrize("writer", WRITERS)
def test_an_output_that_is_an_input_is_refused_without_force(files, tmp_path, capsys, writer):
    """The output named as one of the command's inputs (the same name, a symbolic or a hard link)."""
    argv = _writers(files, "OUT")[writer]
    output = argv.index("OUT")
    inputs = [i for i, arg in enumerate(argv) if i != output and os.path.isfile(str(arg))]
    for index in inputs:
        for how in ("same", "symlink", "hardlink"):
            copied = tmp_path / f"{how}-{os.path.basename(argv[index])}"
            copied.write_bytes(open(argv[index], "rb").read())
            alias = copied if how == "same" else tmp_path / f"alias-{how}"
            if how == "symlink":
                alias.symlink_to(copied)
            elif how == "hardlink":
                os.link(copied, alias)
            run = [copied if i == index else alias if i == output else arg for i, arg in enumerate(argv)]
            before = copied.read_bytes()
            status, err = _run(capsys, *run)
            named = "" if how == "same" else f" {copied}"
            assert status == 2, err
            assert err == (f"barley {argv[0]}: error: {alias}: the output is the input file{named}: writing it would "
                           "replace what it holds (write to another file, or add --force to replace it)\n")
            assert copied.read_bytes() == before
            for path in (copied, alias):
                path.unlink(missing_ok=True)


def test_force_parses_a_file_in_place(files, tmp_path, capsys):
    treebank = tmp_path / "gold.conllu"
    treebank.write_bytes((files / "test.conllu").read_bytes())
    assert _run(capsys, "parse", "-q", "-m", files / "parser.barley", files / "test.conllu", "-o",
                tmp_path / "parsed.conllu")[0] == 0
    assert _run(capsys, "parse", "-q", "-m", files / "parser.barley", treebank, "-o", treebank, "--force") == (0, "")
    assert treebank.read_bytes() == (tmp_path / "parsed.conllu").read_bytes()


def test_replacing_an_output_keeps_its_mode_and_a_symlink_is_written_through(files, tmp_path, capsys):
    expected = (files / "test.conllu").read_bytes()
    private = tmp_path / "private.conllu"
    private.write_bytes(b"old\n")
    private.chmod(0o600)
    assert _run(capsys, "convert", files / "test.conllu", private)[0] == 0
    assert private.read_bytes() == expected and stat.S_IMODE(private.stat().st_mode) == 0o600
    target, link = tmp_path / "target.conllu", tmp_path / "link.conllu"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    link.symlink_to(target.name)  # relative, as ln -s writes it
    assert _run(capsys, "convert", files / "test.conllu", link)[0] == 0
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_bytes() == expected and stat.S_IMODE(target.stat().st_mode) == 0o640
    dangling = tmp_path / "dangling.conllu"
    dangling.symlink_to(tmp_path / "made.conllu")
    assert _run(capsys, "convert", files / "test.conllu", dangling)[0] == 0
    assert dangling.is_symlink() and (tmp_path / "made.conllu").read_bytes() == expected
    assert sorted(name for name in os.listdir(tmp_path) if name.startswith(".barley-")) == []


@pytest.mark.parametrize("output", ["/proc/self/x.conllu", "/proc/self/fd/999/x.conllu"])
def test_a_path_under_proc_that_names_no_open_file_is_refused_in_one_line(files, output):
    done = subprocess.run(BARLEY + ["convert", str(files / "test.conllu"), output], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and f"{output}: no such file to write to" in done.stderr, done.stderr


def test_a_descriptor_is_written_in_place_as_by_a_shell(files, tmp_path):
    """/dev/stdout is the open descriptor, a pipe or a file opened with >>: never replaced, as it was before."""
    expected = (files / "test.conllu").read_bytes()
    links = {path: os.readlink(path) for path in ("/dev/stdout", "/dev/fd") if os.path.islink(path)}
    for output in ("/dev/stdout", "/dev/fd/1"):
        piped = subprocess.run(BARLEY + ["convert", str(files / "test.conllu"), output], capture_output=True)
        assert (piped.returncode, piped.stdout) == (0, expected), piped.stderr
        log = tmp_path / "log.txt"
        log.write_bytes(b"kept\n")
        with open(log, "ab") as appending:
            assert subprocess.run(BARLEY + ["convert", str(files / "test.conllu"), output], stdout=appending,
                                  stderr=subprocess.DEVNULL).returncode == 0
        assert log.read_bytes() == b"kept\n" + expected
    assert links == {path: os.readlink(path) for path in links}


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_replacing_an_output_keeps_its_owner(files, tmp_path, capsys):
    other = tmp_path / "other.conllu"
    other.write_bytes(b"old\n")
    os.chown(other, 65534, 65534)
    assert _run(capsys, "convert", files / "test.conllu", other)[0] == 0
    assert (other.stat().st_uid, other.stat().st_gid) == (65534, 65534)


@pytest.mark.parametrize("mode", [0o444, 0o400, 0o000])
def test_a_file_without_write_permission_is_refused_even_for_root(files, tmp_path, capsys, mode):
    read_only = tmp_path / "read-only.conllu"
    read_only.write_bytes(b"keep me\n")
    read_only.chmod(mode)
    for argv in (["convert", files / "test.conllu", read_only],
                 ["train", "--train", files / "train.conllu", "-m", read_only]):
        status, err = _run(capsys, *argv)
        assert status == 2
        assert err == (f"barley {argv[0]}: error: {read_only}: the file is read-only (mode "
                       f"{stat.filemode(stat.S_IFREG | mode)}) (write to another file, or make it writable first: "
                       "chmod u+w FILE)\n")
    with pytest.raises(BarleyError, match="read-only"), atomic.atomic_output(read_only) as handle:
        handle.write(b"new\n")
    read_only.chmod(0o600)
    assert read_only.read_bytes() == b"keep me\n"


# --- a model without the component the command runs ----------------------------------------

@pytest.mark.parametrize("jobs", ["1", "2"])
def test_parse_refuses_a_model_without_a_parser_and_names_the_command_that_runs_it(files, capsys, jobs):
    test = files / "test.conllu"
    for model, can in (("tokenize", "it tokenizes text: run it with `barley tokenize"),
                       ("tag", "it tags words with UPOS, XPOS, FEATS and LEMMA: run it with `barley tag")):
        path = files / f"{model}.barley"
        status, err = _run(capsys, "parse", "-j", jobs, "-m", path, test, "-o", files / "out.conllu")
        assert status == 2
        assert err == (f"barley parse: error: {path}: the model has no parser (its components: {model}) "
                       f"({can} -m {path}`)\n")
    assert not (files / "out.conllu").exists()


def test_tag_refuses_a_model_without_a_tagger(files, capsys):
    path = files / "parser.barley"
    assert _run(capsys, "tag", "-m", path, files / "test.conllu") == (
        2, f"barley tag: error: {path}: the model has no tagger (its components: parse) "
           f"(it parses: run it with `barley parse -m {path}`)\n")


def test_tag_predicts_every_tag_and_keeps_the_tree(files, tmp_path, capsys):
    untagged = tmp_path / "untagged.conllu"
    gold = list(conllu.read(files / "test.conllu"))
    for sentence in gold:
        for word in sentence.words:
            word[conllu.UPOS] = word[conllu.XPOS] = "X"  # wrong tags in the input: predicted again
    conllu.write(gold, untagged)
    outputs = []
    for jobs in ("1", "2"):
        output = tmp_path / f"tagged-{jobs}.conllu"
        status, err = _run(capsys, "tag", "-j", jobs, "-m", files / "tag.barley", untagged, "-o", output)
        assert status == 0, err
        outputs.append(output.read_bytes())
    assert outputs[0] == outputs[1]
    tagged = list(conllu.read(tmp_path / "tagged-1.conllu"))
    reference = list(conllu.read(files / "test.conllu"))
    assert [s.column(conllu.UPOS) for s in tagged] == [s.column(conllu.UPOS) for s in reference]  # the toy's tags
    assert [s.heads().tolist() for s in tagged] == [s.heads().tolist() for s in reference]
    assert [s.deprels() for s in tagged] == [s.deprels() for s in reference]


# --- what is read ---------------------------------------------------------------------------

def test_a_feature_file_that_is_not_utf8_is_one_line(files, tmp_path, capsys):
    features = tmp_path / "features.txt"
    features.write_bytes(b"FORM(Input[0])\n# caf\xe9\n")
    expected = (f"{features}:2: invalid UTF-8: byte(s) e9 (invalid continuation byte) "
                "(re-encode the file as UTF-8, e.g. with iconv -f LATIN1 -t UTF-8)\n")
    assert _run(capsys, "features", "--check", features) == (2, f"barley features: error: {expected}")
    assert _run(capsys, "train", "--train", files / "train.conllu", "-F", features, "-m", tmp_path / "m.barley") == (
        2, f"barley train: error: {expected}")
    features.write_bytes("FORM(Input[0])\n".encode("utf-16"))
    status, err = _run(capsys, "features", "--check", features)
    assert status == 2 and "iconv -f UTF-16 -t UTF-8" in err


NO_MARK = "without a byte-order mark (a NUL byte beside every ASCII character)"
ENCODINGS = [("utf-16", "the file is UTF-16 (it starts with a UTF-16 byte-order mark)", "UTF-16"),
             ("utf-32", "the file is UTF-32 (it starts with a UTF-32 byte-order mark)", "UTF-32"),
             ("utf-16-le", f"the file looks like UTF-16LE {NO_MARK}", "UTF-16LE"),
             ("utf-16-be", f"the file looks like UTF-16BE {NO_MARK}", "UTF-16BE"),
             ("utf-32-le", f"the file looks like UTF-32LE {NO_MARK}", "UTF-32LE"),
             ("utf-32-be", f"the file looks like UTF-32BE {NO_MARK}", "UTF-32BE")]


@pytest.mark.parametrize("encoding, what, iconv", ENCODINGS)
def test_utf16_and_utf32_input_is_named_with_the_iconv_that_converts_it(files, tmp_path, capsys, encoding, what,
                                                                        iconv):
    treebank, text = tmp_path / "treebank.conllu", tmp_path / "text.txt"
    treebank.write_bytes((files / "test.conllu").read_text(encoding="utf-8").encode(encoding))
    text.write_bytes(TEXT.encode(encoding))
    ending = f"{what}; barley reads UTF-8 (convert it first: iconv -f {iconv} -t UTF-8 FILE > NEW)\n"
    for argv in (["validate", treebank], ["parse", "-m", files / "parser.barley", treebank],
                 ["parse", "-j", "2", "-m", files / "parser.barley", treebank, "-o", tmp_path / "out.conllu"],
                 ["parse", "-m", files / "parser.barley", "--input", "conllu", treebank],
                 ["tokenize", "-m", files / "tokenize.barley", text], ["convert", treebank, "-"]):
        status, err = _run(capsys, *argv)
        source = treebank if argv[0] != "tokenize" else text
        assert (status, err) == (2, f"barley {argv[0]}: error: {source}: {ending}")
    assert not (tmp_path / "out.conllu").exists()
    with pytest.raises(InputError, match=f"iconv -f {iconv} "):  # bytes in memory (the service's)
        list(conllu.read_bytes(treebank.read_bytes(), "request"))


def test_nul_bytes_are_not_text_but_a_stray_one_is_read(files, tmp_path, capsys):
    zeros = tmp_path / "zeros.conllu"
    zeros.write_bytes(bytes(10000))
    assert _run(capsys, "validate", zeros) == (
        2, f"barley validate: error: {zeros}: 4096 NUL bytes in the first 4096: not a text file (give a UTF-8 text "
           "file; convert UTF-16 or UTF-32 text first, e.g. iconv -f UTF-16 -t UTF-8)\n")
    one = tmp_path / "one-nul.conllu"
    one.write_bytes((files / "test.conllu").read_bytes().replace(b"\t_\t", b"\t\0\t", 1))
    assert [len(s) for s in conllu.read(one)] == [len(s) for s in conllu.read(files / "test.conllu")]
    utf8 = tmp_path / "utf8.conllu"  # non-ASCII UTF-8 is never mistaken for a wide encoding
    utf8.write_text("1\t日本語のテキスト\t_\tNOUN\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    assert len(list(conllu.read(utf8))) == 1


@pytest.fixture
def small_line_cap(monkeypatch):
    monkeypatch.setattr(conllu, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(conllu, "CHUNK_BYTES", 300)


def test_a_line_at_the_cap_is_read_and_one_byte_more_is_refused_with_its_line(small_line_cap, tmp_path):
    word = "1\tdog\t_\tNOUN\t_\t_\t0\troot\t_\t_\n"
    path = tmp_path / "long.conllu"
    path.write_text(word + "\n" + "# " + "x" * 998 + "\n" + word + "\n", encoding="utf-8")  # a comment of 1000 bytes
    assert len(list(conllu.read(path))) == 2
    path.write_text(word + "\n" + "# " + "x" * 999 + "\n" + word + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="a line longer than 1000 bytes, barley's limit") as caught:
        list(conllu.read(path))
    assert caught.value.line == 3
    from barley.runtime.blocks import blocks
    from barley.tokenizer.reading import text_pieces

    with pytest.raises(InputError, match="longer than 1000 bytes") as caught:
        list(text_pieces(path, chunk_bytes=100))
    assert caught.value.line == 3
    path.write_text(word + "\n" + "# " + "x" * 5000 + "\n" + word + "\n", encoding="utf-8")
    with open(path, "rb") as handle, pytest.raises(InputError, match="longer than 1000 bytes") as caught:
        list(blocks(handle, block_bytes=100, name=str(path)))  # --jobs: a block holds no more of a line
    assert caught.value.line == 3 and caught.value.path == str(path)


def _endless(process: subprocess.Popen) -> None:
    """Write one line that never ends to ``process``'s stdin until it stops reading."""
    piece = b"a" * 65536
    try:
        while True:
            process.stdin.write(piece)
    except (BrokenPipeError, OSError, ValueError):
        pass


PEAK = """import resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # a line read whole: MemoryError, not the OOM killer
status = subprocess.run(sys.argv[1:]).returncode
print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)"""


@pytest.mark.parametrize("argv", [["validate", "-"], ["parse", "--input", "conllu", "-"],
                                  ["parse", "--input", "conllu", "-j", "2", "-"], ["tokenize", "-"]],
                         ids=["validate", "parse", "parse -j 2", "tokenize"])
def test_a_line_that_never_ends_is_one_line_and_memory_stays_bounded(files, argv):
    model = ["-m", str(files / f"{'tokenize' if argv[0] == 'tokenize' else 'parser'}.barley")]
    command = BARLEY + argv[:1] + (model if argv[0] != "validate" else []) + argv[1:]
    process = subprocess.Popen([sys.executable, "-c", PEAK, *command], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    writer = threading.Thread(target=_endless, args=(process,), daemon=True)
    writer.start()
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0
    *lines, peak = err.strip().splitlines()
    status, kilobytes = map(int, peak.split())
    too_long = ("more than 100,000 characters without whitespace, which is not text the tokenizer reads (put "
                "spaces or line breaks between its words)" if argv[0] == "tokenize" else  # refused before 4 MiB
                "a line longer than 4 MiB, barley's limit: is this a text file? (CoNLL-U has one token or comment "
                "per line, and plain text may end a line between any two words)")
    assert status == 2 and lines == [f"barley {argv[0]}: error: <stdin>:1: {too_long}"]
    assert kilobytes < 400_000  # the process's peak: a few times the line cap above start-up, never the stream


@pytest.mark.parametrize("argv", [["validate"], ["parse", "--input", "conllu"], ["tokenize"]])
def test_dev_zero_is_not_text(files, argv):
    model = {"validate": [], "parse": ["-m", str(files / "parser.barley")],
             "tokenize": ["-m", str(files / "tokenize.barley")]}[argv[0]]
    result = subprocess.run([sys.executable, "-c", PEAK, *BARLEY, *argv, *model, "/dev/zero"], capture_output=True,
                            text=True, timeout=120)
    *lines, peak = result.stderr.strip().splitlines()
    assert peak.split()[0] == "2" and lines == [
        f"barley {argv[0]}: error: /dev/zero: 4096 NUL bytes in the first 4096: not a text file (give a UTF-8 text "
        "file; convert UTF-16 or UTF-32 text first, e.g. iconv -f UTF-16 -t UTF-8)"]
