"""The speculative-decoding benchmark (`python -m research.engine_bench`), Spec-Bench's protocol on our engine.

Every method runs in the same process over the same loaded model, side by side: transformers' own `generate`
(greedy, and with prompt lookup, what a user would pick instead of us) and the engine's drafting methods. Batch 1,
greedy, the same prompt template, stops and token limit for all, and every answer counted up to the same stop.
"""
