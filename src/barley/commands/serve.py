"""``barley serve``: a local web page and REST service (``POST /parse``, ``GET /models``) over loaded models."""

from __future__ import annotations

import sys

from barley.errors import BarleyError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="a local web page and REST API for parsing (needs barley[serve])",
        description="Serve models over HTTP: a web page at / (paste CoNLL-U, see the trees, download the result), "
                    "POST /parse (JSON, form or raw body; JSON back), GET /models and GET /openapi.json. "
                    "Each model is loaded once. Listens on 127.0.0.1 unless --host says otherwise.")
    parser.add_argument("--model", "-m", action="append", metavar="[NAME=]FILE",
                        help="a model to serve, named NAME (default: the file name); repeat for several, the first "
                             "is the default (default: the English model that ships with barley, `barley models`)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", "-p", type=int, default=8080, help="port (default 8080)")
    parser.add_argument("--max-request-bytes", type=int, default=16 * 1024 * 1024, metavar="BYTES",
                        help="larger requests get 413 (default 16 MiB)")
    parser.set_defaults(func=run)


def run(args) -> int:
    try:
        import uvicorn

        from barley.service.app import create_app
    except ImportError as error:
        raise BarleyError(f"barley serve needs {error.name}", fix="pip install 'barley[serve]'") from None
    from barley.service.models import ModelRegistry, model_specs

    specs = model_specs(args.model)
    registry = ModelRegistry(specs)
    print(f"barley serve: {', '.join(name for name, _ in specs)} loaded; http://{args.host}:{args.port}/ "
          "(Ctrl-C stops)", file=sys.stderr, flush=True)
    uvicorn.run(create_app(registry, args.max_request_bytes), host=args.host, port=args.port, log_level="warning")
    return 0
