"""Sub-commands of ``barley``: one module per command, each with ``register(subparsers)``."""
