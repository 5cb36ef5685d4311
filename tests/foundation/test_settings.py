"""Settings: unset means the embedded default; `.env.example` values parse as production.

That `.env.example` lists every setting the code reads (and nothing else) is tests/deploy/test_settings_coverage.py.
"""

from pathlib import Path

import pytest
from dotenv import dotenv_values
from pydantic import ValidationError
from pydantic_settings import BaseSettings

from api.__main__ import main as api_main
from api.settings import ApiSettings
from ingest.settings import IngestSettings
from modelstore.device_names import resolve_dtype
from speculative.settings import SpeculativeSettings

ENV_EXAMPLE = Path(__file__).resolve().parents[2] / ".env.example"
ALL_SETTINGS: list[type[BaseSettings]] = [ApiSettings, IngestSettings, SpeculativeSettings]


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No setting leaks in from the machine running the tests."""
    for settings_class in ALL_SETTINGS:
        for name in settings_class.model_fields:
            monkeypatch.delenv(name.upper(), raising=False)


def _example_values() -> dict[str, str]:
    return {key: value for key, value in dotenv_values(ENV_EXAMPLE).items() if value is not None}


@pytest.mark.usefixtures("clean_environment")
def test_unset_settings_give_the_embedded_default() -> None:
    api = ApiSettings(_env_file=None)  # type: ignore[call-arg]
    ingest = IngestSettings(_env_file=None)  # type: ignore[call-arg]
    worker = SpeculativeSettings(_env_file=None)  # type: ignore[call-arg]

    assert api.database_url == ingest.database_url == "sqlite:///.data/vraagbaak.db"
    assert ingest.weaviate_url is None
    assert ingest.embedding_model == "google/embeddinggemma-300m"
    assert worker.generator_model == "google/gemma-3-270m"
    assert (worker.device, worker.dtype) == ("cpu", resolve_dtype("auto", "cpu"))
    assert api.hospital_name == "UZGent"


@pytest.mark.usefixtures("clean_environment")
def test_env_example_values_parse_as_production(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in _example_values().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("WORKER_TOKEN", "a-real-random-worker-token")  # the example's placeholder is refused

    api = ApiSettings(_env_file=None)  # type: ignore[call-arg]
    ingest = IngestSettings(_env_file=None)  # type: ignore[call-arg]
    worker = SpeculativeSettings(_env_file=None)  # type: ignore[call-arg]

    assert api.database_url.startswith("postgresql+psycopg://")
    assert str(ingest.weaviate_url) == "http://weaviate:8080/"
    assert ingest.embedding_model == "BAAI/bge-m3"
    assert worker.generator_model == "meta-llama/Meta-Llama-3-8B-Instruct"
    assert worker.eagle_head == "yuhuili/EAGLE-LLaMA3-Instruct-8B"
    assert (worker.device, worker.dtype) == ("cuda", "bfloat16")


@pytest.mark.parametrize(
    ("variable", "value", "accepted"),
    [
        ("DEVICE", "gpu", "cpu, cuda, cuda:N, mps"),
        ("DEVICE", "cuda:x", "cpu, cuda, cuda:N, mps"),
        ("DTYPE", "fp8", "float32"),
        ("DATABASE_URL", "mysql://root@localhost/x", "sqlite, postgresql+psycopg"),
        ("DATABASE_URL", "not a url", "not a database URL"),
        ("WEAVIATE_URL", "weaviate:8080", "URL"),
        ("WORKER_PORT", "99999", "less than or equal to 65535"),
        ("RETRIEVAL_ALPHA", "1.5", "less than or equal to 1"),
        ("RETRIEVAL_TOP_K", "0", "greater than or equal to 1"),
        ("RELEVANCE_FLOOR", "-0.1", "greater than or equal to 0"),
    ],
)
@pytest.mark.usefixtures("clean_environment")
def test_an_invalid_setting_is_refused_with_its_name_and_the_accepted_values(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, accepted: str
) -> None:
    monkeypatch.setenv(variable, value)
    owners = [cls for cls in ALL_SETTINGS if variable.lower() in cls.model_fields]

    for settings_class in owners:
        with pytest.raises(ValidationError) as raised:
            settings_class(_env_file=None)  # type: ignore[call-arg]
        message = str(raised.value)
        assert variable.lower() in message
        assert accepted in message


@pytest.mark.usefixtures("clean_environment")
def test_the_api_refuses_to_start_with_the_placeholder_secrets_of_env_example(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    for key, value in _example_values().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("OIDC_CLIENT_SECRET", "change-me-the-secret-the-provider-issued")

    assert api_main(["serve"]) == 2

    for name in ("DATABASE_URL", "SECRET_KEY", "WEAVIATE_API_KEY", "OIDC_CLIENT_SECRET"):
        assert name in caplog.text


@pytest.mark.usefixtures("clean_environment")
def test_real_secrets_are_no_placeholders(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in _example_values().items():
        monkeypatch.setenv(key, value.replace("change-me-to-a-long-random", "Xq3v9-long-random"))

    api = ApiSettings(_env_file=None)  # type: ignore[call-arg]

    assert api.placeholder_secrets(IngestSettings(_env_file=None)) == []  # type: ignore[call-arg]
