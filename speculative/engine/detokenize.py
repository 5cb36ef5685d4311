"""Incremental detokenisation: turn accepted token ids into text deltas without splitting a character.

Byte-level and byte-fallback tokenizers spread one multi-byte character (é, €, an emoji) over several tokens;
decoding them one at a time would yield U+FFFD replacement characters. `tokenizers`' `DecodeStream` holds tokens
back until their text is complete; this wrapper adds what it lacks: the text of whatever is still held back once
generation ends.
"""

from tokenizers import Tokenizer
from tokenizers.decoders import DecodeStream
from transformers import PreTrainedTokenizerBase


class IncrementalDetokenizer:
    """Feeds token ids one at a time and returns the text each one completes (special tokens hidden)."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase) -> None:
        backend = getattr(tokenizer, "backend_tokenizer", None)
        if not isinstance(backend, Tokenizer):
            raise TypeError(
                f"streaming needs a fast (tokenizers-backed) tokenizer, got {type(tokenizer).__name__}"
            )
        self._backend = backend
        self._stream = DecodeStream(skip_special_tokens=True)
        self._held: list[int] = []

    def push(self, token_id: int) -> str:
        """The new text once `token_id` is appended; empty while a character is still incomplete."""
        text = self._stream.step(self._backend, token_id)
        if text is None:
            self._held.append(token_id)
            return ""
        self._held.clear()
        return text

    def flush(self) -> str:
        """Whatever text is still held back (at the end of generation, even an incomplete character)."""
        tail = self._backend.decode(self._held, skip_special_tokens=True) if self._held else ""
        self._held.clear()
        return tail
