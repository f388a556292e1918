"""``barley info``: what a model file holds, readably (its manifest)."""

from __future__ import annotations

from barley.model_file import read_manifest


def register(subparsers) -> None:
    parser = subparsers.add_parser("info", help="describe a model file",
                                   description="Print the manifest of a barley model file.")
    parser.add_argument("model", metavar="MODEL", help="model file")
    parser.add_argument("--features", action="store_true", help="also print the feature model")
    parser.set_defaults(func=run)


def describe(manifest: dict, features: bool = False) -> str:
    if "pipeline" in manifest:
        from barley.pipeline.describe import describe_pipeline

        return describe_pipeline(manifest, lambda parser: describe(parser, features))
    training = manifest.get("training", {})
    learner = manifest.get("learner", {})
    system = manifest.get("system", {})
    vocabularies = manifest.get("vocabularies", {})
    header = f"barley model (format {manifest.get('format_version')}, written by barley {manifest.get('barley_version')})"
    transforms = f"transforms:  {', '.join(t.get('name', '?') for t in manifest.get('transforms', [])) or 'none'}"
    if manifest.get("parser") == "graph":
        graph = manifest.get("graph", {})
        lines = [
            header,
            f"parser:      graph-based, order {graph.get('order')}, decoder {graph.get('decoder')}"
            + (f" (threshold {graph.get('npa_threshold')})" if graph.get("decoder") == "eisner+npa" else "")
            + (", single root" if graph.get("single_root") else ""),
            transforms,
            f"learner:     averaged perceptron, {graph.get('epochs')} epochs, {graph.get('dims')} hashed weights, "
            f"seed {graph.get('seed')}",
            f"labels:      {len(manifest.get('labels', []))}",
            "vocabulary:  " + ", ".join(f"{name} {len(values)}" for name, values in vocabularies.items()),
            f"training:    {training.get('data')}: {training.get('sentences')} sentences, {training.get('words')} "
            f"words; tags {training.get('tags')}" + (f"; {training['seconds']} s" if "seconds" in training else ""),
        ]
    else:
        lines = [
            header,
            f"system:      {system.get('name')} (oracle {manifest.get('oracle')}"
            + (", single root" if system.get("single_root") else "") + ")",
            transforms,
            f"learner:     {learner.get('name')} {learner.get('params', {}) if learner.get('name') != 'split' else ''}"
            + (f" split by {learner.get('split_feature')}" if learner.get("split_feature") else ""),
            f"features:    {len([l for l in manifest.get('features', '').splitlines() if l.split('#')[0].strip()])} "
            f"templates from {manifest.get('features_source')}",
            f"labels:      {len(manifest.get('labels', []))} (root label {manifest.get('root_label')!r})",
            "vocabulary:  " + ", ".join(f"{name} {len(values)}" for name, values in vocabularies.items()),
            f"training:    {training.get('data')}: {training.get('sentences')} sentences, {training.get('words')} words, "
            f"{training.get('instances')} instances, {training.get('features')} features",
            f"             tags {training.get('tags')}; outside the system's class: "
            f"{training.get('outside_class_sentences')} sentences ({training.get('outside_class')}); seed {training.get('seed')}"
            + (f"; {training['seconds']} s" if "seconds" in training else ""),
        ]
    if "dev" in manifest:
        dev = manifest["dev"]
        lines.append(f"dev:         LAS {dev['LAS']}, UAS {dev['UAS']}, LEM {dev['LEM']} ({dev['words']} words)")
    if features:
        lines += ["", manifest.get("features", "").rstrip()]
    return "\n".join(lines)


def run(args) -> int:
    print(describe(read_manifest(args.model), args.features))
    return 0
