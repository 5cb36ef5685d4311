"""LoRA adaptation of the generator to the product's task (`python -m speculative.adapt`), and the adapter's
loading for serving: the worker merges it into the target, so speculative decoding runs on a plain model.

The package knows no prompt template: it trains on `prompt`/`target` strings that the API side renders
(`python -m research.adapt_data`).
"""
