"""Token ids of a prompt and of its context passages, as the model must see them.

A chat model gets the prompt as one user turn of its chat template, applied exactly once: the rendered template
already holds the special tokens (BOS, turn markers), so it is tokenised without adding them again. A base model
gets the prompt as is, with the tokenizer's usual special tokens.
"""

from collections.abc import Sequence
from typing import Literal

from transformers import PreTrainedTokenizerBase

ChatTemplateMode = Literal["auto", "none"]


def chat_turn_ids(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    """`text` as the one user turn of the tokenizer's chat template, ready for the assistant's answer."""
    messages = [{"role": "user", "content": text}]
    rendered = str(tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
    return list(tokenizer(rendered, add_special_tokens=False)["input_ids"])


class PromptEncoder:
    """Encodes prompts and CASD contexts for one model; `chat` says whether prompts become a chat turn."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, mode: ChatTemplateMode) -> None:
        self._tokenizer = tokenizer
        self.chat = mode == "auto" and bool(tokenizer.chat_template)

    def prompt_ids(self, prompt: str) -> list[int]:
        if self.chat:
            return chat_turn_ids(self._tokenizer, prompt)
        return list(self._tokenizer(prompt)["input_ids"])

    def context_ids(self, passages: Sequence[str]) -> list[int]:
        """The passages one per line, without special tokens: the text CASD copies from."""
        return list(self._tokenizer("\n".join(passages), add_special_tokens=False)["input_ids"])
