"""The ``tag`` component: UPOS, XPOS, FEATS and LEMMA of tokenized sentences.

Tags: one linear classifier per column (barley's liblinear learner,
:mod:`barley.learners.linear`), each predicting the column's whole value as one class
(FEATS too, as UDPipe 1 does); XPOS and FEATS are split by UPOS (MaltParser's data
split, :class:`SplitLearner`: one classifier per predicted UPOS, few values each), over sparse binary features of the word and its
window — the form, its lower case, prefixes up to 4 and suffixes up to 5 characters,
its shape (``Xxxx``, ``dd``) and the forms, suffixes and shapes of the words around it
(Giménez & Màrquez's SVMTool and Toutanova et al. 2003 use such features), and the UPOS
predicted for the two words before it: UPOS is tagged greedily left to right
(Ratnaparkhi 1996), trained on the gold tags before each word, all sentences of a batch
advancing in lockstep. An unknown word is tagged from its affixes, shape and context,
which are the same features.
Feature keys (hashes, deterministic) are made by :mod:`barley.pipeline.tag_features`.

Lemmas (:mod:`barley.lemma_rules`): a known (form, UPOS) pair takes the most
frequent lemma it had in training (then a known form, whatever its UPOS); an unknown
one takes the best-scoring edit rule that applies to it, chosen by a linear classifier
over the form's affixes and shape and the predicted UPOS and FEATS.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from barley.conllu import FEATS, FORM, LEMMA, UPOS, XPOS, Sentence
from barley.features.extract import FeatureIndex
from barley.learners import SplitLearner, rows_to_csr
from barley.learners.linear import LinearLearner
from barley.models import check
from barley.lemma_rules import apply_rule, edit_rule, is_rule, lemma_dictionaries, replaces_whole
from barley.pipeline.tag_features import (
    BEGIN_TAG,
    KeyTable,
    WordFeatures,
    gold_history,
    hash_key,
    history_keys,
    layout,
    lemma_keys,
    tag_dictionary,
)

TAG_COLUMNS = {"UPOS": UPOS, "XPOS": XPOS, "FEATS": FEATS}
BATCH_WORDS = 20_000
"""Words featurised and scored together when tagging (bounds the temporary arrays)."""
class Tagger:
    """UPOS, XPOS and FEATS classifiers and the lemmatizer, as one pipeline component."""

    name = "tag"
    consumes = "sentences"
    writes = ("UPOS", "XPOS", "FEATS", "LEMMA")
    keeps_given = True
    needs = ()
    OPTIONS = {"C": 0.1, "min_feature_count": 1, "split_threshold": 100, "lemma_C": 0.1, "tag_dictionary_min_count": 5}

    def __init__(self, index: FeatureIndex, classifiers: dict[str, Any], values: dict[str, list[str]],
                 lemmas: dict[tuple[str, str], str], form_lemmas: dict[str, str], rules: list[str],
                 lemma_index: FeatureIndex, lemma_classifier: LinearLearner | None,
                 options: dict, manifest: dict | None = None, tags: dict[str, str] | None = None):
        self.index = index
        self.classifiers = classifiers
        self.values = values
        self.lemmas = lemmas
        self.form_lemmas = form_lemmas
        self.rules = rules
        self.lemma_index = lemma_index
        self.lemma_classifier = lemma_classifier
        self.options = options
        self.manifest = manifest or {}
        self.tags = tags or {}
        self.features = WordFeatures(self.tags)
        self._table: KeyTable | None = None
        self.tag_keys = np.array([hash_key(f"t={value}") for value in values["UPOS"]], dtype=np.int64)

    # --- tagging ---------------------------------------------------------------------

    def process(self, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        batch: list[Sentence] = []
        words = 0
        for sentence in sentences:
            batch.append(sentence)
            words += len(sentence)
            if words >= BATCH_WORDS:
                yield from self._tag(batch)
                batch, words = [], 0
        if batch:
            yield from self._tag(batch)

    def _tag(self, batch: list[Sentence]) -> list[Sentence]:
        words = [word for sentence in batch for word in sentence.words]
        if not words:
            return batch
        lengths, first, position = laid_out = layout(batch)
        keys = self.features.keys(batch, laid_out)
        table = self._key_table()
        key_ids = table.lookup(keys)  # looked up once: the window's features do not change with the tags
        upos = self._upos_left_to_right(keys, key_ids, lengths, first)
        ids = np.hstack([key_ids, table.lookup(history_keys(*self._history_of(upos, position), keys))])
        for column, predicted in (("UPOS", upos), ("XPOS", None), ("FEATS", None)):
            if predicted is None:
                predicted = self.classifiers[column].scores(ids, upos).argmax(axis=1)
            values = self.values[column]
            index = TAG_COLUMNS[column]
            for word, value in zip(words, predicted.tolist()):
                word[index] = values[value]
        self._lemmatize(words)
        return batch

    def _key_table(self) -> KeyTable:
        """The :class:`KeyTable` of the current feature index (built at the first use)."""
        if self._table is None or self._table.index is not self.index:
            self._table = KeyTable(self.index)
        return self._table

    def _history_of(self, upos: np.ndarray, position: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tag_keys = self.tag_keys[upos]
        return (np.where(position >= 1, np.roll(tag_keys, 1), BEGIN_TAG),
                np.where(position >= 2, np.roll(tag_keys, 2), BEGIN_TAG))

    def _upos_left_to_right(self, keys: np.ndarray, key_ids: np.ndarray, lengths: np.ndarray,
                            first: np.ndarray) -> np.ndarray:
        """Greedy UPOS, position by position, all sentences of the batch in lockstep: the
        window's scores once, then at each position those of the tags just predicted."""
        classifier = self.classifiers["UPOS"]
        window = classifier.scores(key_ids)  # the bias included, as in each position's history scores:
        bias = classifier.scores(np.full((1, 1), self.index.size, dtype=np.int64))  # counted once
        upos = np.zeros(len(keys), dtype=np.int64)
        for t in range(int(lengths.max(initial=0))):
            rows = first[lengths > t] + t
            previous = self.tag_keys[upos[rows - 1]] if t >= 1 else np.full(len(rows), BEGIN_TAG)
            before = self.tag_keys[upos[rows - 2]] if t >= 2 else np.full(len(rows), BEGIN_TAG)
            history = self._key_table().lookup(history_keys(previous, before, keys[rows]))
            upos[rows] = (window[rows] + classifier.scores(history) - bias).argmax(axis=1)
        return upos

    def _lemmatize(self, words: list[list[str]]) -> None:
        unknown: list[list[str]] = []
        for word in words:
            lemma = self.lemmas.get((word[FORM], word[UPOS])) or self.form_lemmas.get(word[FORM])
            if lemma is None:
                unknown.append(word)
            else:
                word[LEMMA] = lemma
        if not unknown:
            return
        if self.lemma_classifier is None:
            for word in unknown:
                word[LEMMA] = word[FORM]
            return
        scores = self.lemma_classifier.scores(self.lemma_index.ids(lemma_keys(unknown, self.features)))
        ranking = np.argsort(-scores, axis=1, kind="stable")
        for word, order in zip(unknown, ranking):
            word[LEMMA] = word[FORM]
            for rule in order[:20].tolist():
                lemma = apply_rule(word[FORM], self.rules[rule])
                if lemma:
                    word[LEMMA] = lemma
                    break

    # --- training --------------------------------------------------------------------

    @classmethod
    def train(cls, sentences: list[Sentence], options: dict, *, seed: int, log: Callable[[str], None]) -> Tagger:
        started = time.perf_counter()
        words = [word for sentence in sentences for word in sentence.words]
        min_count = options.get("tag_dictionary_min_count", 0)
        tags = tag_dictionary(words, min_count) if min_count else {}
        laid_out = layout(sentences)
        keys = WordFeatures(tags).keys(sentences, laid_out)
        upos_values = list(dict.fromkeys(word[UPOS] for word in words))
        tag_keys = np.array([hash_key(f"t={value}") for value in upos_values], dtype=np.int64)
        upos_of = {value: i for i, value in enumerate(upos_values)}
        gold = tag_keys[np.fromiter((upos_of[word[UPOS]] for word in words), dtype=np.int64, count=len(words))]
        keys = np.hstack([keys, gold_history(keys, gold, laid_out[2])])
        index = FeatureIndex.fit(keys, options["min_feature_count"])
        X = rows_to_csr(index.ids(keys), index.size)
        del keys
        log(f"{len(words)} words, {index.size} features ({time.perf_counter() - started:.1f} s)")
        classifiers, values = {}, {}
        upos_ids = None
        for column, position in TAG_COLUMNS.items():
            column_values = list(dict.fromkeys(word[position] for word in words))
            value_id = {value: i for i, value in enumerate(column_values)}
            y = np.fromiter((value_id[word[position]] for word in words), dtype=np.int64, count=len(words))
            fit_started = time.perf_counter()
            if column == "UPOS":
                classifier: Any = LinearLearner(C=options["C"])  # or a SplitLearner: fit and scores differ
                classifier.fit(X, y, len(column_values), seed=seed)
                upos_ids = y
            else:  # one classifier per UPOS: a few values each, so training is fast (and no worse)
                classifier = SplitLearner("linear", options["split_threshold"], C=options["C"])
                classifier.fit(X, y, len(column_values), seed=seed, split_values=upos_ids)
            classifiers[column], values[column] = classifier, column_values
            log(f"{column}: {len(column_values)} values, {int(classifier.used_features().sum())} features "
                f"with a weight ({time.perf_counter() - fit_started:.1f} s)")
        tagger = cls(index, classifiers, values, *lemma_dictionaries(words), [], FeatureIndex(np.zeros(0, np.int64)), None,
                     dict(options), {"training": {"words": len(words)}}, tags)
        tagger._prune()
        tagger._train_lemmatizer(words, options, seed, log)
        return tagger

    def _prune(self) -> None:
        """Keep the features some classifier weighs (liblinear leaves most at zero)."""
        used = np.zeros(self.index.size, dtype=bool)
        for classifier in self.classifiers.values():
            used |= classifier.used_features()
        for classifier in self.classifiers.values():
            classifier.keep_features(used)
        self.index = FeatureIndex(self.index.keys[used])

    def _train_lemmatizer(self, words: list[list[str]], options: dict, seed: int, log) -> None:
        """The rule classifier, on one instance per distinct (form, UPOS, FEATS, lemma) of a
        rule seen for at least two forms (the dictionary covers the rest). Rules that replace
        the whole form (*went* → *go*) are left to the dictionary: for an unknown form they
        would only ever give another word's lemma."""
        started = time.perf_counter()
        distinct = list(dict.fromkeys((w[FORM], w[UPOS], w[FEATS], w[LEMMA]) for w in words))
        rule_of = [edit_rule(form, lemma) for form, _, _, lemma in distinct]
        forms_of_rule = Counter(rule_of)
        chosen = [i for i, rule in enumerate(rule_of) if forms_of_rule[rule] >= 2 and not replaces_whole(rule)]
        self.rules = list(dict.fromkeys(rule_of[i] for i in chosen))
        if len(self.rules) < 2:
            log(f"lemmas: {len(distinct)} distinct, too few rules for a classifier ({len(self.rules)})")
            return
        rule_id = {rule: i for i, rule in enumerate(self.rules)}
        instances = [list(distinct[i][:3]) for i in chosen]
        instance_words = [[form, "_", "_", upos, "_", feats] for form, upos, feats in instances]
        keys = lemma_keys(instance_words, self.features)
        self.lemma_index = FeatureIndex.fit(keys)
        X = rows_to_csr(self.lemma_index.ids(keys), self.lemma_index.size)
        y = np.array([rule_id[rule_of[i]] for i in chosen], dtype=np.int64)
        classifier = LinearLearner(C=options["lemma_C"])
        classifier.fit(X, y, len(self.rules), seed=seed)
        used = classifier.used_features()
        classifier.keep_features(used)
        self.lemma_index = FeatureIndex(self.lemma_index.keys[used])
        self.lemma_classifier = classifier
        log(f"lemmas: {len(self.lemmas)} known (form, UPOS) pairs; {len(self.rules)} edit rules from "
            f"{len(chosen)} forms ({time.perf_counter() - started:.1f} s)")

    # --- model files -----------------------------------------------------------------

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        manifest = dict(self.manifest)
        manifest.update({"options": self.options, "values": self.values, "rules": self.rules,
                         "lemmas": [[form, upos, lemma] for (form, upos), lemma in self.lemmas.items()],
                         "form_lemmas": self.form_lemmas, "tag_dictionary": self.tags,
                         "classifiers": {}})
        arrays = {"feature_keys": self.index.keys, "lemma_feature_keys": self.lemma_index.keys}
        for column, classifier in self.classifiers.items():
            params, classifier_arrays = classifier.to_arrays()
            manifest["classifiers"][column] = {"learner": classifier.name, "params": params}
            arrays.update({f"{column}.{key}": value for key, value in classifier_arrays.items()})
        if self.lemma_classifier is not None:
            params, classifier_arrays = self.lemma_classifier.to_arrays()
            manifest["classifiers"]["LEMMA"] = {"learner": "linear", "params": params}
            arrays.update({f"LEMMA.{key}": value for key, value in classifier_arrays.items()})
        return manifest, arrays

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> Tagger:
        """The tagger of :meth:`to_files`, each entry checked first (:mod:`barley.models.check`): the
        values and lemmas it writes are CoNLL-U values, each classifier scores its column's values
        (the lemmatizer its rules) over the features of its index."""
        with check.loading(path, "tagger"):
            values = check.mapping(manifest["values"], "the tag values")
            for column in TAG_COLUMNS:
                check.texts(values[column], f"the {column} values", field=True, unique=True)
            rules = check.texts(manifest["rules"], "the lemma rules", field=True)
            if not all(is_rule(rule) for rule in rules):
                check.fail("a lemma rule is not casing|cut|add|cut|add or casing|*|lemma")
            known = check.items(manifest["lemmas"], "the lemmas")
            if not all(type(entry) is list and len(entry) == 3 for entry in known):
                check.fail("an entry of the lemmas is not [form, UPOS, lemma]")
            check.texts([key for form, upos, _ in known for key in (form, upos)], "the lemmas' forms and UPOS")
            check.texts([lemma for *_, lemma in known], "the lemmas", field=True)
            lemmas = {(form, upos): lemma for form, upos, lemma in known}
            form_lemmas = check.mapping(manifest["form_lemmas"], "the form lemmas")
            check.texts(list(form_lemmas.values()), "the form lemmas", field=True)
            tags = manifest.get("tag_dictionary")
            if tags is not None:
                check.texts(list(check.mapping(tags, "the tag dictionary").values()), "the tag dictionary")
            sizes = check.arrays(arrays, {
                "feature_keys": check.Array("int", ("features",), low=0, order="increasing"),
                "lemma_feature_keys": check.Array("int", ("lemma features",), low=0, order="increasing"),
            }, others=tuple(f"{column}." for column in COLUMN_LEARNERS))
            entries = check.mapping(manifest["classifiers"], "the tagger's classifiers")
            classifiers = {}
            for column, entry in entries.items():
                if column not in COLUMN_LEARNERS:
                    check.fail(f"a classifier of {column!r}, which the tagger does not predict")
                if check.mapping(entry, f"the {column} classifier")["learner"] != COLUMN_LEARNERS[column].name:
                    check.fail(f"the {column} classifier is a {entry['learner']!r} learner, not "
                               f"{COLUMN_LEARNERS[column].name!r}")
                lemma = column == "LEMMA"
                classifiers[column] = COLUMN_LEARNERS[column].from_arrays(
                    entry["params"], check.part(arrays, f"{column}."),
                    n_classes=len(rules) if lemma else len(values[column]),
                    n_features=sizes["lemma features" if lemma else "features"])
            for column in TAG_COLUMNS:
                if column not in classifiers:
                    check.fail(f"the tagger has no {column} classifier")
            lemma_classifier = classifiers.pop("LEMMA", None)
            return cls(FeatureIndex(arrays["feature_keys"]), classifiers, values, lemmas, form_lemmas, rules,
                       FeatureIndex(arrays["lemma_feature_keys"]), lemma_classifier,
                       check.mapping(manifest["options"], "the tagger's options"), manifest, tags)


COLUMN_LEARNERS: dict[str, Any] = {"UPOS": LinearLearner, "XPOS": SplitLearner, "FEATS": SplitLearner, "LEMMA": LinearLearner}
"""The learner of each column's classifier: UPOS is tagged first and splits XPOS's and FEATS' classifiers
(one per UPOS); the lemmatizer chooses rules. Not a registry (:mod:`barley.registry`): the tagger's design,
which nothing chooses by name and no other package extends; a model file names each column's learner
only to be checked against it."""
