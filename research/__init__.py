"""Benchmarks, studies and training-data tools beside the product: they import `api`, `ingest`, `speculative` and
`modelstore`, and none of those imports them (`.importlinter`).

`loopback` starts the generation worker and the web API as their own processes on loopback (the load benchmark,
the offline answer report and the end-to-end tests use it); `load` is the API's load benchmark; `evaluate` the
retrieval and answer reports from the command line; `abstention/` and `quote_study` the studies behind the chat's
abstention rule and quote choice; `adapt_data` and `adapt_score` the generator adapter's training data and its
scoring; `rag_prompts` the rendered RAG requests the generation benchmarks read; `ingest_bench/` the ingestion,
conversion and retrieval benchmarks.
"""
