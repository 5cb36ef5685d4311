"""Answers a clinician can check: the procedure's own sentence quoted first, each generated sentence traced to a
passage sentence or flagged (docs/api.md, events `quote` and `support`)."""
