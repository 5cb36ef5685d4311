"""Settings of the web API, read from the environment and `.env`.

Unset values give the embedded default (SQLite under `.data/`, the worker on localhost); `.env.example` lists the
production values.
"""

from pydantic import AnyHttpUrl, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ingest.database import check_database_url


class ApiSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        "sqlite:///.data/vraagbaak.db", description="sqlite:///… or postgresql+psycopg://…"
    )
    secret_key: SecretStr | None = Field(
        None, description="Signs sessions; unset = a random key per process (sessions end on restart)."
    )
    worker_url: AnyHttpUrl = Field(AnyHttpUrl("http://127.0.0.1:8001"), description="The generation worker.")
    hospital_name: str = Field("UZGent", min_length=1, description="Named in the prompt's role line.")
    api_host: str = "127.0.0.1"
    api_port: int = Field(8000, ge=1, le=65535)

    @field_validator("database_url")
    @classmethod
    def _valid_database_url(cls, value: str) -> str:
        return check_database_url(value)
