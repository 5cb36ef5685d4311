"""The worker's request body and the events of its Server-Sent Events stream (docs/worker.md)."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

StopString = Annotated[str, Field(min_length=1)]
EventName = Literal["start", "delta", "done", "error"]


class GenerateBody(BaseModel):
    """`POST /generate`. Unknown fields are refused, so a misspelt parameter is named instead of ignored."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1, description="The whole prompt, rendered by the client.")
    context: list[str] | None = Field(
        None, description="The passages CASD drafts from (the retrieved chunks); null = the whole prompt."
    )
    stop: list[StopString] | None = Field(None, description="Stop strings; null = the STOP_STRINGS setting.")
    max_new_tokens: int | None = Field(None, ge=1, description="Answer length cap; null = MAX_NEW_TOKENS.")
    method: str | None = Field(None, min_length=1, description="Drafting method; null = DRAFT_METHOD.")
    deadline_seconds: float | None = Field(
        None, gt=0, description="Seconds from arrival until the answer ends; null = REQUEST_DEADLINE_SECONDS."
    )


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
