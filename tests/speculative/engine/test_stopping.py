"""When an answer ends: every stop id of the model, stop strings (never shown, even split over tokens), the limit."""

import pytest
from transformers import AutoConfig, AutoTokenizer, GenerationConfig, LlamaConfig, PreTrainedTokenizerBase

from speculative.engine.answer import Answer
from speculative.engine.stopping import StopReason, StopStringMatcher, model_stop_token_ids
from tests.speculative.conftest import GEMMA3, SMOLLM2, cached_model


@pytest.fixture(scope="module")
def smollm2() -> PreTrainedTokenizerBase:
    return AutoTokenizer.from_pretrained(cached_model(SMOLLM2))


def _ids(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False).input_ids)


def test_gemma_stops_at_end_of_turn_as_well_as_eos() -> None:
    folder = cached_model(GEMMA3)
    tokenizer = AutoTokenizer.from_pretrained(folder)

    stops = model_stop_token_ids(
        AutoConfig.from_pretrained(folder), GenerationConfig.from_pretrained(folder), tokenizer
    )

    assert stops == {tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<end_of_turn>")}


def test_smollm2_stops_at_im_end(smollm2: PreTrainedTokenizerBase) -> None:
    stops = model_stop_token_ids(LlamaConfig(eos_token_id=None), None, smollm2)

    assert smollm2.convert_tokens_to_ids("<|im_end|>") in stops


def test_every_eos_id_of_the_generation_config_counts() -> None:
    # Llama-3-Instruct lists <|end_of_text|> and <|eot_id|> in its generation config
    stops = model_stop_token_ids(
        LlamaConfig(eos_token_id=128001), GenerationConfig(eos_token_id=[128001, 128009]), None
    )

    assert stops == {128001, 128009}


def test_a_stop_string_ends_the_text_before_it_and_drops_the_tokens_after_it(
    smollm2: PreTrainedTokenizerBase,
) -> None:
    answer = Answer(smollm2, frozenset(), ["[einde antwoord]"], max_new_tokens=100)
    ids = _ids(smollm2, "Neem 1 g paracetamol.\n[einde antwoord]\n\n[begin vraag] meer")

    streamed = answer.add(ids) + answer.finish()

    assert streamed == answer.text == "Neem 1 g paracetamol.\n"
    assert answer.stop_reason is StopReason.STOP_STRING
    assert str(smollm2.decode(answer.token_ids)).endswith("]")
    assert len(answer.token_ids) < len(ids)


def test_text_that_may_start_a_stop_string_is_held_back_until_it_cannot(
    smollm2: PreTrainedTokenizerBase,
) -> None:
    answer = Answer(smollm2, frozenset(), ["[einde antwoord]"], max_new_tokens=100)

    first = answer.add(_ids(smollm2, "Zie [ein"))
    second = answer.add(_ids(smollm2, "dtabel]"))

    assert first == "Zie "
    assert first + second == "Zie [eindtabel]"
    assert answer.stop_reason is None


def test_a_stop_token_ends_the_answer_is_kept_as_an_id_and_never_shown(
    smollm2: PreTrainedTokenizerBase,
) -> None:
    end = int(smollm2.convert_tokens_to_ids("<|im_end|>"))  # type: ignore[arg-type]
    answer = Answer(smollm2, frozenset({end}), [], max_new_tokens=100)

    text = answer.add([*_ids(smollm2, "Ja."), end, *_ids(smollm2, " Nee.")]) + answer.finish()

    assert text == "Ja."
    assert answer.token_ids == [*_ids(smollm2, "Ja."), end]
    assert answer.stop_reason is StopReason.STOP_TOKEN


def test_the_token_limit_cuts_inside_an_accepted_chunk() -> None:
    answer = Answer(None, frozenset(), [], max_new_tokens=3)

    answer.add([5, 6])
    answer.add([7, 8, 9])

    assert answer.token_ids == [5, 6, 7]
    assert answer.stop_reason is StopReason.LENGTH


def test_the_matcher_finds_the_earliest_of_several_stop_strings() -> None:
    matcher = StopStringMatcher(["STOP", "##"])

    assert matcher.feed("a ## b STOP") == ("a ", True)


def test_held_back_text_is_released_when_the_answer_ends() -> None:
    matcher = StopStringMatcher(["STOP"])

    assert matcher.feed("halt ST") == ("halt ", False)
    assert matcher.flush() == "ST"


def test_stop_strings_without_a_tokenizer_are_refused() -> None:
    with pytest.raises(ValueError, match="need a tokenizer"):
        Answer(None, frozenset(), ["STOP"], max_new_tokens=5)


def test_an_empty_stop_string_is_refused() -> None:
    with pytest.raises(ValueError, match="must not be empty"):
        StopStringMatcher([""])
