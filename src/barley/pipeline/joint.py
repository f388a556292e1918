"""The ``joint`` component: UPOS, XPOS, FEATS, LEMMA, HEAD and DEPREL from one neural network.

The network (:mod:`barley.neural.joint`, UDPipe 2's shape) reads the forms only and
predicts every other column at once; trained with PyTorch
(:mod:`barley.neural.joint_training`), it parses with numpy over the arrays of the model
file, so that parsing never imports PyTorch. It replaces the ``tag`` and ``parse``
components (a pipeline holds one or the other)::

    barley train --components tokenize,joint -t train.conllu -d dev.conllu -m en.barley

``--dev`` chooses the epoch kept (without it, the end of the training data is held out);
a checkpoint is written after every epoch next to the model (``en.barley.checkpoint``),
and ``--resume`` continues a training that was stopped. A trained network can be trained further
on one's own treebank, its vocabularies extended (:meth:`JointComponent.fine_tune`)::

    barley train my-train.conllu my-dev.conllu --from en_ewt -m mine.barley
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from barley.confidence import calibration_of
from barley import treebanks
from barley.conllu import Sentence
from barley.enhanced.head import EnhancedHead, HeadOptions, HeadTable, head_shapes
from barley.errors import BarleyError
from barley.decoders.options import DecoderOptions
from barley.decoders.nonprojective_approx import DEFAULT_THRESHOLD
from barley.models import check
from barley.neural.inputs import EncoderVocabularies
from barley.neural.joint import Annotator, JointParser, LearnedEnhancer, NumpyJoint, expected_shapes
from barley.neural.joint_tables import JointTables
from barley.neural.numpy_encoder import checked_weights
from barley.neural.options import BiaffineOptions, EncoderOptions, Training
from barley.option import JOINT, option
from barley.pipeline.linear_tags import PREFIX as LINEAR_TAGS_PREFIX
from barley.pipeline.linear_tags import LinearTags, chosen
from barley.transforms import of_manifest

ENCODER = EncoderOptions(form_dim=100, char_dim=64, char_hidden=128, lstm_hidden=200, lstm_layers=2,
                         inputs=("form",), characters="concat")
"""The joint network's encoder by default: the form and its characters only (a bigger
character model than a parser given tags needs: it is what tags unknown words), the
character vector concatenated to the form embedding — added, it would share the form
embedding's dimensions with a random code per word, and learning is much slower."""
ENCODER_OPTIONS = ("form_dim", "treebank_dim", "char_dim", "char_hidden", "lstm_hidden", "lstm_layers", "dropout", "word_dropout",
                   "min_form_count", "characters")
TRAINING = Training(batch_words=500)
"""Minibatches of 500 words, half the parsers': the joint network learns from the form alone and
needs more steps (on EWT dev, LAS 75.86 after 3 epochs against 72.60 with 1,000 words)."""
@dataclass(frozen=True)
class JointOptions:
    """The joint component's own ``barley train`` options, declared here beside their defaults
    (:func:`barley.option.option`; the encoder's, the biaffine scorer's and training's are theirs)."""

    parser_layers: int = option(1, "BiLSTM layers of the parser's own, on the shared --lstm-layers", JOINT)
    restart_epochs: int = option(0, "after training, N more epochs from the epoch kept, with a fresh optimiser and "
                                    "the learning rate restarted at --restart-learning-rate along a new cosine (a warm "
                                    "restart, Loshchilov & Hutter 2017; the neural recipe's: 20); 0: none", JOINT,
                                 metavar="N")
    restart_learning_rate: float = option(1e-3, "the learning rate a warm restart (--restart-epochs) starts from",
                                          JOINT, metavar="RATE")
    enhanced_epochs: int = option(30, "where the training data has enhanced graphs (DEPS), train the enhanced head "
                                      "on the finished network for up to N epochs (barley parse --enhanced then "
                                      "predicts the graphs); 0: none (the rules make them)", JOINT, metavar="N")
    linear_tags: bool = option(False, "after training, also train the linear tagger and let it write UPOS, XPOS, "
                                      "FEATS or LEMMA where it scores better on dev than the network (the neural and "
                                      "quick recipes: true)", JOINT)


