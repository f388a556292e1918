"""End-to-end speed of a pipeline with the joint component, on one core, without PyTorch.

Pins the process to one core (``--core``, as ``taskset -c``) and the numerical
libraries to one thread (OMP/OPENBLAS/MKL_NUM_THREADS = 1, set before numpy loads),
then:

* runs ``barley parse`` on one sentence in a fresh process, three times, and prints the
  fastest wall time and the peak memory (RSS) of the process;
* runs ``barley parse`` on the raw text of a test treebank (rebuilt from ``# text``,
  paragraphs as the treebank marks them): the whole process's words/s;
* parses the same text in this process, text in, analysed sentences out, and prints
  words/s (wall clock and CPU time: the machine may be shared) and where the time goes
  (tokenizer; the joint network's character model, BiLSTM, heads, decoding and writing);
* says whether PyTorch was imported (it must not be).

    python bench/bench_joint.py MODEL                    # EWT test from ../shared/data/ud
    python bench/bench_joint.py MODEL --test FILE.conllu --core 1
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"  # before numpy is imported, here and in the child processes

import argparse  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

UD = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"))
SENTENCE = "The quick brown fox jumps over the lazy dog."


def whole_process(model: str, text: str) -> float:
    """Seconds of ``barley parse`` reading ``text`` from a file and writing CoNLL-U: the whole process."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "text.txt"
        path.write_text(text, encoding="utf-8")
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "barley", "parse", "-m", model, "-q", str(path), "-o", os.devnull],
                       check=True, capture_output=True)
        return time.perf_counter() - started


def one_sentence(model: str) -> tuple[float, float]:
    """The fastest of three ``barley parse`` runs on one sentence (s) and the largest peak RSS (MB)."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "barley", "parse", "-m", model, "-q"], input=SENTENCE, text=True,
                       check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return min(times), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def timed(profile: dict, name: str, function):
    """``function`` wrapped to add its wall and CPU seconds to ``profile[name]``."""
    def wrapper(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent = profile.setdefault(name, [0.0, 0.0])
            spent[0] += time.perf_counter() - wall
            spent[1] += time.process_time() - cpu
    return wrapper


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("model")
    options.add_argument("--test", default=str(UD / "UD_English-EWT" / "en_ewt-ud-test.conllu"))
    options.add_argument("--core", type=int, default=0, help="the CPU core to run on (default 0)")
    args = options.parse_args()
    os.sched_setaffinity(0, {args.core})
    # first, while this process is small: a child's peak RSS counts the pages it shares with it before exec
    seconds, peak = one_sentence(args.model)

    from barley.conllu import read
    from barley.neural import numpy_ops
    from barley.pipeline import Pipeline
    from barley.tokenizer.treebank_text import raw_text

    text = raw_text(read(args.test))
    process_seconds = whole_process(args.model, text)
    started = time.perf_counter()
    pipeline = Pipeline.load(args.model)
    print(f"model {args.model}: {os.path.getsize(args.model) / 2**20:.1f} MB, loaded in "
          f"{time.perf_counter() - started:.2f} s; components {', '.join(pipeline.names)}")
    profile: dict[str, list[float]] = {}
    network = pipeline["joint"].parser.network
    network.encoder._characters = timed(profile, "character model", network.encoder._characters)
    numpy_ops.bilstm = timed(profile, "BiLSTM", numpy_ops.bilstm)
    network.outputs = timed(profile, "network (all)", network.outputs)
    annotator = pipeline["joint"].parser.annotator
    annotator.annotate = timed(profile, "decoding, writing", annotator.annotate)
    annotator._trees = timed(profile, "trees", annotator._trees)
    wall, cpu = time.perf_counter(), time.process_time()
    sentences = list(pipeline.parse(text))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    words = sum(len(s) for s in sentences)
    print(f"{args.test}: raw text, {len(text):,} characters → {len(sentences):,} sentences, {words:,} words "
          f"on core {args.core}, one thread")
    print(f"barley parse, the whole process (start, load, parse, write): {process_seconds:.2f} s, "
          f"{words / process_seconds:,.0f} words/s")
    print(f"in process, text in, sentences out: {wall:.2f} s wall, {cpu:.2f} s CPU: {words / wall:,.0f} words/s wall, "
          f"{words / cpu:,.0f} words/s CPU")
    joint_wall = sum(profile.get(name, [0, 0])[0] for name in ("network (all)", "decoding, writing"))
    print(f"  tokenizer and the rest: {wall - joint_wall:.2f} s wall")
    for name, (seconds, cpu_seconds) in profile.items():
        print(f"  {name}: {seconds:.2f} s wall, {cpu_seconds:.2f} s CPU")
    print(f"  {pipeline.stats.summary()}")
    print(f"PyTorch imported: {'torch' in sys.modules}")
    print(f"one sentence ({SENTENCE!r}), barley parse in a fresh process: {seconds:.2f} s (fastest of 3), "
          f"peak RSS {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
