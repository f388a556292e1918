"""What a pipeline model file holds, readably (for ``barley info``)."""

from __future__ import annotations

from collections.abc import Callable


def describe_pipeline(manifest: dict, describe_parser: Callable[[dict], str]) -> str:
    pipeline = manifest.get("pipeline", {})
    training = pipeline.get("training", {})
    jackknife = pipeline.get("jackknife")
    components = manifest.get("components", {})
    lines = [f"barley pipeline model (format {manifest.get('format_version')}, written by barley "
             f"{manifest.get('barley_version')})",
             f"components:  {', '.join(pipeline.get('components', []))}",
             f"training:    {training.get('data')}: {training.get('sentences')} sentences, {training.get('words')} "
             f"words; seed {training.get('seed')}" + (f"; {training['seconds']} s" if "seconds" in training else ""),
             "jackknifing: " + (f"{jackknife['folds']} folds (for {', '.join(jackknife['components'])})"
                                if jackknife else "none (later components learned from gold columns)")]
    for tuning in pipeline.get("fine_tuning", ()):
        lines.append(f"fine-tuned:  from {tuning.get('from')} on {tuning.get('data')}: {tuning.get('sentences')} "
                     f"sentences, {tuning.get('words')} words; seed {tuning.get('seed')} "
                     f"({', '.join(tuning.get('components', []))} trained further, the others kept)")
    if "dev" in manifest:
        lines.append("dev:         " + ", ".join(f"{k} {v}" for k, v in manifest["dev"].items()))
    tokenizer = components.get("tokenize")
    if tokenizer is not None:
        training = tokenizer.get("training", {})
        multiword = tokenizer.get("multiword", {})
        lines += ["", "[tokenize]",
                  f"kind:        {tokenizer.get('kind', 'linear')}",
                  f"training:    {training.get('sentences')} sentences, {training.get('characters')} characters; "
                  f"paragraph marks: {', '.join(training.get('paragraph_marks', [])) or 'none'}",
                  f"multiword:   {len(multiword.get('expansions', {}))} forms, {len(multiword.get('rules', {}))} "
                  f"suffix rules",
                  f"sentences:   end threshold {tokenizer.get('sentence_threshold', 0):+.3f}",
                  *_neural_tokenizer_lines(tokenizer), *chosen_tokenizer_lines(training),
                  f"options:     {tokenizer.get('options')}"]
    tagger = components.get("tag")
    if tagger is not None:
        values = tagger.get("values", {})
        lines += ["", "[tag]",
                  "values:      " + ", ".join(f"{column} {len(v)}" for column, v in values.items()),
                  f"lemmas:      {len(tagger.get('lemmas', []))} known (form, UPOS) pairs, "
                  f"{len(tagger.get('rules', []))} edit rules",
                  f"options:     {tagger.get('options')}"]
    joint = components.get("joint")
    if joint is not None:
        from barley.neural.options import describe_encoder
        from barley.pipeline.linear_tags import TAG_COLUMNS

        tables, decoding = joint.get("tables", {}), joint.get("decoding", {})
        sizes = {name: len(values) for name, values in tables.get("values", {}).items()}
        training = joint.get("training", {})
        lines += ["", "[joint]",
                  "network:     one encoder, heads UPOS, XPOS, UFeats, lemma rules; then "
                  f"{joint.get('parser_layers')} BiLSTM layers of the parser's own, biaffine arcs and labels "
                  f"(arc MLP {joint.get('biaffine', {}).get('arc_mlp')}, label MLP "
                  f"{joint.get('biaffine', {}).get('label_mlp')}); decoder {decoding.get('decoder')}",
                  describe_encoder(joint.get("encoder", {})),
                  f"classes:     UPOS {sizes.get('upos')}, XPOS {sizes.get('xpos')}, FEATS {sizes.get('feats')}, "
                  f"lemma rules {sizes.get('lemma')}, DEPREL {len(tables.get('labels', []))}",
                  f"training:    {training.get('sentences')} sentences, {training.get('words')} words"
                  + (f" ({training['held_out_sentences']} more held out for early stopping)"
                     if "held_out_sentences" in training else "")
                  + f"; epoch {training.get('best_epoch')} of {training.get('epochs_run')} kept (best mean dev "
                  f"score)" + ("; training interrupted" if training.get("interrupted") else ""),
                  *_confidence_lines(joint)]
        lines += [("restarted:   " + (f"epoch {tuning.get('best_epoch')} of {tuning.get('epochs_run')} kept"
                                        if tuning.get("kept", True) else
                                        f"none of {tuning.get('epochs_run')} epochs better on dev, the network before kept")
                   + f" (a warm restart: a fresh optimiser, the learning rate from "
                   f"{tuning.get('options', {}).get('learning_rate')} along a new cosine)") if tuning.get("warm_restart") else
                  (f"fine-tuned:  {tuning.get('sentences')} sentences, {tuning.get('words')} words; epoch "
                   f"{tuning.get('best_epoch')} of {tuning.get('epochs_run')} kept; new entries: "
                   + ", ".join(f"{name} {count}" for name, count in tuning.get("added", {}).items()))
                  for tuning in joint.get("fine_tuning", ())]
        if "linear_tags" in joint:
            linear = joint["linear_tags"]
            lines.append("linear tags: " + (", ".join(linear.get("columns", ())) or "none") + " written by the "
                         "linear tagger (dev, network against linear: " + "; ".join(
                             f"{column} {linear['dev'][column].get('joint')} / {linear['dev'][column].get('linear')}"
                             for column in TAG_COLUMNS if column in linear.get("dev", {})) + ")")
        head = joint.get("enhanced")
        lines.append("enhanced:    " + ("the rules (barley.enhanced.rules) from the predicted tree" if head is None else
                                      f"a learned head (edge MLP {head.get('options', {}).get('edge_mlp')}, label MLP "
                                      f"{head.get('options', {}).get('label_mlp')}, {len(head.get('classes', []))} "
                                      f"label classes); epoch {head.get('training', {}).get('best_epoch')} of "
                                      f"{head.get('training', {}).get('epochs_run')} kept (best dev ELAS)"))
    if "parse" in components:
        parser = {"format_version": manifest.get("format_version"), **components["parse"]}
        lines += ["", "[parse]", describe_parser(parser)]
    return "\n".join(lines)


