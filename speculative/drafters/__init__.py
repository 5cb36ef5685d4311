"""Drafters propose draft trees for the engine to verify; `registry` maps method names to them."""

from speculative.drafters import eagle2  # noqa: F401  # registers the "eagle2" method with the registry
