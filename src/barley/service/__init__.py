"""``barley serve``: a local web page and REST service over loaded models.

- :mod:`barley.service.models`: the models served, each loaded once at start-up;
- :mod:`barley.service.inputs`: the input formats a request may name;
- :mod:`barley.service.request`: the fields of a parse request, and how each form of body is read;
- :mod:`barley.service.limits` and :mod:`barley.service.guards`: what a request may cost, and what
  holds it to that below the endpoints;
- :mod:`barley.service.app`: the ASGI application (FastAPI): ``POST /parse``,
  ``GET /models``, ``GET /openapi.json``, the page at ``/``;
- :mod:`barley.service.page`: the web page (self-contained: inline CSS and script).

FastAPI and uvicorn come with the ``serve`` extra: ``pip install -e '.[serve]'`` in barley's checkout.
"""
