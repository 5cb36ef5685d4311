"""The generator's LoRA adapter as served: its files checked (`artifact`) and merged into the target at start
(`merge`), so speculative decoding runs on a plain model. Training one is `python -m research.adapt`.
"""
