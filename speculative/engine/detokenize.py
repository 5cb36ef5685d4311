"""Incremental detokenisation: turn accepted token ids into text deltas without splitting a character.

Byte-level and byte-fallback tokenizers spread one multi-byte character (é, €, an emoji) over several tokens;
decoding them one at a time yields U+FFFD replacement characters. Decoding a sliding window of tokens and
emitting only the stable, complete extension of the text avoids that, and keeps the join of all deltas equal to
decoding the whole answer at once (tokenizers that strip a leading space decode both windows the same way).
"""

from transformers import PreTrainedTokenizerBase

REPLACEMENT_CHARACTER = "\ufffd"


class IncrementalDetokenizer:
    """Feeds token ids one at a time and returns the text each one completes."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase) -> None:
        self._tokenizer = tokenizer
        self._ids: list[int] = []
        self._prefix_offset = 0
        self._read_offset = 0

    def push(self, token_id: int) -> str:
        """The new text once `token_id` is appended; empty while a character is still incomplete."""
        self._ids.append(token_id)
        emitted = self._decode(self._prefix_offset, self._read_offset)
        current = self._decode(self._prefix_offset, len(self._ids))
        if len(current) <= len(emitted) or current.endswith(REPLACEMENT_CHARACTER):
            return ""
        self._prefix_offset, self._read_offset = self._read_offset, len(self._ids)
        return current[len(emitted) :]

    def flush(self) -> str:
        """Whatever text is still held back (at the end of generation, even an incomplete character)."""
        emitted = self._decode(self._prefix_offset, self._read_offset)
        current = self._decode(self._prefix_offset, len(self._ids))
        self._prefix_offset = self._read_offset = len(self._ids)
        return current[len(emitted) :]

    def _decode(self, start: int, end: int) -> str:
        return str(self._tokenizer.decode(self._ids[start:end], skip_special_tokens=True))
