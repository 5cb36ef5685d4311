"""Dutch RAG prompts for the GPU check, made from what ships with the repository: the sample procedures
(`samples/procedures/*.md`) and the sample questions (`samples/questions.csv`).

Each prompt is a question about one procedure with that procedure's sections as its passages (`Titel: …\\nTekst: …`,
as the index holds chunks), rendered as the chat renders it (`research.rendered_requests`). No retrieval runs, so
nothing but the repository is needed on a GPU machine; the prompts are of the length and kind the worker serves
(≈ 600–1,100 Gemma tokens at 2,400 characters of passages).
"""

import csv
import re
from pathlib import Path

from research.rendered_requests import RagPrompt, render

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
MIN_PASSAGE_CHARS = 80  # a shorter tail of the budget is left out rather than cut into a stub


def rag_prompts(count: int, passage_chars: int, samples: Path = SAMPLES) -> list[RagPrompt]:
    """`count` prompts, one document after the other (the first unused question of each), with at most
    `passage_chars` characters of passages each."""
    if count < 1 or passage_chars < 1:
        raise ValueError(f"count and passage_chars must be at least 1, got {count} and {passage_chars}")
    by_document = _questions_by_document(samples)
    if not by_document:
        raise FileNotFoundError(f"no sample questions with a sample procedure under {samples}")
    order = [
        (document, questions[round_])
        for round_ in range(max(len(questions) for questions in by_document.values()))
        for document, questions in sorted(by_document.items())
        if round_ < len(questions)
    ]
    prompts = []
    for document, question in (order * (count // len(order) + 1))[:count]:
        passages = _passages(samples / "procedures" / f"{document}.md", passage_chars)
        prompts.append(render(document, "dutch_rag", question, passages))
    return prompts


def _questions_by_document(samples: Path) -> dict[str, list[str]]:
    """The sample questions about exactly one procedure that is in `samples/procedures`, per procedure."""
    by_document: dict[str, list[str]] = {}
    with (samples / "questions.csv").open(encoding="utf-8", newline="") as rows:
        for row in csv.DictReader(rows):
            documents = [name for name in row["relevant_documents"].split(";") if name]
            if len(documents) != 1:
                continue
            stem = Path(documents[0]).stem
            if (samples / "procedures" / f"{stem}.md").is_file():
                by_document.setdefault(stem, []).append(row["question"].strip())
    return by_document


def _passages(path: Path, passage_chars: int) -> tuple[str, ...]:
    """The procedure's sections as chunks, in order, until `passage_chars` characters (the last one cut at a
    word; a tail under MIN_PASSAGE_CHARS left out)."""
    text = path.read_text(encoding="utf-8")
    front, _, body = text.removeprefix("---\n").partition("\n---\n")
    title_match = re.search(r"^title:\s*(.+)$", front, flags=re.MULTILINE)
    title = title_match.group(1).strip() if title_match else path.stem
    body = re.sub(r"<!--.*?-->", "", body, flags=re.DOTALL)  # layout hints of the PDF generator
    sections = [" ".join(section.split()) for section in re.split(r"^## ", body, flags=re.MULTILINE)]
    passages: list[str] = []
    left = passage_chars
    for section in filter(None, sections):
        if left < MIN_PASSAGE_CHARS and passages:
            break
        if len(section) > left:
            section = section[:left].rsplit(" ", 1)[0] or section[:left]
        passages.append(f"Titel: {title}\nTekst: {section}")
        left -= len(section)
    return tuple(passages)
