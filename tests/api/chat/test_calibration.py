"""The chat's not-found rule as deployed: a dense gate calibrated per embedder stands in for an unset
ABSTAIN_MIN_DENSE, word coverage is off unless chosen, and an embedder nobody measured gets no gate at all."""

import pytest

from api.chat.abstention import AbstentionRule, Confidence
from api.chat.calibration import CALIBRATED_MIN_DENSE, calibrated_min_dense, deployed_rule
from api.chat.settings import MEASURED_MIN_COVERAGE, ChatSettings
from modelstore.registry import REGISTRY

E5_SMALL = "intfloat/multilingual-e5-small"


def chat(**settings: object) -> ChatSettings:
    return ChatSettings(_env_file=None, **settings)  # type: ignore[call-arg,arg-type]


def test_the_offline_embedder_has_a_calibrated_dense_gate_and_the_chat_uses_it_by_default() -> None:
    gate = calibrated_min_dense(E5_SMALL)

    assert gate is not None and 0.5 < gate < 1.0
    assert deployed_rule(chat(), E5_SMALL) == AbstentionRule(min_dense=gate, min_bm25=None, min_coverage=None)


def test_an_off_topic_question_is_refused_and_a_rephrased_one_near_the_passages_goes_to_the_generator() -> (
    None
):
    rule = deployed_rule(chat(), E5_SMALL)
    gate = CALIBRATED_MIN_DENSE[E5_SMALL]

    assert rule.abstains(Confidence(dense=gate - 0.05, bm25=0.0, coverage=1.0))  # every word, far in meaning
    assert not rule.abstains(Confidence(dense=gate + 0.01, bm25=0.0, coverage=0.0))  # none of its own words


def test_every_calibrated_gate_names_an_offline_embedder_and_lies_within_a_cosines_range() -> None:
    embedders = {spec.name for spec in REGISTRY.values() if spec.purpose.startswith("embedder")}

    assert set(CALIBRATED_MIN_DENSE) <= embedders
    assert all(0.0 < gate < 1.0 for gate in CALIBRATED_MIN_DENSE.values())


@pytest.mark.parametrize("embedding_model", ["BAAI/bge-m3", "/models/our-own-embedder"])
def test_an_embedder_without_a_calibrated_gate_gets_none_never_another_models_threshold(
    embedding_model: str,
) -> None:
    rule = deployed_rule(chat(), embedding_model)

    assert calibrated_min_dense(embedding_model) is None
    assert rule == AbstentionRule(None, None, None)
    assert not rule.abstains(Confidence(dense=0.1, bm25=0.1, coverage=0.0))


def test_a_dense_threshold_that_is_set_wins_over_the_calibrated_one() -> None:
    assert deployed_rule(chat(abstain_min_dense=0.9), E5_SMALL).min_dense == 0.9
    assert deployed_rule(chat(abstain_min_dense="-1"), E5_SMALL).min_dense == -1.0  # the gate switched off
    assert deployed_rule(chat(abstain_min_dense=""), E5_SMALL).min_dense == CALIBRATED_MIN_DENSE[E5_SMALL]


def test_word_coverage_is_off_by_default_and_stays_selectable() -> None:
    assert chat().abstain_min_coverage is None
    selected = deployed_rule(chat(abstain_min_coverage=str(MEASURED_MIN_COVERAGE)), E5_SMALL)

    assert selected.min_coverage == MEASURED_MIN_COVERAGE == 0.627
    assert selected.abstains(Confidence(dense=0.99, bm25=None, coverage=0.5))
