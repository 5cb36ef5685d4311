"""The adaptation data (`python -m research.adapt_data`) and its base-vs-adapted score: answers copied from
the passage in the product's prompt, "niet gevonden" over another article, whole articles held out."""

import json
from pathlib import Path

import pytest

from api.chat.abstention import NOT_FOUND_MESSAGE
from api.prompting import build_rag_prompt
from ingest.text_format import indexed_text
from research.adapt_data import ANSWER_END, answer_window, article_split
from research.adapt_data import main as build_main
from research.adapt_score import main as score_main

REPO_ROOT = Path(__file__).resolve().parents[2]
CONTEXTS = {
    "Rhein": "Der Rhein ist ein Fluss. Er ist 1230 Kilometer lang und fließt in die Nordsee. Basel liegt am Rhein.",
    "Tesla": "Tesla wurde 1856 geboren. Er arbeitete für Edison in New York. Später gründete er ein eigenes Labor.",
    "Warschau": "Warschau ist die Hauptstadt Polens. Die Stadt hat 1,7 Millionen Einwohner. Sie liegt an der Weichsel.",
}
QUESTIONS = {
    "Rhein": ("Wie lang ist der Rhein?", "1230 Kilometer"),
    "Tesla": ("Wann wurde Tesla geboren?", "1856"),
    "Warschau": ("Wie viele Einwohner hat Warschau?", "1,7 Millionen"),
}


def train_title(name: str) -> str:
    """`name` with the first suffix whose article falls in the training split (so the articles share one)."""
    return next(f"{name}_{k}" for k in range(100) if article_split(f"{name}_{k}") == "train")


def squad_file(path: Path, articles: dict[str, str] = CONTEXTS, question_id: str = "{title}-1") -> Path:
    data = [
        {
            "title": train_title(title),
            "paragraphs": [
                {
                    "context": context,
                    "qas": [
                        {
                            "id": question_id.format(title=title.lower()),
                            "question": QUESTIONS[title][0],
                            "answers": [
                                {
                                    "text": QUESTIONS[title][1],
                                    "answer_start": context.find(QUESTIONS[title][1]),
                                }
                            ],
                        }
                    ],
                }
            ],
        }
        for title, context in articles.items()
    ]
    path.write_text(json.dumps({"data": data}), encoding="utf-8")
    return path


def built_rows(tmp_path: Path, *arguments: str) -> list[dict[str, object]]:
    out = tmp_path / "data.jsonl"
    assert build_main([*arguments, "--out", str(out)]) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_the_target_is_the_passage_sentence_holding_the_answer() -> None:
    context = CONTEXTS["Rhein"]
    start = context.find("1230")
    window, sentence = answer_window(context, start, start + len("1230 Kilometer")) or ("", "")
    assert sentence == "Er ist 1230 Kilometer lang und fließt in die Nordsee."
    assert window == context
    short_window, _ = answer_window(context, start, start + 4, limit=60) or ("", "")
    assert short_window == sentence  # no neighbouring sentence fits in 60 characters
    crossing = context.find("Fluss")
    assert answer_window(context, crossing, context.find("lang")) is None


def test_rows_are_product_prompts_answered_from_the_passage_or_not_found(tmp_path: Path) -> None:
    rows = built_rows(
        tmp_path,
        "--xquad-de",
        str(squad_file(tmp_path / "de.json")),
        "--unanswerable-share",
        "1",
        "--distractor-share",
        "0",
    )
    answerable = {row["id"]: row for row in rows if row["answer"] is not None}
    unanswerable = [row for row in rows if row["answer"] is None]
    rhein = answerable["xquad-de-rhein-1"]
    chunk = indexed_text(train_title("Rhein").replace("_", " "), CONTEXTS["Rhein"])
    assert rhein["prompt"] == build_rag_prompt("Wie lang ist der Rhein?", [chunk])
    assert rhein["target"] == f"Er ist 1230 Kilometer lang und fließt in die Nordsee.\n{ANSWER_END}"
    assert rhein["split"] == "train" and rhein["stop"] == ["[einde antwoord]", "[begin"]
    assert len(unanswerable) == 3
    for row in unanswerable:
        assert row["target"] == f"{NOT_FOUND_MESSAGE}\n{ANSWER_END}"
        own_context = CONTEXTS[str(row["article"]).split("_")[0]]
        assert own_context not in str(row["prompt"])


