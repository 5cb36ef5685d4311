"""When an answer ends: the model's stop token ids, stop strings, a repetition loop, the token limit, a deadline.

A speculative step accepts several tokens at once, so stopping is decided token by token inside the accepted
chunk and everything after the stop is dropped. Stop strings are matched on the decoded text; text that could
still become a stop string is held back, so a stop string never reaches the stream even when split over tokens.
"""

import enum
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from transformers import GenerationConfig, PretrainedConfig, PreTrainedTokenizerBase

# End-of-turn tokens of chat templates that are not always listed as EOS in a converted config.
END_OF_TURN_TOKENS = ("<|eot_id|>", "<end_of_turn>", "<|im_end|>", "<|end|>", "<|eom_id|>")


class StopReason(enum.StrEnum):
    STOP_TOKEN = "stop_token"
    STOP_STRING = "stop_string"
    LENGTH = "length"
    REPETITION = "repetition"
    DEADLINE = "deadline"


def _as_ids(value: int | Iterable[int] | None) -> set[int]:
    if value is None:
        return set()
    return {value} if isinstance(value, int) else set(value)


def model_stop_token_ids(
    config: PretrainedConfig,
    generation_config: GenerationConfig | None,
    tokenizer: PreTrainedTokenizerBase | None,
) -> frozenset[int]:
    """Every id that ends an answer: EOS of the config, the generation config and the tokenizer, and end-of-turn."""
    ids = _as_ids(getattr(config, "eos_token_id", None))
    if generation_config is not None:
        ids |= _as_ids(generation_config.eos_token_id)
    if tokenizer is not None:
        ids |= _as_ids(tokenizer.eos_token_id)
        vocabulary = tokenizer.get_vocab()
        ids |= {vocabulary[token] for token in END_OF_TURN_TOKENS if token in vocabulary}
    return frozenset(ids)


class StopStringMatcher:
    """Finds stop strings in streamed text and holds back any tail that could still start one."""

    def __init__(self, stop_strings: Sequence[str]) -> None:
        if any(not stop for stop in stop_strings):
            raise ValueError("stop strings must not be empty")
        self._stop_strings = tuple(stop_strings)
        self._pending = ""

    def feed(self, delta: str) -> tuple[str, bool]:
        """The text safe to emit after `delta`, and whether a stop string has appeared (text cut before it)."""
        self._pending += delta
        found = [index for stop in self._stop_strings if (index := self._pending.find(stop)) >= 0]
        if found:
            safe, self._pending = self._pending[: min(found)], ""
            return safe, True
        held = self._held_back_length()
        safe, self._pending = (
            self._pending[: len(self._pending) - held],
            self._pending[len(self._pending) - held :],
        )
        return safe, False

    def flush(self) -> str:
        """The held-back tail, once no more text will come."""
        tail, self._pending = self._pending, ""
        return tail

    def _held_back_length(self) -> int:
        """Length of the longest tail of the pending text that is a proper prefix of a stop string."""
        for length in range(min(len(self._pending), max(map(len, self._stop_strings), default=1) - 1), 0, -1):
            tail = self._pending[-length:]
            if any(stop.startswith(tail) for stop in self._stop_strings):
                return length
        return 0


@dataclass(frozen=True)
class RepetitionRule:
    """An answer loops once at least `share` of its last `window` n-grams each repeat an earlier n-gram of it.

    Fluent text, even one quoting a phrase twice, repeats few n-grams; a model stuck repeating a sentence repeats
    nearly all of them, also when a number in the sentence changes from one round to the next. Only the answer
    counts: copying the prompt is what a RAG answer should do. The worker stops answers with this rule and the
    benchmark flags degenerate answers with it: one rule.
    """

    ngram: int = 4
    window: int = 32
    share: float = 0.5

    def __post_init__(self) -> None:
        if self.ngram < 1 or self.window < 1 or not 0 < self.share <= 1:
            raise ValueError(f"the repetition rule needs ngram ≥ 1, window ≥ 1 and 0 < share ≤ 1, got {self}")

    def loop_end(self, token_ids: Sequence[int]) -> int | None:
        """The number of tokens after which the rule fires (None: the answer does not loop)."""
        guard = RepetitionGuard(self)
        for count, token in enumerate(token_ids, start=1):
            if guard.push(token):
                return count
        return None


class RepetitionGuard:
    """Applies a `RepetitionRule` token by token, in O(1) per token."""

    def __init__(self, rule: RepetitionRule) -> None:
        self._rule = rule
        self._tokens: list[int] = []
        self._seen: set[tuple[int, ...]] = set()
        self._recent: deque[bool] = deque(maxlen=rule.window)
        self._recent_repeats = 0

    def push(self, token: int) -> bool:
        """Add the answer's next token; True once the answer loops."""
        self._tokens.append(token)
        if len(self._tokens) < self._rule.ngram:
            return False
        ngram = tuple(self._tokens[-self._rule.ngram :])
        if len(self._recent) == self._rule.window:
            self._recent_repeats -= self._recent[0]
        repeated = ngram in self._seen
        self._recent.append(repeated)
        self._recent_repeats += repeated
        self._seen.add(ngram)
        full = len(self._recent) == self._rule.window
        return full and self._recent_repeats >= self._rule.share * self._rule.window
