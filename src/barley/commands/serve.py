"""``barley serve``: a local web page and REST service (``POST /parse``, ``GET /models``) over loaded models."""

from __future__ import annotations

import sys

from barley.errors import BarleyError
from barley.runtime.threads import BLAS_THREADS
from barley.service.limits import Limits

DEFAULTS = Limits()


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="a local web page and REST API for parsing (needs barley[serve])",
        description="Serve models over HTTP: a web page at / (type a text, or paste tokenized text or CoNLL-U; see "
                    "the trees, download the result), POST /parse (JSON, form or raw body; input text or tokenized "
                    "with a model that has a tokenizer, else conllu; JSON back), GET /models (each model's input "
                    "formats) and GET /openapi.json. "
                    "Each model is loaded once. Listens on 127.0.0.1 unless --host says otherwise, and answers "
                    "only requests addressed to the host it listens on (127.0.0.1 and localhost for a "
                    "loopback address) unless --allow-host says otherwise.")
    parser.add_argument("--model", "-m", action="append", metavar="[NAME=]MODEL",
                        help="a model to serve (a file, or a model's name: `barley models`), named NAME (default: "
                             "the file or model name); repeat for several, the first "
                             "is the default (default: the English model that ships with barley, `barley models`)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", "-p", type=int, default=8080, help="port, 1 to 65535 (default 8080)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="also answer requests whose Host header is NAME (any port), e.g. this machine's name "
                             "with --host 0.0.0.0 or the name a proxy forwards; repeat for several; '*' answers "
                             "every Host (no protection against DNS rebinding)")
    parser.add_argument("--max-request-bytes", type=int, default=DEFAULTS.max_request_bytes, metavar="BYTES",
                        help="larger requests get 413 (default 16 MiB)")
    parser.add_argument("--max-sentence-words", type=int, default=DEFAULTS.max_sentence_words, metavar="N",
                        help=f"a request with a longer sentence gets 413 (default {DEFAULTS.max_sentence_words})")
    parser.add_argument("--max-request-words", type=int, default=DEFAULTS.max_request_words, metavar="N",
                        help=f"a request of more words gets 413 (default {DEFAULTS.max_request_words})")
    parser.add_argument("--max-word-pairs", type=int, default=DEFAULTS.max_word_pairs, metavar="N",
                        help="a request whose sentences have more pairs of words in all (the sum of the square of "
                             f"each one's words: long sentences cost that much) gets 413 (default "
                             f"{DEFAULTS.max_word_pairs})")
    parser.add_argument("--max-word-chars", type=int, default=DEFAULTS.max_word_chars, metavar="N",
                        help=f"a request with a longer word gets 413 (default {DEFAULTS.max_word_chars})")
    parser.add_argument("--max-request-chars", type=int, default=DEFAULTS.max_request_chars, metavar="N",
                        help="a request whose words have more characters in all gets 413 (default "
                             f"{DEFAULTS.max_request_chars})")
    parser.add_argument("--max-text-chars", type=int, default=DEFAULTS.max_text_chars, metavar="N",
                        help="a text (input text) of more characters, whitespace aside, gets 413 before it is "
                             f"tokenized (default {DEFAULTS.max_text_chars})")
    parser.add_argument("--read-timeout", type=float, default=DEFAULTS.read_timeout, metavar="SECONDS",
                        help="a client that takes longer to send a request header, or pauses longer while sending "
                             f"a body, gets 408 and is disconnected (default {DEFAULTS.read_timeout:g})")
    parser.add_argument("--body-timeout", type=float, default=DEFAULTS.body_timeout, metavar="SECONDS",
                        help="a client that takes longer to send a whole request body gets 408 and is disconnected "
                             f"(default {DEFAULTS.body_timeout:g})")
    parser.add_argument("--max-connections", type=int, default=DEFAULTS.max_connections, metavar="N",
                        help="connections held at once; one more gets 503 and is closed (default "
                             f"{DEFAULTS.max_connections})")
    parser.add_argument("--blas-threads", type=int, default=BLAS_THREADS, metavar="N",
                        help=f"threads of the BLAS under numpy (default {BLAS_THREADS}: requests are parsed side by "
                             "side, docs/scale.md; 0 = one per core)")
    parser.set_defaults(func=run)


def limits_of(args) -> Limits:
    """The limits the options give, each checked (a BarleyError names the option)."""
    if not 1 <= args.port <= 65535:
        raise BarleyError(f"--port {args.port} is not a TCP port", fix="give a port from 1 to 65535")
    options = ("max_request_bytes", "max_sentence_words", "max_request_words", "max_word_pairs", "max_word_chars",
               "max_request_chars", "max_text_chars", "read_timeout", "body_timeout", "max_connections")
    for option in options:
        value = getattr(args, option)
        if not value > 0 or value == float("inf"):  # not: NaN too
            raise BarleyError(f"--{option.replace('_', '-')} {value} is not a positive number",
                              fix=f"give a number above 0 (default {getattr(DEFAULTS, option):g})")
    return Limits(**{option: getattr(args, option) for option in options})


def run(args) -> int:
    limits = limits_of(args)
    if args.blas_threads < 0:
        raise BarleyError(f"--blas-threads {args.blas_threads} is not a number of threads", fix="give 0 or more")
    if args.blas_threads:
        from threadpoolctl import threadpool_limits  # for the whole process: every request's thread

        threadpool_limits(args.blas_threads, user_api="blas")
    try:
        import uvicorn

        from barley.service.app import create_app
        from barley.service.connection import protocol_with
        from barley.service.guards import HostCheck
    except ImportError as error:
        raise BarleyError(f"barley serve needs {error.name}", fix="pip install -e '.[serve]' in barley's checkout") from None
    from barley.service.models import ModelRegistry, model_specs

    specs = model_specs(args.model)
    registry = ModelRegistry(specs)
    app = create_app(registry, limits, HostCheck(args.host, args.port, args.allow_host))
    print(f"barley serve: {', '.join(name for name, _ in specs)} loaded; http://{args.host}:{args.port}/ "
          "(Ctrl-C stops)", file=sys.stderr, flush=True)
    # ws="none": no WebSocket upgrade (the service has none, and the protocol's timeouts assume HTTP throughout)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", http=protocol_with(limits), ws="none")
    return 0
