"""Benchmarks, checks, training and studies beside the product: what no served process runs. They import `api`,
`ingest`, `speculative` and `modelstore`, and none of those imports them (`.importlinter`).

| module | job |
|---|---|
| `gpu_check/` | `python -m research.gpu_check`: is a CUDA machine ready for the worker (`make gpu-check`) |
| `engine_bench/` | the speculative-decoding benchmark, its concurrency run and the worker over HTTP against the engine |
| `train_head/`, `adapt/` | EAGLE head training and the generator's LoRA adaptation; `training_state` their resumable state |
| `adapt_data`, `adapt_score` | the adapter's training data and its scoring |
| `reranker`, `train_reranker` | a cross-encoder made from the offline embedder, and its training (not shipped) |
| `local_process`, `loopback` | services in child processes on loopback: the worker, the web API, the report runner |
| `load`, `first_answer` | the API's load benchmark; a fresh demo's time to its first answer |
| `evaluate`, `offline_answers` | the retrieval and answer reports from the command line |
| `abstention/`, `quote_study` | the studies behind the chat's abstention rule and quote choice |
| `rendered_requests`, `rag_prompts` | the rendered RAG requests the generation benchmarks read; their command |
| `ingest_bench/` | the ingestion, conversion and retrieval benchmarks |
"""
