"""The generation worker: `python -m speculative.worker` serves one model over HTTP with speculative decoding.

A generic generation service (docs/worker.md): it receives rendered prompts, knows no template, decodes up to
MAX_BATCH requests together on one thread behind a bounded FIFO queue, and streams text deltas as Server-Sent
Events.

| module | job |
|---|---|
| `app.py`, `routes.py` | the FastAPI app (loading in the background) and its three thin routes |
| `schemas.py` | the request body and the streamed events |
| `service.py` | `WorkerService`: admits a request (validation, 413/422/503) and streams its events |
| `model.py` | `LoadedModel`: target, tokenizer, methods (those needing a head only with one), generators, warm-up |
| `encoding.py` | prompt and context token ids: the chat template applied exactly once |
| `jobs.py`, `queue.py` | one request's job and its event channel; the bounded FIFO and the decoding thread |
| `decoding.py` | what the decoding thread does with its batch of jobs: start, deltas, done or error; cancellation |
| `metrics.py` | Prometheus metrics |
"""
