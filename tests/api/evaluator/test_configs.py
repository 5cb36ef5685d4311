"""`--config NAME=SETTINGS`: unnamed settings keep the production default; mistakes are named."""

import pytest

from api.evaluator.configs import STUDY, ConfigError, RetrievalConfig, deployed_config, parse_config
from ingest.settings import IngestSettings


def test_a_configuration_names_only_what_it_changes() -> None:
    name, config = parse_config("bm25=alpha=0")

    assert name == "bm25"
    assert config == RetrievalConfig(alpha=0.0)
    assert config.describe() == {
        "alpha": "0",
        "title": "on",
        "chunk": "800/160",
        "embedder": "google/embeddinggemma-300m",
    }


def test_every_setting_can_be_given() -> None:
    name, config = parse_config(
        "klein=alpha=0.5, title=off, chunk=400/80, embedder=sentence-transformers/all-MiniLM-L6-v2"
    )

    assert (name, config.alpha, config.title_prefix, config.chunk_size, config.chunk_overlap) == (
        "klein",
        0.5,
        False,
        400,
        80,
    )
    assert config.embedder == "sentence-transformers/all-MiniLM-L6-v2"


@pytest.mark.parametrize(
    ("argument", "reason"),
    [
        ("alpha", "expected NAME=SETTINGS"),
        ("x=alpha=1.5", "less than or equal to 1"),
        ("x=alpha=hoog", "valid number"),
        ("x=title=misschien", "title must be on or off"),
        ("x=chunk=800", "SIZE/OVERLAP"),
        ("x=chunk=400/400", "overlap 400 must be below chunk size 400"),
        ("x=k1=1.2", "unknown setting 'k1'"),
        ("x=reranker=some/model,candidates=0", "greater than or equal to 1"),
        ("x=alpha", "'alpha' is not key=value"),
    ],
)
def test_mistakes_are_refused_with_the_reason(argument: str, reason: str) -> None:
    with pytest.raises(ConfigError, match=reason):
        parse_config(argument)


def test_configurations_that_differ_only_in_alpha_share_an_index() -> None:
    keys = {config.index_key() for config in STUDY.values()}

    assert RetrievalConfig(alpha=0.0).index_key() == RetrievalConfig(alpha=1.0).index_key()
    assert len(keys) == 4  # default, no title, other chunking, other embedder
    assert {config.alpha for config in STUDY.values()} == {0.0, 0.3, 0.5, 0.7, 1.0}


def test_a_reranker_is_named_with_the_candidates_it_orders_and_searches_the_same_index() -> None:
    _name, config = parse_config("reranked=reranker=vraagbaak/reranker-e5-small,candidates=30")

    assert (config.reranker, config.candidates) == ("vraagbaak/reranker-e5-small", 30)
    assert config.describe()["reranker"] == "vraagbaak/reranker-e5-small over 30"
    assert config.index_key() == RetrievalConfig().index_key()
    assert parse_config("plain=reranker=none")[1] == RetrievalConfig()


def test_the_deployed_configuration_is_the_settings_search() -> None:
    settings = IngestSettings(  # type: ignore[call-arg,unused-ignore]
        _env_file=None, retrieval_alpha=0.5, reranker_model="BAAI/bge-reranker-v2-m3", reranker_candidates=25
    )

    config = deployed_config(settings)

    assert (config.alpha, config.reranker, config.candidates) == (0.5, "BAAI/bge-reranker-v2-m3", 25)
    assert deployed_config(IngestSettings(_env_file=None)).reranker == ""  # type: ignore[call-arg,unused-ignore]


def test_repeats_are_passed_over_at_the_deployments_setting_or_as_a_configuration_says() -> None:
    settings = IngestSettings(_env_file=None, retrieval_repeat_min_chars=200)  # type: ignore[call-arg,unused-ignore]

    assert RetrievalConfig().repeats == 120
    assert deployed_config(settings).repeats == 200
    _name, kept = parse_config("before=repeats=0")
    assert kept.repeats == 0 and kept.describe()["repeats"] == "kept"
    assert kept.index_key() == RetrievalConfig().index_key()
    with pytest.raises(ConfigError, match="greater than or equal to 0"):
        parse_config("x=repeats=-1")
