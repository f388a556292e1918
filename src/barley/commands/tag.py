"""``barley tag``: predict UPOS, XPOS, FEATS and LEMMA with a model's tagger, streaming (no parsing)."""

from __future__ import annotations

from barley.commands import parse


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "tag", help="tag and lemmatize with a model's tagger (no parsing)",
        description="Tag plain text or a CoNLL-U or CoNLL-X file (default stdin) with the tagger of a model "
                    "trained with `barley train --components tag,...`: UPOS, XPOS, FEATS and LEMMA are predicted "
                    "for every word (replacing those of the input); text is first split by the model's tokenizer. "
                    "A parser in the model is not run, and HEAD, DEPREL and the other columns are kept.")
    parse.add_arguments(parser, "tag")
    parser.set_defaults(func=parse.run, needs="tag", retag=True, scheduler=None, out_dir=None, shard_mb=None,
                        max_words=None, nbest=None, beam=None)
