"""Settings of the chat, read from the environment and `.env` (see `.env.example`, section "chat")."""

from typing import Annotated, Self

from pydantic import AnyHttpUrl, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# Word coverage's threshold from `python -m research.abstention.study` (docs/evaluation.md, "Knowing when it does
# not know"), for ABSTAIN_MIN_COVERAGE: off by default, because it refuses questions asked in other words than the
# documents' (docs/evaluation.md, "A dense gate instead of word coverage"). The dense gate is calibrated per
# embedder (api/chat/calibration.py); BM25's threshold depends on the collection, so it is off unless measured.
MEASURED_MIN_COVERAGE = 0.627
# From the quote-first comparison (docs/evaluation.md, "The generated answer"): with the quote first the offline
# generator's answer held the key fact for 7 of 40 real dev questions instead of 2.
DEFAULT_QUOTE_FIRST = True


class ChatSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    worker_urls: Annotated[list[AnyHttpUrl], NoDecode] = Field(
        [AnyHttpUrl("http://127.0.0.1:8001")],
        min_length=1,
        description="Generation workers, comma-separated; each request goes to the least-loaded ready one.",
    )
    worker_token: SecretStr | None = Field(
        None,
        description="Bearer token sent with every request to the workers (their WORKER_TOKEN); unset = none, "
        "for workers on the loopback address.",
    )
    worker_health_ttl_seconds: float = Field(
        1.0, ge=0.0, description="How long a worker's /health answer is trusted before it is asked again."
    )
    worker_timeout_seconds: float = Field(
        5.0, gt=0.0, description="Connecting to a worker and its /health answer; not the generation."
    )
    worker_silence_seconds: float = Field(
        60.0,
        gt=0.0,
        description="How long a worker may send nothing at all (no event, no keep-alive) before the API gives up "
        "on the answer: it stores what was generated, stopped as `worker_silent`, and tells the user. A worker "
        "sends a keep-alive every 15 s while a request waits in its queue, so keep this well above 15.",
    )
    answer_save_retry_seconds: float = Field(
        30.0,
        ge=0.0,
        description="How long an answer that ended while the database did not answer keeps its stream open trying "
        "to store itself; then the user is told it is not saved yet and it is stored once the database is back.",
    )
    worker_retry_after_seconds: int = Field(
        5, ge=1, description="Retry-After sent with 503 when no worker is ready (unless a worker says more)."
    )
    chat_concurrent_per_user: int = Field(
        2,
        ge=1,
        description="Questions one user may have answered at the same time (over all API processes); more: 429.",
    )
    stop_poll_seconds: float = Field(
        0.25,
        gt=0.0,
        description="How often a process streaming answers reads the stops sent to any API process.",
    )
    answer_max_new_tokens: int | None = Field(
        None, ge=1, description="Answer length cap in tokens; unset = the worker's MAX_NEW_TOKENS."
    )
    answer_quote_first: bool = Field(
        DEFAULT_QUOTE_FIRST,
        description="Put the chosen quote (the sentence that answers, with its document's title) before the "
        "retrieved passages in the prompt, so the generator reads the best passage first.",
    )
    answer_deadline_seconds: float | None = Field(
        None, gt=0.0, description="Wall time for one answer; unset = the worker's REQUEST_DEADLINE_SECONDS."
    )
    answer_timeout_seconds: float = Field(
        180.0,
        gt=0.0,
        description="The API's own limit on one answer, from the question's arrival to the worker's last event, "
        "keep-alives or not: past it the answer ends as `worker_timeout` and the user is told. Keep it above "
        "ANSWER_DEADLINE_SECONDS (and the workers' REQUEST_DEADLINE_SECONDS, 120), which end a normal answer first.",
    )
    retrieval_only: bool | None = Field(
        None,
        description="true = never generate (documents and passages only); false = never allow retrieval-only; "
        "unset = each request chooses.",
    )
    abstain_min_dense: float | None = Field(
        None,
        description="Answer only when the best chunk's raw dense cosine reaches this, or BM25 vouches (unset: the "
        "gate calibrated for EMBEDDING_MODEL, none for an embedder without one; -1: no dense gate).",
    )
    abstain_min_bm25: float | None = Field(
        None,
        description="Answer when the best chunk's raw BM25 score reaches this (unset: the leg cannot vouch).",
    )
    abstain_min_coverage: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="Answer only when the retrieved passages hold this share of the question's content words "
        f"(unset: not asked; {MEASURED_MIN_COVERAGE} was measured for Dutch).",
    )

    @field_validator(
        "retrieval_only",
        "worker_token",
        "answer_max_new_tokens",
        "answer_deadline_seconds",
        "abstain_min_dense",
        "abstain_min_bm25",
        "abstain_min_coverage",
        mode="before",
    )
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if value == "" else value

    @model_validator(mode="after")
    def _timeout_after_the_deadline(self) -> Self:
        """The worker's deadline ends a normal answer; the API's timeout is only for a worker that cannot."""
        if (
            self.answer_deadline_seconds is not None
            and self.answer_timeout_seconds <= self.answer_deadline_seconds
        ):
            raise ValueError("ANSWER_TIMEOUT_SECONDS must be more than ANSWER_DEADLINE_SECONDS")
        return self

    @field_validator("worker_urls", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value
