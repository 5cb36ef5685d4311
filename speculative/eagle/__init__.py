"""EAGLE-1/2 draft heads: the head model, its public checkpoint format, and EAGLE-2's dynamic tree policy."""
