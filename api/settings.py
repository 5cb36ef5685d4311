"""Settings of the web API, read from the environment and `.env`.

Unset values give the embedded default (SQLite under `.data/`, the worker on localhost); `.env.example` lists the
production values.
"""

import ipaddress
from pathlib import Path
from typing import Self

from authlib.common.security import is_secure_transport
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ingest.database import check_database_url
from ingest.settings import IngestSettings

PLACEHOLDER = "change-me"


def _is_loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ProcessSettings(BaseSettings):
    """What every long-running process of the api package reads: the API (`python -m api`) and the report runner
    (`python -m api reports`)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        "sqlite:///.data/vraagbaak.db", description="sqlite:///… or postgresql+psycopg://…"
    )
    hospital_name: str = Field("UZGent", min_length=1, description="Named in the prompt's role line.")

    # several processes over one database (docs/operations.md, "More API processes")
    instance_heartbeat_seconds: float = Field(
        5.0,
        gt=0,
        description="How often each process (API, report runner) records that it is alive and closes what the "
        "dead ones left (answers, evaluation reports).",
    )
    instance_stale_seconds: float = Field(
        30.0,
        gt=0,
        description="A process silent this long is gone: the answers it was generating and the report it was "
        "running are closed as interrupted. Keep it several heartbeats long.",
    )
    report_dir: Path = Field(Path(".data/reports"), description="Evaluation reports, one folder per report.")

    @field_validator("database_url")
    @classmethod
    def _valid_database_url(cls, value: str) -> str:
        return check_database_url(value)

    @model_validator(mode="after")
    def _stale_after_heartbeats(self) -> Self:
        """A live process that beats on time must never pass for a dead one."""
        if self.instance_stale_seconds <= 2 * self.instance_heartbeat_seconds:
            raise ValueError("INSTANCE_STALE_SECONDS must be more than twice INSTANCE_HEARTBEAT_SECONDS")
        return self


class ApiSettings(ProcessSettings):
    """The web API's settings (those of every process included)."""

    secret_key: SecretStr | None = Field(
        None, description="Signs sessions; unset = a random key per process (sessions end on restart)."
    )
    api_host: str = "127.0.0.1"
    api_port: int = Field(8000, ge=1, le=65535)

    # accounts and sessions
    session_hours: float = Field(12, gt=0, description="A browser session ends this long after login.")
    session_idle_minutes: float = Field(
        60, gt=0, description="A browser session also ends after this long without a request."
    )
    api_token_days: float = Field(
        90, gt=0, description="A new API token (`python -m api users token`) expires this many days later."
    )
    cookie_secure: bool | None = Field(
        None,
        description="Secure flag of the session cookies; unset = always set, except when API_HOST is a loopback "
        "address (the embedded mode), where it is set only for requests that came over HTTPS.",
    )
    login_attempts: int = Field(
        5,
        ge=1,
        description="Failed logins per name and client address within the window before further attempts on "
        "them wait (LOGIN_DELAY_SECONDS).",
    )
    login_attempts_per_address: int = Field(
        30,
        ge=1,
        description="Failed logins per client address (any names) within the window before further attempts "
        "from it wait, except a name that signed in from there before.",
    )
    login_attempts_per_account: int = Field(
        50,
        ge=1,
        description="Failed logins per name (any addresses) within the window before further attempts on it "
        "wait, except from an address it signed in from before.",
    )
    login_window_seconds: int = Field(900, ge=1, description="The window of the login counts.")
    login_known_client_days: float = Field(
        90,
        gt=0,
        description="A name that signed in from an address within this many days waits there only for its own "
        "failures, not for those of the address or the account.",
    )
    login_delay_seconds: float = Field(
        1.0,
        ge=0,
        description="The wait before a password check at the first failure past an allowance; it doubles with "
        "each further one. A correct password is never refused.",
    )
    login_max_delay_seconds: float = Field(10.0, ge=0, description="The longest such wait.")
    forwarded_allow_ips: str = Field(
        "127.0.0.1",
        description="Comma-separated addresses or networks of the reverse proxy whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed (the client address the login limits count); requests from anywhere "
        "else are taken at their own address.",
    )

    audit_retention_days: int = Field(
        365,
        ge=1,
        description="Audit log entries older than this are removed (checked hourly by each API process).",
    )
    audit_failed_sign_in_rows: int = Field(
        100,
        ge=1,
        description="Entries of refused sign-ins per login window (each address and outcome is one entry with a "
        "count); past it, the window's further refusals are counted in one entry per outcome.",
    )

    # single sign-on with the hospital's OpenID Connect provider (off unless OIDC_ISSUER is set)
    oidc_issuer: str | None = Field(
        None,
        description="The provider's issuer URL, exactly as its discovery document says; unset = SSO off.",
    )
    oidc_client_id: str | None = Field(None, description="Vraagbaak's client id at the provider.")
    oidc_client_secret: SecretStr | None = Field(
        None, description="Vraagbaak's client secret at the provider."
    )
    oidc_redirect_base_url: str | None = Field(
        None,
        description="Public URL of Vraagbaak as browsers reach it; the provider redirects back to "
        "{this}/api/auth/oidc/callback.",
    )
    oidc_scopes: str = Field("openid profile email", description="Scopes asked for; must include openid.")
    oidc_auto_provision: bool = Field(
        False,
        description="A provider account not linked to a user gets a new clinician account at its first login; "
        "false = an admin links it first (`python -m api users link`).",
    )
    oidc_username_claim: str = Field(
        "preferred_username", min_length=1, description="ID token claim naming an auto-provisioned user."
    )

    # documents, uploads, ingestion jobs, evaluation reports, the front-end
    upload_dir: Path = Field(Path(".data/uploads"), description="Where uploaded PDFs are stored.")
    documents_dir: Path | None = Field(
        None,
        description="The folder of documents ingested in bulk by path (`python -m ingest run`); when set, the "
        "API opens only files inside it or UPLOAD_DIR. Unset = any file ingestion recorded (embedded).",
    )
    max_upload_mb: int = Field(50, ge=1, description="Larger uploads are refused with 413.")
    run_ingestion_jobs: bool = Field(
        True,
        description="Run queued ingestion jobs in the API process (embedded); false = the ingest container.",
    )
    chat_warm_up: bool = Field(
        True,
        description="Build the chat's runtime (index, embedder) and search once at start, in the background, so the "
        "first question does not wait seconds for the embedder to load; false = on the first question.",
    )
    report_queue_limit: int = Field(
        20,
        ge=1,
        description="At most this many evaluation reports wait for a report runner; more are refused with 503.",
    )
    frontend_dir: Path = Field(
        Path("frontend/dist"), description="The built front-end, served at / when it exists (embedded)."
    )

    @property
    def document_folders(self) -> tuple[Path, ...] | None:
        """The folders the API may open documents' files from (None: any recorded file)."""
        return None if self.documents_dir is None else (self.upload_dir, self.documents_dir)

    @property
    def oidc_enabled(self) -> bool:
        return self.oidc_issuer is not None

    def cookie_is_secure(self, scheme: str) -> bool:
        """Secure unless said otherwise; only the embedded mode (the API on a loopback address, plain HTTP to
        the browser on the same machine) leaves it off for requests that did not come over HTTPS."""
        if self.cookie_secure is not None:
            return self.cookie_secure
        return scheme == "https" or not _is_loopback(self.api_host)

    def placeholder_secrets(self, ingest: IngestSettings) -> list[str]:
        """The settings still holding a `change-me-…` placeholder from `.env.example`."""
        values = {
            "DATABASE_URL": self.database_url,
            "SECRET_KEY": self.secret_key,
            "OIDC_CLIENT_SECRET": self.oidc_client_secret,
            "WEAVIATE_API_KEY": ingest.weaviate_api_key,
        }
        return [
            name
            for name, value in values.items()
            if value is not None
            and PLACEHOLDER in (value.get_secret_value() if isinstance(value, SecretStr) else value)
        ]

    @field_validator(
        "oidc_issuer", "oidc_client_id", "oidc_client_secret", "oidc_redirect_base_url", mode="before"
    )
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        """`OIDC_ISSUER=` in `.env` (or an empty variable passed by compose) means SSO off, not an empty URL."""
        return None if value == "" else value

    @model_validator(mode="after")
    def _complete_oidc(self) -> Self:
        """A half-configured SSO fails at start, not at a clinician's first login."""
        if self.oidc_issuer is None:
            return self
        missing = [
            name
            for name, value in (
                ("OIDC_CLIENT_ID", self.oidc_client_id),
                ("OIDC_CLIENT_SECRET", self.oidc_client_secret),
                ("OIDC_REDIRECT_BASE_URL", self.oidc_redirect_base_url),
            )
            if not value
        ]
        if missing:
            raise ValueError(f"OIDC_ISSUER is set, so {', '.join(missing)} must be set too")
        if not is_secure_transport(self.oidc_issuer):
            raise ValueError("OIDC_ISSUER must be an https URL (plain http only on the loopback address)")
        if "openid" not in self.oidc_scopes.split():
            raise ValueError("OIDC_SCOPES must include openid")
        return self
