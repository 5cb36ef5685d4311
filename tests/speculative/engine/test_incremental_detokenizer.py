"""Incremental detokenisation: text deltas never split a multi-byte character and add up to the whole answer."""

import pytest
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from speculative.engine.detokenize import IncrementalDetokenizer
from tests.speculative.conftest import GEMMA3, SMOLLM2, cached_model

REPLACEMENT_CHARACTER = "\ufffd"
TEXTS = [
    "Dosis: 5 µg/kg — één keer 😀 per dag, 37 °C 🩺",
    " Begin met een spatie, eindig met een emoji 🧑‍⚕️",
    "Ziekenhuis\n\n- paracetamol 1 g\n- ibuprofen 400 mg",
]


@pytest.fixture(
    scope="module", params=[SMOLLM2, GEMMA3], ids=["byte-level-bpe", "sentencepiece-byte-fallback"]
)
def tokenizer(request: pytest.FixtureRequest) -> PreTrainedTokenizerBase:
    return AutoTokenizer.from_pretrained(cached_model(request.param))


def _deltas(tokenizer: PreTrainedTokenizerBase, ids: list[int]) -> list[str]:
    detokenizer = IncrementalDetokenizer(tokenizer)
    return [detokenizer.push(token) for token in ids] + [detokenizer.flush()]


@pytest.mark.parametrize("text", TEXTS)
def test_the_deltas_add_up_to_decoding_the_whole_answer(
    tokenizer: PreTrainedTokenizerBase, text: str
) -> None:
    ids = tokenizer(text, add_special_tokens=False).input_ids

    assert "".join(_deltas(tokenizer, ids)) == tokenizer.decode(ids, skip_special_tokens=True)


@pytest.mark.parametrize("text", TEXTS)
def test_no_delta_holds_half_a_character(tokenizer: PreTrainedTokenizerBase, text: str) -> None:
    ids = tokenizer(text, add_special_tokens=False).input_ids

    assert not any(REPLACEMENT_CHARACTER in delta for delta in _deltas(tokenizer, ids))


def test_an_emoji_spread_over_byte_tokens_arrives_whole_with_its_last_byte() -> None:
    tokenizer = AutoTokenizer.from_pretrained(cached_model(SMOLLM2))
    ids = tokenizer(" 😀", add_special_tokens=False).input_ids
    assert len(ids) > 1, "the byte-level tokenizer should need several tokens for an emoji"

    deltas = _deltas(tokenizer, ids)

    assert deltas[:-2] == [""] * (len(ids) - 1)
    assert deltas[-2] == " 😀"


def test_special_tokens_are_not_shown() -> None:
    tokenizer = AutoTokenizer.from_pretrained(cached_model(SMOLLM2))
    ids = [
        *tokenizer("Klaar", add_special_tokens=False).input_ids,
        tokenizer.convert_tokens_to_ids("<|im_end|>"),
    ]

    assert "".join(_deltas(tokenizer, ids)) == "Klaar"


def test_flush_returns_an_incomplete_character_left_at_the_end() -> None:
    tokenizer = AutoTokenizer.from_pretrained(cached_model(SMOLLM2))
    ids = tokenizer("ok 😀", add_special_tokens=False).input_ids[:-1]  # the emoji's last byte never came
    detokenizer = IncrementalDetokenizer(tokenizer)

    streamed = "".join(detokenizer.push(token) for token in ids)

    assert streamed == "ok"
    assert detokenizer.flush().startswith(" ")
