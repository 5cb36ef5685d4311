"""The concurrency benchmark (`python -m research.engine_bench.concurrency`): N answers at once, decoded together and
one at a time, with the same tokens, on the offline SmolLM2 (a CPU dry run of the GPU measurement)."""

import json
from pathlib import Path

import pytest

from research.engine_bench.concurrency import main, parse_args
from tests.speculative.conftest import SMOLLM2, cached_model

PROMPTS = [
    "The capital of France is",
    "Once upon a time, a dragon",
    "Hand hygiene: wash your hands for",
]


def test_answers_at_once_are_timed_together_and_one_at_a_time_with_equal_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"prompt": text, "stop": []}) + "\n" for text in PROMPTS))
    out = tmp_path / "report.json"

    main(
        [
            "--model", cached_model(SMOLLM2), "--prompts", f"rag:{prompts}", "--concurrency", "1,3",
            "--max-new-tokens", "8", "--threads", "1", "--out", str(out),
        ]
    )  # fmt: skip

    report = json.loads(out.read_text())
    assert report["answers_equal"] is True and report["dtype"] == "float32"
    assert [row["answers_equal"] for row in report["rows"]] == [1, 3]
    assert [row["concurrency"] for row in report["rows"]] == [1, 3]
    for row in report["rows"]:
        for mode in ("one_at_a_time", "together"):
            figures = row[mode]
            assert figures["total_tokens_per_second"] > 0
            assert 0 < figures["p50_latency_seconds"] <= figures["p95_latency_seconds"]
            assert 0 < figures["answer_tokens"] <= 8 * row["concurrency"]
    assert "| 3 |" in capsys.readouterr().out


@pytest.mark.parametrize(
    "option", [["--concurrency", "1,x"], ["--concurrency", "0"], ["--max-new-tokens", "0"]]
)
def test_bad_options_are_refused_with_their_name(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--model", "m", "--prompts", "rag:p.jsonl", *option])

    assert option[0] in capsys.readouterr().err
