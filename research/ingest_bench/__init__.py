"""Benchmarks that write their own sections of `docs/benchmarks.md`.

`python -m research.ingest_bench --pdf PATH…` (ingestion: `ingestion.py`) and
`python -m research.ingest_bench.retrieval` (the chat's retriever: `retrieval.py`); both draw their synthetic corpora from `research.ingest_bench.synthetic` and share the
helpers of `common.py`.
"""
