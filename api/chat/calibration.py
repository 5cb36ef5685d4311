"""The chat's not-found rule as deployed: the ABSTAIN_* settings, and where ABSTAIN_MIN_DENSE is unset the dense
gate calibrated for the embedder.

The dense gate refuses a question whose best retrieved chunk's raw cosine lies below a threshold: far from every
passage, off-topic. A cosine holds for one embedder only (e5-small's lie around 0.8–0.9, BGE-M3's elsewhere), so
each threshold is measured for its model by `python -m research.abstention.study --whole-index` on the real
development part: the strictest that refuses no more than 5 % of its answerable questions, literal and
paraphrased together (docs/evaluation.md, "A dense gate instead of word coverage"). An embedder without an entry
here gets no dense gate, never another model's threshold: the chat then asks the generator about every question,
and its own "niet gevonden" (`abstention.says_not_found`) is the only refusal. What is near the topic goes to the
generator either way: a cosine cannot tell "the leaflet is about INR" from "the leaflet gives this INR target".
"""

from collections.abc import Mapping
from types import MappingProxyType

from api.chat.abstention import AbstentionRule
from api.chat.settings import ChatSettings

CALIBRATED_MIN_DENSE: Mapping[str, float] = MappingProxyType(
    {
        "intfloat/multilingual-e5-small": 0.830,  # docs/evaluation.md, "A dense gate instead of word coverage"
        "google/embeddinggemma-300m": 0.369,  # docs/evaluation.md, "EmbeddingGemma-300M as the embedder"
    }
)


def calibrated_min_dense(embedding_model: str) -> float | None:
    """The dense gate measured for `embedding_model` (its Hugging Face name); None where none was measured."""
    return CALIBRATED_MIN_DENSE.get(embedding_model)


def deployed_rule(chat: ChatSettings, embedding_model: str) -> AbstentionRule:
    """The rule the chat abstains by: ABSTAIN_MIN_DENSE, or when it is unset the embedder's calibrated gate; the
    BM25 and coverage thresholds as set (both off unless set)."""
    min_dense = chat.abstain_min_dense
    if min_dense is None:
        min_dense = calibrated_min_dense(embedding_model)
    return AbstentionRule(min_dense, chat.abstain_min_bm25, chat.abstain_min_coverage)
