"""The answer under construction: accepted tokens go in, text deltas come out, and it knows when to stop.

Keeps the generation loop free of text concerns. Without a tokenizer (tests on raw ids) it tracks tokens only.
"""

from collections.abc import Sequence

from transformers import PreTrainedTokenizerBase

from speculative.engine.detokenize import IncrementalDetokenizer
from speculative.engine.stopping import RepetitionGuard, RepetitionRule, StopReason, StopStringMatcher


class Answer:
    """Token ids and text of one answer, cut at the first stop token, stop string or the token limit.

    A stop token is kept in `token_ids` (as `generate()` does) but never shown as text; with a stop string the
    token completing it is the last one kept and the text ends just before the string.
    """

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase | None,
        stop_token_ids: frozenset[int],
        stop_strings: Sequence[str],
        max_new_tokens: int,
        repetition: RepetitionRule | None = None,
    ) -> None:
        if stop_strings and tokenizer is None:
            raise ValueError("stop strings need a tokenizer")
        self._detokenizer = IncrementalDetokenizer(tokenizer) if tokenizer is not None else None
        self._stop_strings = StopStringMatcher(stop_strings)
        self._stop_token_ids = stop_token_ids
        self._max_new_tokens = max_new_tokens
        self._repetition = RepetitionGuard(repetition) if repetition is not None else None
        self.token_ids: list[int] = []
        self.text = ""
        self.stop_reason: StopReason | None = None

    @property
    def remaining_tokens(self) -> int:
        return self._max_new_tokens - len(self.token_ids)

    def add(self, tokens: Sequence[int]) -> str:
        """Append accepted tokens up to the first stop; returns the text that became final."""
        delta = ""
        for token in tokens:
            if self.stop_reason is not None:
                break
            self.token_ids.append(token)
            delta += self._add_one(token)
        return delta

    def stop(self, reason: StopReason) -> None:
        """End the answer from outside (a deadline); the tokens added so far stay."""
        if self.stop_reason is None:
            self.stop_reason = reason

    def finish(self) -> str:
        """The text still held back, once generation has ended."""
        if self.stop_reason is StopReason.STOP_STRING or self._detokenizer is None:
            return ""
        safe, hit = self._stop_strings.feed(self._detokenizer.flush())
        tail = safe if hit else safe + self._stop_strings.flush()
        self.text += tail
        return tail

    def _add_one(self, token: int) -> str:
        if token in self._stop_token_ids:
            self.stop_reason = StopReason.STOP_TOKEN
            return ""
        safe = ""
        if self._detokenizer is not None:
            safe, hit = self._stop_strings.feed(self._detokenizer.push(token))
            self.text += safe
            if hit:
                self.stop_reason = StopReason.STOP_STRING
        if self.stop_reason is None and self._repetition is not None and self._repetition.push(token):
            self.stop_reason = StopReason.REPETITION
        if self.stop_reason is None and self.remaining_tokens <= 0:
            self.stop_reason = StopReason.LENGTH
        return safe
