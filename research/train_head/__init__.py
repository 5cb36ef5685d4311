"""Train EAGLE-1/2 draft heads for any target: feature extraction, draft vocabulary, training, command line.

`python -m research.train_head extract …` teacher-forces the frozen target over documents and RAG-shaped
sequences and streams its features to shards; `… train …` fits a head on them and saves it in the public format
with a reduced draft vocabulary (`d2t`). See docs/speculative-engine.md, "Training a head".
"""