def test_whole_articles_are_held_out_alike_in_every_language() -> None:
    titles = [f"Article_{number}" for number in range(400)]
    splits = [article_split(title) for title in titles]
    assert splits == [article_split(title) for title in titles]
    shares = {split: splits.count(split) / len(splits) for split in ("train", "val", "test")}
    assert 0.15 < shares["test"] < 0.25 and 0.04 < shares["val"] < 0.12


def test_dutch_rows_come_from_the_sample_procedures_never_from_the_held_out_set(tmp_path: Path) -> None:
    rows = built_rows(tmp_path, "--samples", str(REPO_ROOT / "samples"))
    answerable = [row for row in rows if row["answer"] is not None]
    assert len(answerable) >= 25 and all(row["split"] == "train" for row in rows)
    assert all(str(row["answer"]) in str(row["prompt"]) for row in answerable)
    assert all(str(row["answer"]).split()[0] in str(row["target"]) for row in answerable)
    held_out = (REPO_ROOT / "samples" / "heldout" / "questions.csv").read_text(encoding="utf-8")
    assert not any(f"\n{row['question']}," in held_out for row in rows)


def test_bad_sources_and_duplicate_ids_are_clear_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"data": [{"title": "X", "paragraphs": [{"qas": []}]}]}), encoding="utf-8")
    with pytest.raises(SystemExit, match=r"broken.json: not in SQuAD format: Field required"):
        build_main(["--xquad-de", str(broken), "--out", str(tmp_path / "out.jsonl")])
    duplicated = squad_file(tmp_path / "dup.json", question_id="same")
    with pytest.raises(SystemExit, match="duplicate example ids: xquad-de-same"):
        build_main(["--xquad-de", str(duplicated), "--out", str(tmp_path / "out.jsonl")])
    with pytest.raises(SystemExit, match="no source"):
        build_main(["--out", str(tmp_path / "out.jsonl")])


def bench_results(path: Path, texts: dict[str, str]) -> Path:
    """The parts of a `research.engine_bench` results.json that the score reads."""
    path.write_text(
        json.dumps(
            {
                "methods": {
                    "hf-greedy": {
                        "degenerate_answers": 1,
                        "tau": 1.0,
                        "decode_tokens_per_second": {"mean": 9.5},
                    },
                    "casd": {"degenerate_answers": 1, "tau": 2.5, "decode_tokens_per_second": {"mean": 12.0}},
                },
                "answers": [
                    {"prompt_id": pid, "method": "hf-greedy", "text": text} for pid, text in texts.items()
                ],
            }
        ),
        encoding="utf-8",
    )
    return path


def test_the_score_counts_key_facts_and_not_found_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(
        "".join(
            json.dumps(row) + "\n"
            for row in [
                {"id": "a", "answer": "20 tot 30 seconden"},
                {"id": "b", "answer": "1,5 mg"},
                {"id": "c", "answer": None},
                {"id": "d", "question": "dosis morfine pca", "prompt": "…"},
            ]
        ),
        encoding="utf-8",
    )
    questions = tmp_path / "questions.csv"
    questions.write_text("question,answer\ndosis morfine pca,\n", encoding="utf-8")
    results = bench_results(
        tmp_path / "results.json",
        {
            "a": "Wrijf de handen 20 tot  30 Seconden.",
            "b": NOT_FOUND_MESSAGE,
            "c": NOT_FOUND_MESSAGE,
            "d": "Geef 5 mg.",
        },
    )
    assert (
        score_main(["--prompts", str(prompts), "--questions", str(questions), "--results", f"base={results}"])
        == 0
    )
    row = capsys.readouterr().out.splitlines()[-1]
    assert row == "| base | 1/2 (50%) | 1/4 | 1/2 (50%) | 1/2 | 2.50 | 12.00 | 9.50 |"
