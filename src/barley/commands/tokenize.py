"""``barley tokenize``: raw text → CoNLL-U sentences of tokens and words, streaming."""

from __future__ import annotations

import sys
import time

from barley.atomic import check_output
from barley.commands import add_force
from barley.conllu import write
from barley.models.catalog import resolve
from barley.pipeline import Pipeline
from barley.tokenizer import INPUTS
from barley.tokenizer.reading import source_name, text_pieces


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "tokenize", help="split raw text into sentences, tokens and words (CoNLL-U)",
        description="Tokenize and sentence-split text with the tokenizer of a model (one trained with "
                    "`barley train --components tokenize,...`); print CoNLL-U with _ for tags. The output "
                    "rebuilds the input exactly: SpaceAfter=No, SpacesAfter and SpacesBefore in MISC; "
                    "# text holds the sentence with each run of whitespace as one space.")
    parser.add_argument("input", nargs="?", default="-", metavar="IN", help="UTF-8 text file (default: stdin)")
    parser.add_argument("--model", "-m", required=True, metavar="MODEL",
                        help="model file or name (`barley models`) with a tokenizer")
    parser.add_argument("--input", dest="input_format", choices=INPUTS, default="text",
                        help="text: paragraphs separated by blank lines (default); sentences: one untokenized "
                             "sentence per line (a sentence ends at each line's end and nowhere else); tokenized: "
                             "one sentence per line, tokens separated by spaces (only multiword tokens are "
                             "expanded)")
    parser.add_argument("--output", "-o", default="-", metavar="OUT", help="output file (default: stdout)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no summary on stderr")
    add_force(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    started = time.perf_counter()
    args.model = resolve(args.model)
    check_output(args.output, [args.input, args.model], force=args.force)
    pipeline = Pipeline.load(args.model)
    counts = {"sentences": 0, "words": 0}

    def counted(sentences):
        for sentence in sentences:
            counts["sentences"] += 1
            counts["words"] += len(sentence.words)
            yield sentence

    sentences = pipeline.tokenize(text_pieces(args.input), input=args.input_format, source=source_name(args.input))
    write(counted(sentences), args.output)
    if not args.quiet:
        seconds = time.perf_counter() - started
        print(f"barley tokenize: {counts['sentences']} sentences, {counts['words']} words; {seconds:.1f} s, "
              f"{counts['words'] / max(seconds, 1e-9):.0f} words/s", file=sys.stderr)
    return 0
