"""llama.cpp's anchor: its answers end by the benchmark's rules, its figures sit beside an engine_bench run, and a
missing llama-cpp-python (no dependency of the project) is explained.

llama.cpp itself is not installed in the project's environment, so its token stream is stood in for by fixed
token lists: what is tested is the anchor's own loop (stops, timing, comparison), not llama.cpp.
"""

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from transformers import PreTrainedTokenizerBase

from research.engine_bench.llama_cpp_anchor import (
    AnchorError,
    answer,
    comparison,
    import_llama_cpp,
    summarize_anchor,
)
from research.engine_bench.measurement import Measurement
from research.engine_bench.prompts import BenchPrompt, EncodedPrompt

STOP_ID = 2


def _stream(tokens: Sequence[int]):  # type: ignore[no-untyped-def]
    def stream(prompt_ids: Sequence[int]) -> Iterator[int]:
        yield from tokens

    return stream


def _prompt(tokenizer: PreTrainedTokenizerBase, stop_strings: tuple[str, ...] = ()) -> EncodedPrompt:
    return EncodedPrompt(
        BenchPrompt("p1", "test", "vraag", stop_strings), tuple(tokenizer("vraag")["input_ids"])
    )


def _ids(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def test_an_answer_ends_at_a_stop_id_which_it_keeps(smollm2_tokenizer: PreTrainedTokenizerBase) -> None:
    tokens = [*_ids(smollm2_tokenizer, "Was de handen."), STOP_ID, *_ids(smollm2_tokenizer, " Daarna")]

    measured = answer(
        _stream(tokens), smollm2_tokenizer, _prompt(smollm2_tokenizer), frozenset({STOP_ID}), 64
    )

    assert measured.token_ids[-1] == STOP_ID and len(measured.token_ids) == tokens.index(STOP_ID) + 1
    assert (measured.text, measured.stop_reason) == ("Was de handen.", "stop_token")
    assert measured.decode_tokens == len(measured.token_ids) - 1


def test_an_answer_ends_at_the_token_completing_a_stop_string_cut_before_it(
    smollm2_tokenizer: PreTrainedTokenizerBase,
) -> None:
    tokens = _ids(smollm2_tokenizer, "Was de handen.\n[einde antwoord] en nog meer tekst hierna")
    prompt = _prompt(smollm2_tokenizer, ("[einde antwoord]",))

    measured = answer(_stream(tokens), smollm2_tokenizer, prompt, frozenset({STOP_ID}), 64)

    assert (measured.text, measured.stop_reason) == ("Was de handen.\n", "stop_string")
    assert "[einde antwoord]" in smollm2_tokenizer.decode(list(measured.token_ids))
    assert "[einde antwoord]" not in smollm2_tokenizer.decode(list(measured.token_ids[:-1]))


def test_an_answer_ends_at_the_token_limit(smollm2_tokenizer: PreTrainedTokenizerBase) -> None:
    tokens = _ids(smollm2_tokenizer, "een twee drie vier vijf zes zeven acht negen tien")

    measured = answer(_stream(tokens), smollm2_tokenizer, _prompt(smollm2_tokenizer), frozenset({STOP_ID}), 4)

    assert (len(measured.token_ids), measured.stop_reason) == (4, "length")


def test_llama_cpps_figures_are_set_beside_an_engine_bench_run() -> None:
    measured = [Measurement((5, 6, 7), "x", "stop_token", 2.0, 1.0, 2, 3, 1.0)]
    anchor = summarize_anchor([measured])
    report = {
        "setup": {"command": "python -m research.engine_bench …", "dtype": "bfloat16", "threads": 1,
                  "load_before": "1.00/1.00/1.00", "load_after": "1.10/1.00/1.00"},
        "methods": {
            "hf-greedy": {"decode_tokens_per_second": {"median": 1.0}, "first_token_seconds": {"median": 3.0}},
            "casd": {"decode_tokens_per_second": {"median": 4.0}, "first_token_seconds": {"median": 2.5}},
        },
        "answers": [
            {"prompt_id": "p1", "method": "hf-greedy", "token_ids": [5, 6, 7]},
            {"prompt_id": "p2", "method": "hf-greedy", "token_ids": [1]},
            {"prompt_id": "p1", "method": "casd", "token_ids": [5, 6, 7]},
        ],
    }  # fmt: skip

    compared = comparison(report, anchor, {"p1": (5, 6, 7)})

    assert (anchor.decode_tokens_per_second, anchor.first_token_seconds) == (2.0, 1.0)
    assert (compared["equal_to_hf_greedy"], compared["prompts"]) == (1, 1)
    assert compared["methods"]["casd"]["over_llama_cpp"] == 2.0
    assert compared["methods"]["hf-greedy"]["over_llama_cpp"] == 0.5
    with pytest.raises(AnchorError, match="same prompt set"):
        comparison(report, anchor, {"other": (1,)})


def test_a_folder_without_llama_cpp_is_refused_naming_the_option(tmp_path: Path) -> None:
    with pytest.raises(AnchorError, match="no llama_cpp package"):
        import_llama_cpp(tmp_path)
