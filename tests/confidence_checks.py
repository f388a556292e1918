"""assert_confidence, what every kind of parser must do with confidence: for the kinds' tests (graph, neural, joint)."""

from __future__ import annotations

from barley.confidence import DEPREL_PROB, HEAD_PROB, Confidence
from barley.conllu import MISC, read


def assert_confidence(model, path) -> None:
    """What every kind of parser must do with confidence (used by each kind's tests): the same
    trees as without it, a probability for every word's head and label, the sentence's comment;
    and ``barley calibrate``'s temperature kept through the model file and read back."""
    from barley.commands.calibrate import calibrate
    from barley.pipeline import Pipeline

    pipeline = Pipeline.of(model)
    gold = list(read(path))
    plain = list(pipeline.parse([s.copy() for s in gold]))
    pipeline.with_confidence(Confidence())
    sure = list(pipeline.parse([s.copy() for s in gold]))
    assert [s.heads().tolist() for s in plain] == [s.heads().tolist() for s in sure]
    assert [s.deprels() for s in plain] == [s.deprels() for s in sure]
    for sentence in sure:
        assert sentence.comments[-1].startswith("# confidence = ")
        for word in sentence.words:
            found = dict(item.partition("=")[::2] for item in word[MISC].split("|"))
            assert 0.0 <= float(found[HEAD_PROB]) <= 1.0 and 0.0 <= float(found[DEPREL_PROB]) <= 1.0
    found = calibrate(pipeline, gold, str(path))
    pipeline.calibrated(found)
    manifest, arrays = model.to_files()
    reloaded = Pipeline.from_model(manifest, arrays, "<calibrated>")
    reloaded.with_confidence(Confidence())
    again = list(reloaded.parse([s.copy() for s in gold]))
    assert [s.heads().tolist() for s in again] == [s.heads().tolist() for s in plain]
    if abs(found["temperature"] - 1.0) > 1e-3:
        assert [s.comments[-1] for s in again] != [s.comments[-1] for s in sure]
    pipeline.with_confidence(None)  # the model is shared with the kind's other tests
