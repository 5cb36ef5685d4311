"""LoRA adaptation of the generator to the product's task (`python -m research.adapt`): the examples read and
tokenized, the training loop, the command that writes a checked adapter (`speculative.adapt` serves it).

The package knows no prompt template: it trains on `prompt`/`target` strings that the API side renders
(`python -m research.adapt_data`).
"""
