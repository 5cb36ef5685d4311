"""Speculative decoding as served: the engine, its drafters and tree budgets, and the generation worker.

Imports point down (`.importlinter`): the `worker` on top, then `build`, which assembles a generator from the
settings; below it the drafters (with the method registry), the tree budgets and the adapter's loading, then the
EAGLE heads, and at the bottom the `engine`, which calls drafters and budgets only through its own interfaces
(`engine.drafter`, `engine.tree_budget`). The tools built on it (benchmarks, GPU check, head and adapter training)
live in `research`. docs/architecture.md has the table.
"""
