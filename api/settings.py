"""Settings of the web API, read from the environment and `.env`.

Unset values give the embedded default (SQLite under `.data/`, the worker on localhost); `.env.example` lists the
production values.
"""

from pathlib import Path

from pydantic import Field, SecretStr, field_validator
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
    hospital_name: str = Field("UZGent", min_length=1, description="Named in the prompt's role line.")
    api_host: str = "127.0.0.1"
    api_port: int = Field(8000, ge=1, le=65535)

    # accounts and sessions
    session_hours: float = Field(12, gt=0, description="A browser session ends this long after login.")
    cookie_secure: bool | None = Field(
        None, description="Secure flag of the session cookie; unset = set when the request came over HTTPS."
    )
    login_attempts: int = Field(5, ge=1, description="Failed logins per name and address within the window.")
    login_window_seconds: int = Field(900, ge=1, description="The window of LOGIN_ATTEMPTS.")

    # documents, uploads, ingestion jobs, evaluation reports, the front-end
    upload_dir: Path = Field(Path(".data/uploads"), description="Where uploaded PDFs are stored.")
    max_upload_mb: int = Field(50, ge=1, description="Larger uploads are refused with 413.")
    run_ingestion_jobs: bool = Field(
        True,
        description="Run queued ingestion jobs in the API process (embedded); false = the ingest container.",
    )
    report_dir: Path = Field(Path(".data/reports"), description="Evaluation reports, one folder per report.")
    frontend_dir: Path = Field(
        Path("frontend/dist"), description="The built front-end, served at / when it exists (embedded)."
    )

    @field_validator("database_url")
    @classmethod
    def _valid_database_url(cls, value: str) -> str:
        return check_database_url(value)
