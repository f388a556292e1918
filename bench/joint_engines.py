"""The joint network's two engines on a treebank: numpy (what parses) against PyTorch (what trained).

Annotates the sentences of a CoNLL-U file (gold tokenization) with a model's ``joint``
component twice — the numpy engine over the model file's arrays, and the PyTorch model
rebuilt from the same arrays — and prints the share of words whose six predicted columns
(UPOS, XPOS, FEATS, LEMMA, HEAD, DEPREL) are identical, each column's, and the largest
difference of the raw scores on the first batch. Needs PyTorch.

    python bench/joint_engines.py MODEL TEST.conllu
"""

from __future__ import annotations

import argparse
import sys


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("model")
    options.add_argument("test")
    args = options.parse_args()

    import numpy as np

    from barley.conllu import COLUMNS, read
    from barley.neural.inputs import pad
    from barley.neural.joint import JointParser
    from barley.neural.joint_training import TorchNetwork, model_of
    from barley.pipeline import Pipeline

    component = Pipeline.load(args.model)["joint"]
    parser, model = component.parser, model_of(component)
    by_torch = JointParser(TorchNetwork(model, parser.vocabularies, "cpu"), parser.vocabularies, parser.annotator)
    gold = list(read(args.test))
    numpy_sentences = list(parser.process([s.copy() for s in gold]))
    torch_sentences = list(by_torch.process([s.copy() for s in gold]))
    columns = ("UPOS", "XPOS", "FEATS", "LEMMA", "HEAD", "DEPREL")
    indexes = [COLUMNS.index(column) for column in columns]
    pairs = [(a, b) for x, y in zip(numpy_sentences, torch_sentences) for a, b in zip(x.words, y.words)]
    same = sum(all(a[i] == b[i] for i in indexes) for a, b in pairs)
    print(f"{args.test}: {len(pairs)} words; identical in all six columns: {same} ({100 * same / len(pairs):.3f} %)")
    for column, index in zip(columns, indexes):
        differ = sum(a[index] != b[index] for a, b in pairs)
        print(f"  {column}: {differ} words differ")
    padded = pad([parser.vocabularies.encode(s) for s in gold[:200]])
    ours, theirs = parser.network.outputs(padded), by_torch.network.outputs(padded)
    mask = padded.mask[:, :, None] & padded.mask[:, None, :] & ~np.eye(padded.mask.shape[1], dtype=bool)
    print(f"largest difference on 200 sentences: the words' vectors "
          f"{float(np.abs(ours.word_vectors - theirs.word_vectors).max()):.2e}, arc scores "
          f"{float(np.abs(ours.arcs[mask] - theirs.arcs[mask]).max()):.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
