"""Signals the abstention study compares with the chat's coverage: each content word weighted by how specific it
is in the collection (BM25's IDF), or only the most specific word asked about (the figures: docs/evaluation.md,
"Knowing when it does not know").
"""

from collections.abc import Iterable, Mapping, Sequence

from api.dutch import Vocabulary, content_words
from ingest.search.bm25 import idf


def weighted_coverage(question: str, passages: Iterable[str], weights: Mapping[str, float]) -> float | None:
    """Coverage where each content word counts with its weight (1 for a word `weights` lacks): weighted by how
    specific a word is, a missing "kind" outweighs a found "patiënt". None: no content words, or no weight."""
    wanted = content_words(question)
    if not wanted:
        return None
    vocabulary = Vocabulary(passages)
    weight = [weights.get(word, 1.0) for word in wanted]
    total = sum(weight)
    if total <= 0:
        return None
    return sum(w for word, w in zip(wanted, weight, strict=True) if vocabulary.holds(word)) / total


def document_frequencies(words: Iterable[str], chunks: Sequence[Vocabulary]) -> dict[str, int]:
    """How many chunks hold each word, matched as coverage matches it (so "neonaat" counts the chunks that say
    "neonaten"): the specificity of a question word in the collection it is asked of."""
    return {word: sum(chunk.holds(word) for chunk in chunks) for word in dict.fromkeys(words)}


def idf_weights(frequencies: Mapping[str, int], chunks: int) -> dict[str, float]:
    """BM25's inverse document frequency of each word among `chunks` chunks: a word no chunk holds weighs most."""
    return {word: idf(chunks, holding) for word, holding in frequencies.items()}


def most_specific_found(question: str, passages: Iterable[str], weights: Mapping[str, float]) -> bool | None:
    """Whether the passages hold the question's most specific content word (the highest weight; the first of
    equals). None: the question has no content words."""
    wanted = content_words(question)
    if not wanted:
        return None
    specific = max(wanted, key=lambda word: weights.get(word, 1.0))
    return Vocabulary(passages).holds(specific)
