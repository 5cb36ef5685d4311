"""Speculative decoding: the engine, its drafters and tree budgets, the generation worker, and their tools.

Imports point down (`.importlinter`): `build` assembles a generator from the settings on top; below it the drafters
(with the method registry) and the tree budgets, then the EAGLE heads, and at the bottom the `engine`, which calls
drafters and budgets only through its own interfaces (`engine.drafter`, `engine.tree_budget`). The worker, the
benchmark, the GPU check and the adapter and head training build on `build`. docs/architecture.md has the table.
"""
