"""``barley info``: what a model file holds, readably (its manifest)."""

from __future__ import annotations

from barley.catalog import resolve
from barley.kinds import kind_of
from barley.model_check import loading
from barley.model_file import read_manifest


def register(subparsers) -> None:
    parser = subparsers.add_parser("info", help="describe a model file",
                                   description="Print the manifest of a barley model file.")
    parser.add_argument("model", metavar="MODEL", help="model file or name (`barley models`)")
    parser.add_argument("--features", action="store_true", help="also print the feature model")
    parser.set_defaults(func=run)


def describe(manifest: dict, features: bool = False) -> str:
    if "pipeline" in manifest:
        from barley.pipeline.describe import describe_pipeline

        return describe_pipeline(manifest, lambda parser: describe(parser, features))
    header = f"barley model (format {manifest.get('format_version')}, written by barley {manifest.get('barley_version')})"
    lines = [header, *kind_of(manifest).describe(manifest)]
    if "dev" in manifest:
        dev = manifest["dev"]
        lines.append(f"dev:         LAS {dev['LAS']}, UAS {dev['UAS']}, LEM {dev['LEM']} ({dev['words']} words)")
    if features:
        lines += ["", manifest.get("features", "").rstrip()]
    return "\n".join(lines)


def run(args) -> int:
    args.model = resolve(args.model)
    with loading(args.model, "barley"):  # a manifest of unexpected shape: one line, not a traceback
        text = describe(read_manifest(args.model), args.features)
    print(text)
    return 0
