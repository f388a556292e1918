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
Feature keys are 64-bit hashes of the feature's text (deterministic, unlike
Python's ``hash``); training keeps the keys seen (:class:`FeatureIndex`).

Lemmas (:mod:`barley.pipeline.lemma_rules`): a known (form, UPOS) pair takes the most
frequent lemma it had in training (then a known form, whatever its UPOS); an unknown
one takes the best-scoring edit rule that applies to it, chosen by a linear classifier
over the form's affixes and shape and the predicted UPOS and FEATS.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from barley.conllu import FEATS, FORM, LEMMA, UPOS, XPOS, Sentence
from barley.features.extract import FeatureIndex
from barley.learners import SplitLearner, rows_to_csr
from barley.learners.linear import LinearLearner
from barley.models import check
from barley.pipeline.lemma_rules import apply_rule, edit_rule, is_rule, lemma_dictionaries, replaces_whole

TAG_COLUMNS = {"UPOS": UPOS, "XPOS": XPOS, "FEATS": FEATS}
BATCH_WORDS = 20_000
"""Words featurised and scored together when tagging (bounds the temporary arrays)."""
CACHE_LIMIT = 200_000
"""Word types whose feature keys are remembered between batches."""
MASK = np.uint64(0x7FFF_FFFF_FFFF_FFFF)  # keys are non-negative int64 (-1 is "none")

# The features of one word type: (template name, function of the form).
_SHAPE_RUNS = re.compile(r"(.)\1+")


