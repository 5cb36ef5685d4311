"""Fixtures of the tools built on the engine (GPU check, engine benchmark, head and adapter training): the engine
tests' own (tests/speculative/conftest.py), one torch thread per test module among them."""

from tests.speculative.conftest import _one_torch_thread, reference_greedy, smollm2_tokenizer

__all__ = ["_one_torch_thread", "reference_greedy", "smollm2_tokenizer"]
