"""Speculative decoding engine: the target model runner, draft trees, verification and the generation loop, and the
interfaces through which the loop calls drafters (`drafter`) and tree budgets (`tree_budget`)."""
