"""Coverage-guided fuzzing of one barley reader with atheris (libFuzzer).

    python fuzz/run.py conllu                                   # until stopped, corpus in /tmp/barley-fuzz/conllu
    python fuzz/run.py model -runs=1000000                      # the documented long run: a million inputs
    python fuzz/run.py spec -max_total_time=60 -timeout=10      # any libFuzzer option

Targets: conllu, model, features, spec (see fuzz/targets.py). The corpus starts from
the seeds of ``targets.seeds``; a crash is written as ``crash-*`` in the current
directory: turn it into a regression input in ``fuzz/regressions/<target>/``. The structure-aware
fuzzers have their own commands (``model_files.py``, ``model_packages.py``, ``service_requests.py``:
fuzz/README.md).
"""

from __future__ import annotations

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

with atheris.instrument_imports(include=["barley"]):
    import barley.conllu  # noqa: F401  (instrumented for coverage: everything barley reads with)
    import barley.experiment.spec  # noqa: F401
    import barley.features.extract  # noqa: F401
    import barley.models.archive  # noqa: F401
    import barley.transition.parser  # noqa: F401

import targets  # noqa: E402


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in targets.TARGETS:
        raise SystemExit(f"usage: python fuzz/run.py {{{','.join(targets.TARGETS)}}} [libFuzzer options] [corpus]")
    target = sys.argv.pop(1)
    options = [arg for arg in sys.argv[1:] if arg.startswith("-")]
    folders = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    if not folders:
        folders = [os.path.join("/tmp/barley-fuzz", target)]
    os.makedirs(folders[0], exist_ok=True)
    for name, data in targets.seeds(target).items():
        with open(os.path.join(folders[0], f"seed-{name}"), "wb") as handle:
            handle.write(data)
    atheris.Setup([sys.argv[0], *options, *folders], lambda data: targets.check(target, data))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
