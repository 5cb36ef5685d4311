"""Speculative decoding engine: the target model runner, draft trees, verification and the generation loop."""
