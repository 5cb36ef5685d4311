"""A generation request and its validation, done before any compute so bad input fails fast and clearly."""

from collections.abc import Sequence
from dataclasses import dataclass

from speculative.engine.stopping import RepetitionRule


class InvalidRequestError(ValueError):
    """The request cannot be served as given; the message says what to change."""


@dataclass(frozen=True)
class GenerationRequest:
    """Prompt token ids, the answer's token limit and extra stop strings (on top of the model's stop ids).

    `context_ids`: the tokens copying drafters (CASD) search instead of the prompt, e.g. the retrieved passages
    (None: the prompt). `repetition`: end the answer when it loops (None: never). `deadline`: a
    `time.monotonic()` instant after which the answer ends at the next step (None: no deadline).
    """

    prompt_ids: Sequence[int]
    max_new_tokens: int
    stop_strings: Sequence[str] = ()
    context_ids: Sequence[int] | None = None
    repetition: RepetitionRule | None = None
    deadline: float | None = None


def validate_request(request: GenerationRequest, context_length: int, vocab_size: int) -> None:
    """Raise `InvalidRequestError` unless the prompt and the answer fit the model."""
    prompt_length = len(request.prompt_ids)
    if prompt_length == 0:
        raise InvalidRequestError("the prompt is empty")
    if prompt_length >= context_length:
        raise InvalidRequestError(
            f"the prompt has {prompt_length} tokens but the model's context holds {context_length} tokens "
            "(prompt and answer together); shorten the prompt"
        )
    if request.max_new_tokens <= 0:
        raise InvalidRequestError(f"max_new_tokens must be at least 1, got {request.max_new_tokens}")
    if prompt_length + request.max_new_tokens > context_length:
        raise InvalidRequestError(
            f"max_new_tokens {request.max_new_tokens} is beyond the context: the prompt has {prompt_length} "
            f"tokens and the model holds {context_length}, so at most {context_length - prompt_length} new tokens"
        )
    tokens = [*request.prompt_ids, *(request.context_ids or ())]
    out_of_vocabulary = sorted({token for token in tokens if not 0 <= token < vocab_size})
    if out_of_vocabulary:
        raise InvalidRequestError(
            f"prompt or context token ids {out_of_vocabulary[:5]} are outside the model's vocabulary of {vocab_size}"
        )
    if any(not stop for stop in request.stop_strings):
        raise InvalidRequestError("stop strings must not be empty")
