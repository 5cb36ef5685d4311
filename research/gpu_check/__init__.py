"""`python -m research.gpu_check`: is a CUDA machine ready for the worker? One command, a Markdown report.

| module | job |
|---|---|
| `plan.py` | what each check runs: the full shapes on a GPU, tiny ones in the CPU dry run |
| `lossless.py` | the engine's lossless tests (fp32 token-exact, bf16 near-tie rule) in a pytest child on the device |
| `worker_model.py` | a random-weight Llama of `worker_model.json` and a byte-level tokenizer, written to a folder |
| `worker_stream.py` | `python -m speculative.worker` on the device with that model, one answer streamed over HTTP |
| `tree_rows.py` | verification step time per tree size for a Llama-3-8B-shaped model against the HBM limit |
| `report.py` | the Markdown report |
"""
