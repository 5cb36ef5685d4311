"""The worker's request body and the events of its Server-Sent Events stream (docs/worker.md)."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# Bounds of a request, so that no body can make the worker tokenise or hold without end. A prompt of this many
# characters is some 100k tokens or more, beyond the context of every model we deploy (checked after tokenising).
MAX_PROMPT_CHARS = 500_000
MAX_CONTEXT_PASSAGES = 64
MAX_CONTEXT_CHARS = 500_000  # all passages together
MAX_STOP_STRINGS = 16
MAX_STOP_CHARS = 100
MAX_NEW_TOKENS = 32_768
MAX_DEADLINE_SECONDS = 3600.0
MAX_METHOD_CHARS = 64
# The largest body a valid request can need: every character of prompt and passages escaped in JSON (\uXXXX),
# plus room for the other fields. Larger bodies are refused before they are read (worker/app.py).
MAX_BODY_BYTES = 6 * (MAX_PROMPT_CHARS + MAX_CONTEXT_CHARS) + 64 * 1024

StopString = Annotated[str, Field(min_length=1, max_length=MAX_STOP_CHARS)]
EventName = Literal["start", "delta", "done", "error"]


class GenerateBody(BaseModel):
    """`POST /generate`. Unknown fields are refused, so a misspelt parameter is named instead of ignored."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(
        min_length=1, max_length=MAX_PROMPT_CHARS, description="The whole prompt, rendered by the client."
    )
    context: list[str] | None = Field(
        None,
        max_length=MAX_CONTEXT_PASSAGES,
        description="The passages CASD drafts from (the retrieved chunks); null = the whole prompt.",
    )
    stop: list[StopString] | None = Field(
        None, max_length=MAX_STOP_STRINGS, description="Stop strings; null = the STOP_STRINGS setting."
    )
    max_new_tokens: int | None = Field(
        None, ge=1, le=MAX_NEW_TOKENS, description="Answer length cap; null = MAX_NEW_TOKENS."
    )
    method: str | None = Field(
        None, min_length=1, max_length=MAX_METHOD_CHARS, description="Drafting method; null = DRAFT_METHOD."
    )
    deadline_seconds: float | None = Field(
        None,
        gt=0,
        le=MAX_DEADLINE_SECONDS,
        allow_inf_nan=False,
        description="Seconds from arrival until the answer ends; null = REQUEST_DEADLINE_SECONDS.",
    )

    @field_validator("context")
    @classmethod
    def _context_size(cls, passages: list[str] | None) -> list[str] | None:
        if passages is not None and sum(map(len, passages)) > MAX_CONTEXT_CHARS:
            raise ValueError(f"the passages hold more than {MAX_CONTEXT_CHARS} characters together")
        return passages


class StartEvent(BaseModel):
    queue_seconds: float
    prompt_tokens: int
    method: str


class DeltaEvent(BaseModel):
    text: str


class DoneEvent(BaseModel):
    stop_reason: Literal["eos", "stop_string", "length", "repetition", "deadline"]
    text: str
    stats: dict[str, Any]


class ErrorEvent(BaseModel):
    message: str


WorkerEvent = StartEvent | DeltaEvent | DoneEvent | ErrorEvent

EVENT_NAMES: dict[type[BaseModel], EventName] = {
    StartEvent: "start",
    DeltaEvent: "delta",
    DoneEvent: "done",
    ErrorEvent: "error",
}