def shape(form: str) -> str:
    """``Xxxx`` for *Paris*, ``dd.d`` for *12.5*: letters and digits by class, runs collapsed."""
    classes = "".join("X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c for c in form)
    return _SHAPE_RUNS.sub(r"\1", classes)


TYPE_SLOTS = 16
"""Type feature slots (missing affixes of short words leave their slot empty)."""
LOWER, SHAPE, SUFFIX3, TAGS = 1, 2, 10, 15  # slots in the type rows: "l=", "sh=", "s3=", "ac=" (see type_keys)


def hash_key(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little") & int(MASK)


def type_keys(form: str, tags: str = "?") -> np.ndarray:
    """The hashed type features of ``form`` in fixed slots (-1: none), for vectorised context;
    ``tags``: its entry in the tag dictionary (:func:`tag_dictionary`)."""
    lower = form.lower()
    row = np.full(TYPE_SLOTS, -1, dtype=np.int64)
    row[0] = hash_key(f"w={form}")
    row[LOWER] = hash_key(f"l={lower}")
    row[SHAPE] = hash_key(f"sh={shape(form)}")
    row[3] = hash_key(f"len={min(len(form), 8)}")
    row[4] = hash_key(f"cap={form[:1].isupper()}{form.isupper()}{any(c.isdigit() for c in form)}{'-' in form}")
    for n in range(1, 5):
        if len(lower) > n:
            row[4 + n] = hash_key(f"p{n}={lower[:n]}")
    for n in range(1, 6):
        if len(lower) > n:
            row[8 + n] = hash_key(f"s{n}={lower[-n:]}")
    row[TAGS] = hash_key(f"ac={tags}")
    return row


def tag_dictionary(words: list[list[str]], min_count: int) -> dict[str, str]:
    """The UPOS values each lower-cased form took in training (its *ambiguity class*, e.g.
    ``ADP|SCONJ``), for the forms seen at least ``min_count`` times: rarer forms look, in
    training, like the unknown words of new text (both have no entry)."""
    counts = Counter(word[FORM].lower() for word in words)
    seen: dict[str, set[str]] = defaultdict(set)
    for word in words:
        if counts[word[FORM].lower()] >= min_count:
            seen[word[FORM].lower()].add(word[UPOS])
    return {form: "|".join(sorted(tags)) for form, tags in sorted(seen.items())}


def mix(keys: np.ndarray, salt: int) -> np.ndarray:
    """A new key for (``keys``, ``salt``): the feature seen from another position or template."""
    with np.errstate(over="ignore"):
        mixed = (keys.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(
            (salt * 0xC2B2AE3D27D4EB4F + 0x165667B19E3779F9) & 0xFFFF_FFFF_FFFF_FFFF)
        mixed = (mixed ^ (mixed >> np.uint64(29))) & MASK
    return np.where(keys >= 0, mixed.astype(np.int64), -1)


def pair(a: np.ndarray, b: np.ndarray, salt: int) -> np.ndarray:
    """A key for the conjunction of two keys."""
    with np.errstate(over="ignore"):
        combined = mix(a, salt).astype(np.uint64) + b.astype(np.uint64) * np.uint64(0xD6E8FEB86659FD93)
    return np.where((a >= 0) & (b >= 0), mix((combined & MASK).astype(np.int64), salt + 1), -1)


def layout(sentences: list[Sentence]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lengths, first, position)``: each sentence's length and first word's row, each word's
    position in its sentence (rows in sentence then word order)."""
    lengths = np.array([len(s) for s in sentences], dtype=np.int64)
    first = np.cumsum(lengths) - lengths
    return lengths, first, np.arange(int(lengths.sum())) - np.repeat(first, lengths)


BEGIN_TAG = hash_key("t=<s>")


class KeyTable:
    """The ids of a :class:`FeatureIndex`'s keys by open addressing with linear probing: the
    tagger's keys are random 63-bit hashes, so their low bits address a table at most half
    full, and a lookup costs one or two memory accesses where the index's binary search
    (``FeatureIndex.ids``) costs about twenty. Same ids: ``index.size`` for absent keys."""

    def __init__(self, index: FeatureIndex):
        keys = index.keys
        self.index, self.size = index, index.size
        self.mask = (1 << max(4, (2 * len(keys)).bit_length())) - 1
        self.keys = np.full(self.mask + 1, -1, dtype=np.int64)
        self.ids = np.full(self.mask + 1, self.size, dtype=np.int32)
        pending = np.arange(len(keys))
        slot = keys & self.mask
        while len(pending):
            free = np.flatnonzero(self.keys[slot] == -1)
            taken, first = np.unique(slot[free], return_index=True)  # one key per free slot, the first
            self.keys[taken] = keys[pending[free[first]]]
            self.ids[taken] = pending[free[first]]
            waiting = np.ones(len(pending), dtype=bool)
            waiting[free[first]] = False
            pending, slot = pending[waiting], (slot[waiting] + 1) & self.mask

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        flat = keys.ravel()
        out = np.full(len(flat), self.size, dtype=np.int64)
        pending = np.flatnonzero(flat >= 0)
        slot = flat[pending] & self.mask
        while len(pending):
            found = self.keys[slot]
            hit = found == flat[pending]
            out[pending[hit]] = self.ids[slot[hit]]
            going_on = ~hit & (found != -1)
            pending, slot = pending[going_on], (slot[going_on] + 1) & self.mask
        return out.reshape(keys.shape)


def history_keys(previous: np.ndarray, before: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Keys of the UPOS of the two words before (keys of ``t=TAG``, :data:`BEGIN_TAG` at the
    start), alone, together, and with the word's own lower case and 3-letter suffix (rows of
    ``own``, the word's keys); the tagger reads them left to right (Ratnaparkhi 1996)."""
    return np.stack([mix(previous, 60), pair(previous, before, 62), pair(previous, own[:, LOWER], 64),
                     pair(previous, own[:, SUFFIX3], 66)], axis=1)


def gold_history(keys: np.ndarray, tag_keys: np.ndarray, position: np.ndarray) -> np.ndarray:
    """:func:`history_keys` from known tags (training): ``tag_keys`` one per word."""
    previous = np.where(position >= 1, np.roll(tag_keys, 1), BEGIN_TAG)
    before = np.where(position >= 2, np.roll(tag_keys, 2), BEGIN_TAG)
    return history_keys(previous, before, keys)


class WordFeatures:
    """Feature keys of every word of a batch of sentences: its type and its window."""

    BOS, EOS = "<s>", "</s>"

    def __init__(self, tags: dict[str, str] | None = None):
        self.cache: dict[str, np.ndarray] = {}
        self.tags = tags or {}

    def row(self, form: str) -> np.ndarray:
        """The type keys of ``form`` (remembered)."""
        found = self.cache.get(form)
        if found is None:
            if len(self.cache) > CACHE_LIMIT:
                self.cache.clear()
            found = self.cache[form] = type_keys(form, self.tags.get(form.lower(), "?"))
        return found

    def keys(self, sentences: list[Sentence], laid_out: tuple | None = None) -> np.ndarray:
        """(words × slots) int64 keys, -1 for none; rows in sentence then word order.
        ``laid_out``: :func:`layout` of ``sentences`` if known."""
        forms = [word[FORM] for sentence in sentences for word in sentence.words]
        types: dict[str, int] = {self.BOS: 0, self.EOS: 1}
        type_of = np.fromiter((types.setdefault(f, len(types)) for f in forms), dtype=np.int64, count=len(forms))
        table = np.stack([self.row(form) for form in types])
        lengths, _, position = laid_out or layout(sentences)
        length = np.repeat(lengths, lengths)

        def neighbour(offset: int) -> np.ndarray:
            at = position + offset
            inside = (at >= 0) & (at < length)
            index = np.clip(np.arange(len(forms)) + offset, 0, max(len(forms) - 1, 0))
            return np.where(inside, type_of[index] if len(forms) else index, 0 if offset < 0 else 1)

        own = table[type_of]
        columns = [own]
        for salt, offset in enumerate((-2, -1, 1, 2), start=1):
            columns.append(mix(table[neighbour(offset), LOWER], salt)[:, None])
        for salt, offset in enumerate((-1, 1), start=10):
            other = table[neighbour(offset)]
            columns.append(mix(other[:, SUFFIX3], salt)[:, None])
            columns.append(mix(other[:, SHAPE], salt + 5)[:, None])
        if self.tags:  # the words' tag-dictionary entries around it: the right context's likely tags
            for salt, offset in enumerate((-1, 1, 2), start=30):
                columns.append(mix(table[neighbour(offset), TAGS], salt)[:, None])
            columns.append(pair(own[:, TAGS], table[neighbour(1), TAGS], 34)[:, None])
        previous, following = table[neighbour(-1), LOWER], table[neighbour(1), LOWER]
        columns.append(pair(previous, own[:, LOWER], 20)[:, None])
        columns.append(pair(own[:, LOWER], following, 22)[:, None])
        columns.append(np.zeros((len(forms), 1), dtype=np.int64))  # the bias feature, key 0
        return np.hstack(columns)


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


def lemma_keys(words: list[list[str]], features: WordFeatures) -> np.ndarray:
    """Features for choosing a lemma rule: the form's type features alone and with its UPOS,
    its UPOS and FEATS."""
    types = np.stack([features.row(w[FORM]) for w in words])
    upos = np.array([hash_key(f"u={w[UPOS]}") for w in words], dtype=np.int64)
    feats = np.array([hash_key(f"f={w[UPOS]}/{w[FEATS]}") for w in words], dtype=np.int64)
    with_upos = np.hstack([pair(types[:, slot], upos, 40 + 2 * slot)[:, None] for slot in range(TYPE_SLOTS)])
    return np.hstack([types, with_upos, upos[:, None], feats[:, None], np.zeros((len(words), 1), dtype=np.int64)])