OPTIONS = {**{name: getattr(ENCODER, name) for name in ENCODER_OPTIONS}, **asdict(BiaffineOptions()),
           **asdict(TRAINING), "decoder": "mst", "transforms": (), "holdout": 0.1, "device": "cpu", "threads": 1,
           "resume": False, **asdict(JointOptions())}
"""Training options and their defaults: the encoder's and the biaffine scorer's sizes, training
(epochs, patience, batch words, learning rate, clipping), the parser's own BiLSTM layers
(``parser_layers``, on the shared ``lstm_layers``; 2 + 1 of 200 cost what 2 of 256 do), the decoder, tree transforms (objects of
:mod:`barley.transforms`), ``holdout`` (the fraction of the training data held out for early
stopping when there is no dev set), device, threads, ``resume`` (from ``checkpoint``) and the warm
restart after training (``restart_epochs``, 0 for none, and ``restart_learning_rate``: :meth:`JointComponent.restarted`),
and ``linear_tags``: the linear tagger's columns where it tags dev better (:mod:`barley.pipeline.linear_tags`)."""
OPTIONAL = frozenset({"npa_threshold", "pretrained", "checkpoint"})
"""Options taken only when given: the non-projective approximation's threshold (``eisner+npa``),
a word-vector file to initialise the form embeddings, and the checkpoint file."""
FINE_TUNING = ("epochs", "patience", "batch_words", "learning_rate", "lr_schedule", "clip", "holdout", "device", "threads")
"""The options of fine-tuning (:meth:`JointComponent.fine_tune`): training's, not the network's."""
NOT_FINGERPRINTED = ("resume", "checkpoint", "threads", "device", "epochs", "patience", "restart_epochs",
                     "restart_learning_rate", "enhanced_epochs", "linear_tags")
"""Options a resumed training may change: where it runs (threads are fingerprinted apart, being part
of what makes it deterministic), when it stops (an epoch does not depend on how many follow) and
the warm restart and what follows it."""


HEAD_PREFIX = "enhanced."
"""The enhanced head's arrays in the model file: ``weights.enhanced.NAME``."""


