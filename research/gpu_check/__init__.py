"""`python -m research.gpu_check` (`make gpu-check`): is a CUDA machine ready for the worker? One command, a
Markdown report; without CUDA the same steps run on the CPU with tiny shapes (the dry run).

| module | job |
|---|---|
| `__main__.py` | the command: runs the plan's checks in order, writes the report, exits non-zero on a failure |
| `plan.py` | what each check runs: the full shapes on a GPU, tiny ones in the CPU dry run |
| `checks.py` | the result every check hands to the report |
| `tree_rows.py` | verification step time per tree size for a Llama-3-8B-shaped model against the HBM limit |
| `verify_graphs.py` | the verify step eager, with CUDA graphs and fused (compiled), per tree size |
| `decoding.py` | the decoding workload the next two checks share: a random-weight model through one `BatchDecoder` |
| `engine_overhead.py` | what a decoding step costs besides the target's verify forward |
| `batched.py` | throughput with N answers decoded together (continuous batching) |
| `generator_speed.py` | the shipped generator (`casd`, `eagle2+casd`) against compiled greedy `generate()` |
| `shaped_generator.py` | the same comparison on a random-weight model of its shape, where its weights are missing |
| `rag_prompts.py` | the Dutch RAG prompts of that comparison, made from the samples |
| `lossless.py` | the engine's lossless tests (fp32 token-exact, bf16 near-tie rule) in a pytest child on the device |
| `worker_model.py` | a random-weight Llama of `worker_model.json` and a byte-level tokenizer, written to a folder |
| `worker_stream.py` | `python -m speculative.worker` on the device with that model, one answer streamed over HTTP |
| `step_profile.py` | a few decoding steps under `torch.profiler`: host and device time, kernel launches, waits |
| `report.py` | the Markdown report |
"""