def _confidence_lines(component: dict) -> list[str]:
    """The ``confidence:`` line of a calibrated parser (``barley calibrate``); none without calibration.
    The manifest is not trusted here: anything but numbers shows as it is."""
    found = component.get("confidence")
    if not isinstance(found, dict):
        return []

    def number(name: str, scale: float = 1.0) -> str:
        value = found.get(name)
        return f"{value * scale:.4g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"

    head_map = found.get("head_map")
    knots = head_map.get("confidence") if isinstance(head_map, dict) else None
    knots = len(knots) if isinstance(knots, list) else 0
    modeled = ", then a head model" if isinstance(found.get("head_model"), dict) else ""
    return [f"confidence:  temperature {number('temperature')}" + modeled
            + (f", then a head map of {knots} knots" if knots else "")
            + f", fitted on {found.get('words')} words of {found.get('data')} ({found.get('fitted_on')}); "
            f"head ECE there {number('ece_before', 100)} → {number('ece', 100)}"
            + (f" → {number('ece_mapped', 100)}" if knots else "") + " points"]


def _neural_tokenizer_lines(tokenizer: dict) -> list[str]:
    """The network and the epoch kept, for a neural tokenizer (none for the linear one)."""
    if tokenizer.get("kind") != "neural":
        return []
    options, training = tokenizer.get("options", {}), tokenizer.get("training", {})
    kept = training.get("best_epoch")
    scores = (training.get("dev_per_epoch") or [{}])[kept - 1] if isinstance(kept, int) and kept >= 1 else {}
    return [f"network:     character BiLSTM {options.get('layers')} × {options.get('hidden')}, windows of "
            f"{options.get('window')} characters; kept epoch {kept} of {training.get('epochs_run')} (Tokens F1 "
            f"{scores.get('Tokens')}, Sentences F1 {scores.get('Sentences')} on {training.get('dev')})"]


def chosen_tokenizer_lines(training: dict) -> list[str]:
    """Which kinds the tokenizer was chosen from on dev, with their scores (``--tokenizer linear,neural``)."""
    choice = training.get("chosen_on_dev")
    if not isinstance(choice, dict):
        return []
    measures = choice.get("measures", [])
    return ["chosen:      " + f"the best {' + '.join(measures)} F1 on {choice.get('dev')}: " + "; ".join(
        f"{kind} " + " ".join(str(scores.get(measure)) for measure in measures)
        for kind, scores in choice.get("scores", {}).items()) + "".join(
        f"; the {kind} tokenizer's training was interrupted" for kind in choice.get("stopped", []))]


def describe(manifest: dict, features: bool = False) -> str:
    """What a model file holds (``barley info``, model cards): a pipeline's components, or a parser
    of any kind; ``features``: its feature model too."""
    from barley.kinds import kind_of

    if "pipeline" in manifest:
        return describe_pipeline(manifest, lambda parser: describe(parser, features))
    header = f"barley model (format {manifest.get('format_version')}, written by barley {manifest.get('barley_version')})"
    lines = [header, *kind_of(manifest).describe(manifest), *_confidence_lines(manifest)]
    if "dev" in manifest:
        dev = manifest["dev"]
        lines.append(f"dev:         LAS {dev['LAS']}, UAS {dev['UAS']}, LEM {dev['LEM']} ({dev['words']} words)")
    if features:
        lines += ["", manifest.get("features", "").rstrip()]
    return "\n".join(lines)
