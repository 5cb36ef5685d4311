"""The shipped sample PDFs: each known sentence is found on its page and in a chunk whose page range holds it."""

import json
import re
from pathlib import Path

import pytest

from ingest.metadata import DocumentTags
from ingest.pdf_reader import open_pdf
from ingest.pipeline import chunk_records, parse_pdf

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
FACTS = json.loads((SAMPLES / "facts.json").read_text(encoding="utf-8"))


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("fact", FACTS, ids=lambda fact: f"{fact['document']}-p{fact['page']}")
def test_a_sentence_known_to_be_on_page_n_maps_to_page_n(fact: dict[str, str | int]) -> None:
    with open_pdf(SAMPLES / "documents" / str(fact["document"]), max_bytes=10_000_000) as pdf:
        document = parse_pdf(pdf)
    sentence = _squash(str(fact["sentence"]))

    assert sentence in _squash(document.text.page_text(int(fact["page"])))
    holding = [
        record
        for record in chunk_records(document, DocumentTags(), chunk_size=800, chunk_overlap=160)
        if sentence in _squash(record.chunk)
    ]
    assert holding, "no chunk holds the sentence whole"
    assert all(record.page_start <= int(fact["page"]) <= record.page_end for record in holding)
    assert all(record.text == f"Titel: {document.title}\nTekst: {record.chunk}" for record in holding)
