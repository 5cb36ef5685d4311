"""Tree budgets: how many drafted nodes each verification forward carries (fixed, or adapted online)."""
