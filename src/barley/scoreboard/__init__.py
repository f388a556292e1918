"""The scoreboard: every UD treebank of a folder trained by barley's recipes and scored from raw text.

``barley scoreboard UD_DIR --recipe neural -o runs/scoreboard`` takes every treebank folder of
``UD_DIR`` that has a training and a test file (:mod:`.folders`), trains it by each recipe
(:mod:`barley.recipes`) and scores the model on the test set from raw text and with gold
tokenization, with the CoNLL 2018 metrics of ``barley evaluate --conll18`` — one *cell* per
(treebank, recipe), resumable (:mod:`.cell`), run on the local cores or on a Dask cluster
(:mod:`.schedule`) — then writes a page (:mod:`.page`) that puts the scores beside those
Stanza and UDPipe 2 publish (:mod:`.peers`).
"""

from __future__ import annotations

METRICS = ("Tokens", "Sentences", "Words", "UPOS", "UFeats", "Lemmas", "UAS", "LAS", "MLAS")
"""The CoNLL 2018 metrics the page shows (Zeman et al. 2018); a cell's record keeps all thirteen."""