class JointComponent:
    name = "joint"
    consumes = "sentences"
    writes = ("UPOS", "XPOS", "FEATS", "LEMMA", "HEAD", "DEPREL")
    keeps_given = False
    needs = ()
    takes_dev = True
    OPTIONS = OPTIONS
    OPTIONAL = OPTIONAL

    def __init__(self, parser: JointParser, manifest: dict, arrays: dict[str, np.ndarray],
                 linear_tags: LinearTags | None = None):
        self.parser, self.manifest, self.arrays, self.linear_tags = parser, manifest, arrays, linear_tags

    @property
    def enhancer(self) -> LearnedEnhancer | None:
        """The learned enhanced head (:func:`barley.enhanced.enhancer.enhancer_for`), if the network has one."""
        return self.parser.annotator.enhancer

    @property
    def stats(self):
        return self.parser.annotator.stats

    @stats.setter
    def stats(self, value) -> None:
        self.parser.annotator.stats = value

    def process(self, sentences: Iterable[Sentence], arcs=None) -> Iterator[Sentence]:
        """Annotate ``sentences``; ``arcs``: given and forbidden arcs (:class:`barley.constraints.ArcOptions`).
        The linear tagger writes the columns it was chosen for (:mod:`barley.pipeline.linear_tags`)."""
        annotated = self.parser.process(sentences, arcs)
        return annotated if self.linear_tags is None else self.linear_tags.process(annotated)

    def calibrated(self, found: dict) -> None:
        """A fitted calibration (``barley calibrate``) into the annotator and the manifest."""
        self.manifest["confidence"] = found
        self.parser.annotator.calibrated = calibration_of(self.manifest)

    def with_tag_sets(self, sentences: Sequence[Sentence]) -> None:
        """The (UPOS, XPOS, FEATS) combinations of ``sentences`` — the network's own training sentences —
        added to its tables and manifest, so that a network trained before barley kept them decodes
        consistent tags too (:meth:`barley.neural.joint.Annotator._tags`)."""
        try:
            tables = self.parser.annotator.tables.with_tag_sets(sentences)
        except KeyError as unknown:
            raise BarleyError(f"a tag the network does not know ({unknown.args[0]!r}): these are not the sentences "
                              "it was trained on", fix="give the network's training file") from None
        self.parser.annotator.tables = tables
        self.manifest["tables"] = tables.to_json()

    # --- training --------------------------------------------------------------------

    @classmethod
    def train(cls, sentences: list[Sentence], options: dict, *, seed: int, log: Callable[[str], None],
              dev: list[Sentence] | None = None) -> JointComponent:
        from barley.neural import require_torch

        require_torch()
        from barley.kinds import gold_tree
        from barley.neural.joint_training import network_arrays, train_joint
        from barley.neural.options import from_given
        from barley.transforms import fit_forward
        from barley.tree import crossing_share, label_table

        encoder, biaffine, training = from_given({**asdict(ENCODER), **options}, EncoderOptions, BiaffineOptions,
                                                 Training, device=options["device"], threads=options["threads"])
        several = treebanks.names(sentences)
        if len(several) > 1:  # each word also reads its sentence's treebank (Stymne et al. 2018)
            encoder = replace(encoder, inputs=(*encoder.inputs, "treebank"))
            log(f"{len(several)} treebanks ({', '.join(several)}): the network reads each sentence's treebank "
                f"(an embedding of {encoder.treebank_dim}); a sentence that names none is parsed as {several[0]}")
        if options["parser_layers"] < 0:
            raise BarleyError(f"parser_layers must be at least 0, not {options['parser_layers']}")
        if not 0.0 <= options["holdout"] < 1.0:
            raise BarleyError(f"holdout must be in [0, 1), not {options['holdout']}")
        if options["resume"] and options.get("checkpoint") is None:
            raise BarleyError("resume needs a checkpoint file", fix="give checkpoint=FILE (barley train sets it)")
        if "npa_threshold" in options and options["decoder"] != "eisner+npa":
            raise BarleyError("--npa-threshold applies to --decoder eisner+npa only", fix="leave it out")
        if options["enhanced_epochs"] < 0:
            raise BarleyError(f"--enhanced-epochs must be at least 0, not {options['enhanced_epochs']}")
        if options["restart_epochs"] < 0 or not options["restart_learning_rate"] > 0:
            raise BarleyError(f"--restart-epochs must be at least 0 and --restart-learning-rate positive, not "
                              f"{options['restart_epochs']} and {options['restart_learning_rate']}")
        transforms = list(options["transforms"])
        trees = fit_forward(transforms, sentences, [gold_tree(s) for s in sentences], log)
        decoding = DecoderOptions(decoder=options["decoder"], npa_threshold=options.get("npa_threshold",
                                DEFAULT_THRESHOLD), single_root=all(sum(1 for h in heads[1:] if h == 0) == 1
                                                                    for heads, _ in trees),
                                crossing_arcs=crossing_share(heads for heads, _ in trees))
        decoding.check()
        labels, _ = label_table(trees)
        words = sum(len(s) for s in sentences)
        log(f"training a joint tagger, lemmatizer and parser on {len(sentences)} sentences, {words} words: "
            f"form {encoder.form_dim} + characters {encoder.char_hidden} → BiLSTM {encoder.lstm_layers} × "
            f"{encoder.lstm_hidden} → UPOS, XPOS, UFeats, lemma rules; → BiLSTM {options['parser_layers']} × "
            f"{encoder.lstm_hidden} → biaffine arcs (MLP {biaffine.arc_mlp}) and labels (MLP {biaffine.label_mlp}); "
            f"decoder {decoding.decoder}")
        fingerprint = {"options": _jsonable({k: v for k, v in options.items() if k not in NOT_FINGERPRINTED}),
                       "seed": seed}
        model, vocabularies, tables, history = train_joint(
            sentences, trees, labels, dev, encoder=encoder, biaffine=biaffine, training=training, decoding=decoding,
            transforms=transforms, parser_layers=options["parser_layers"], holdout=options["holdout"], pretrained=options.get("pretrained"), seed=seed,
            device=options["device"], threads=options["threads"], checkpoint=options.get("checkpoint"),
            resume=options["resume"], fingerprint=fingerprint, log=log)
        manifest = {"encoder": asdict(model.encoder.options), "biaffine": asdict(biaffine),
                    "parser_layers": options["parser_layers"],
                    "decoding": {"decoder": decoding.decoder, "npa_threshold": decoding.npa_threshold,
                                 "single_root": decoding.single_root, "crossing_arcs": decoding.crossing_arcs},
                    "vocabularies": vocabularies.to_json(), "tables": tables.to_json(),
                    "transforms": [t.to_json() for t in transforms],
                    "options": _jsonable({k: v for k, v in options.items() if k not in ("resume", "checkpoint")}),
                    "training": {**history, "seed": seed}}
        trained = cls.from_files(manifest, network_arrays(model), "<trained>")
        if history.get("interrupted"):  # stopped by hand: the user wants the model now, not 20 more epochs
            log(f"training interrupted: no warm restart (--restart-epochs {options['restart_epochs']}) and no "
                "enhanced head")
            return trained
        if options["restart_epochs"]:
            trained = trained.restarted(sentences, dev, options["restart_epochs"], options["restart_learning_rate"],
                                        seed=seed, log=log)
        if options["linear_tags"]:
            trained = trained.with_linear_tags(sentences, dev, options["holdout"], seed=seed, log=log)
        return trained._with_head_for(sentences, dev, options, seed, log)

    def with_linear_tags(self, sentences: list[Sentence], dev: list[Sentence] | None, holdout: float, *, seed: int,
                         log: Callable[[str], None]) -> JointComponent:
        """A new component: this network, and the linear tagger for the columns it tags better on ``dev``
        (:func:`barley.pipeline.linear_tags.chosen`; the choice is recorded even where it is none)."""
        entry, arrays = chosen(self, sentences, dev, holdout, seed, log)
        kept = {name: array for name, array in self.arrays.items() if not name.startswith(LINEAR_TAGS_PREFIX)}
        return type(self).from_files({**self.manifest, "linear_tags": entry}, {**kept, **arrays}, "<trained>")

    def _with_head_for(self, sentences: list[Sentence], dev: list[Sentence] | None, options: dict, seed: int,
                       log: Callable[[str], None]) -> JointComponent:
        """This component, with an enhanced head (:meth:`with_enhanced_head`) if the training data has
        enhanced graphs and ``enhanced_epochs`` is not 0."""
        from barley.enhanced.head_training import enhanced_share

        share = enhanced_share(sentences)
        if not share:
            return self
        if not options["enhanced_epochs"]:
            log(f"the training data has enhanced graphs ({share:.0%} of the words), but --enhanced-epochs 0: "
                "no enhanced head (barley parse --enhanced will use the rules)")
            return self
        return self.with_enhanced_head(sentences, dev, options["enhanced_epochs"], seed=seed,
                                       threads=options["threads"], log=log)

    def restarted(self, sentences: list[Sentence], dev: list[Sentence] | None, epochs: int, learning_rate: float, *,
                  seed: int, log: Callable[[str], None]) -> JointComponent:
        """The network trained ``epochs`` more epochs from the epoch kept, with a fresh optimiser and the
        learning rate restarted at ``learning_rate`` along a new cosine: a warm restart (Loshchilov &
        Hutter 2017, SGDR). On EWT it lifts dev LAS where the first cosine, run to its end, had levelled
        off (``docs/results/pipeline.md``). It is fine-tuning on the same data (:meth:`fine_tune`, the
        epoch kept chosen on ``dev`` again), so that a network trained before restarts later to the same
        bytes as in one training (``scripts/build_default_model.py --trained``). If no epoch of the
        restart scores better on dev than the epoch kept before, that network stays (said in the log).
        The manifest's options and ``fine_tuning`` record the restart either way."""
        log(f"warm restart: {epochs} more epochs from the epoch kept, the learning rate from {learning_rate:g} "
            "along a new cosine")
        options = self.manifest["options"]
        restarted = self.fine_tune([s.copy() for s in sentences],
                                   {"epochs": epochs, "patience": epochs, "learning_rate": learning_rate,
                                    "lr_schedule": "cosine",
                                    **{name: options[name] for name in ("batch_words", "clip", "holdout", "device", "threads")}},
                                   seed=seed, log=log, dev=dev)
        history = restarted.manifest["fine_tuning"][-1]
        before, after = (max(scores.get("dev_score_per_epoch", ()), default=None)
                         for scores in (self.manifest["training"], history))
        kept = before is None or after is None or after > before
        if not kept:
            log(f"warm restart: no epoch scored better on dev than the first training's best ({after:.2f} against "
                f"{before:.2f}): its network is kept")
            restarted = type(self).from_files({**self.manifest, "fine_tuning": restarted.manifest["fine_tuning"]},
                                              self.arrays, "<trained>")
        restarted.manifest["options"] = {**options, "restart_epochs": epochs, "restart_learning_rate": learning_rate}
        # `barley models --describe` says so; "kept" is written only when false (a restart kept is the usual case)
        restarted.manifest["fine_tuning"][-1].update(warm_restart=True, **({} if kept else {"kept": False}))
        return restarted

    def fine_tune(self, sentences: list[Sentence], options: dict, *, seed: int, log: Callable[[str], None],
                  dev: list[Sentence] | None = None) -> JointComponent:
        """A new component: this network trained further on ``sentences`` (:func:`fine_tune_joint`: its
        vocabularies and classes extended with theirs, its weights carried over), with its transforms as
        they were fitted. ``options``: those of :data:`FINE_TUNING` (training's, by default as a new
        network's); an option that would change the network's architecture is refused, as are the others
        it does not take. The manifest keeps the first training and appends this one to ``fine_tuning``;
        a temperature fitted by ``barley calibrate`` is dropped (it was the old network's)."""
        from barley.neural import require_torch

        require_torch()
        from barley.kinds import gold_tree
        from barley.neural.joint_training import fine_tune_joint, network_arrays
        from barley.neural.options import from_given
        from barley.transforms import fit_forward
        from barley.tree import label_table

        self._refuse_for_fine_tuning(options)
        given = {**asdict(TRAINING), **{name: OPTIONS[name] for name in FINE_TUNING if name in OPTIONS}, **options}
        training, = from_given(given, Training, device=given["device"], threads=given["threads"])
        transforms = of_manifest(self.manifest)
        trees = fit_forward(transforms, sentences, [gold_tree(s) for s in sentences], log, fit=False)
        labels, _ = label_table(trees)
        log(f"fine-tuning the joint network on {len(sentences)} sentences, {sum(len(s) for s in sentences)} words")
        model, vocabularies, tables, history = fine_tune_joint(
            self, sentences, trees, labels, dev, training=training, holdout=given["holdout"], seed=seed,
            device=given["device"], threads=given["threads"], log=log)
        manifest = {**self.manifest, "vocabularies": vocabularies.to_json(), "tables": tables.to_json(),
                    "fine_tuning": [*self.manifest.get("fine_tuning", ()), {**history, "seed": seed}]}
        manifest.pop("confidence", None)
        if manifest.pop("linear_tags", {}).get("columns"):
            log("the linear tags were chosen against the network before fine-tuning: they are left out (the "
                "network writes every column)")
        if manifest.pop("enhanced", None) is not None:
            log("the enhanced head was trained on the network before fine-tuning: it is left out (train it again "
                "with --enhanced-epochs on data with enhanced graphs)")
        return type(self).from_files(manifest, network_arrays(model), "<fine-tuned>")

    def _refuse_for_fine_tuning(self, options: dict) -> None:
        """A one-line error for an option fine-tuning does not take: first those that would change the
        network's architecture (the same value as the network's is no change), then any other."""
        network = {**self.manifest["encoder"], **self.manifest["biaffine"], "parser_layers": self.manifest["parser_layers"],
                   "decoder": self.manifest["decoding"]["decoder"]}
        for name, value in sorted(options.items()):
            if name in network and name not in FINE_TUNING and value != network[name]:
                raise BarleyError(f"--{name.replace('_', '-')} {value} conflicts with the network being fine-tuned "
                                  f"({name} {network[name]}): fine-tuning keeps its architecture and options",
                                  fix=f"leave --{name.replace('_', '-')} out")
        unknown = sorted(name for name in options if name not in FINE_TUNING and name not in network)
        if unknown:
            raise BarleyError(f"fine-tuning the joint network takes no option {', '.join(map(repr, unknown))}",
                              fix=f"its options are: {', '.join(FINE_TUNING)}")

    def with_enhanced_head(self, sentences: list[Sentence], dev: list[Sentence] | None, epochs: int, *, seed: int,
                           threads: int, log: Callable[[str], None]) -> JointComponent:
        """A new component: this network with an enhanced head (:mod:`barley.enhanced.head`) trained for up
        to ``epochs`` epochs on the gold DEPS of ``sentences``, the network itself unchanged
        (:func:`barley.enhanced.head_training.train_head`)."""
        from barley.enhanced.head_training import TRAINING as HEAD_TRAINING
        from barley.enhanced.head_training import train_head

        training = replace(HEAD_TRAINING, epochs=epochs, patience=min(epochs, HEAD_TRAINING.patience))
        options = HeadOptions()
        table, weights, history = train_head(self.parser, sentences, dev, training, options=options, seed=seed,
                                             threads=threads, log=log)
        manifest = {**self.manifest, "enhanced": {**table.to_json(), "options": asdict(options),
                                                  "training": {**history, "seed": seed}}}
        arrays = {name: array for name, array in self.arrays.items() if not name.startswith(f"weights.{HEAD_PREFIX}")}
        arrays.update({f"weights.{HEAD_PREFIX}{name}": array.astype(np.float32) for name, array in weights.items()})
        return type(self).from_files(manifest, arrays, "<trained>")

    # --- model files -----------------------------------------------------------------

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        return self.manifest, self.arrays

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> JointComponent:
        """The component from :meth:`to_files`' manifest and arrays: every array's shape checked
        against the shapes the options and tables imply before the network is built (no size
        in the manifest allocates anything), any damage one ModelError (:mod:`barley.models.check`)."""
        with check.loading(path, "joint"):
            encoder = EncoderOptions(**manifest["encoder"])
            biaffine = BiaffineOptions(**manifest["biaffine"])
            decoding = DecoderOptions(**manifest["decoding"])
            for options in (encoder, biaffine, decoding):
                options.check()
            vocabularies = EncoderVocabularies.from_json(manifest["vocabularies"])
            tables = JointTables.from_json(manifest["tables"])
            transforms = of_manifest(manifest)
            parser_layers = manifest["parser_layers"]
            if not isinstance(parser_layers, int) or parser_layers < 0:
                raise ValueError(f"parser_layers {parser_layers!r}")
            shapes = expected_shapes(encoder, biaffine, vocabularies.sizes(), tables.sizes(), len(tables.labels),
                                     parser_layers)
            head = manifest.get("enhanced")
            if head is not None:
                head_table, head_options = HeadTable.from_json(head), HeadOptions(**head["options"])
                head_options.check()
                shapes.update(head_shapes(encoder.output_dim, head_options, len(head_table.classes)))
            weights = checked_weights(arrays, shapes, path, "joint network")
            network = NumpyJoint(encoder, vocabularies, weights, parser_layers)
            enhancer = None if head is None else LearnedEnhancer(EnhancedHead(head_table, {
                name[len(HEAD_PREFIX):]: array for name, array in weights.items() if name.startswith(HEAD_PREFIX)}))
            calibrated = calibration_of(manifest)
        linear = None if "linear_tags" not in manifest else LinearTags.from_files(manifest["linear_tags"], arrays, path)
        return cls(JointParser(network, vocabularies, Annotator(tables, decoding, transforms, calibrated=calibrated,
                                                                enhancer=enhancer)), manifest, arrays, linear)


def _jsonable(options: dict) -> dict:
    """Options as JSON: transforms by their manifest entries."""
    return {name: [t.to_json() for t in value] if name == "transforms" else value
            for name, value in sorted(options.items())}
