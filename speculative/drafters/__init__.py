"""Drafters propose draft trees for the engine to verify; `registry` names them: the drafting methods."""
