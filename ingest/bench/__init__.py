"""Benchmarks that write their own sections of `docs/benchmarks.md`.

`python -m ingest.bench --pdf PATH…` (ingestion: `ingestion.py`) and `python -m ingest.bench.retrieval`
(the chat's retriever: `retrieval.py`); both draw their synthetic corpora from `ingest.bench.synthetic` and share the
helpers of `common.py`.
"""
