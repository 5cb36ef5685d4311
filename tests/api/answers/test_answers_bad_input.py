"""Bad input on the way to the passage and the sentence that answer: a one-word question, one in English, one that
is only a number, a passage that is one long table, a document of 300 pages, an index with one document. Each
gets a clear result (a quote that holds what was asked, no quote, or the not-found decision) and nothing
crashes."""

from pathlib import Path

import pytest

from api.answers.quotes import QuoteRule, select_quote
from api.chat.abstention import AbstentionRule, Confidence
from api.chat.settings import MEASURED_MIN_COVERAGE
from api.chat.sources import source
from ingest.chunking import split_into_chunks
from ingest.document_text import single_page
from ingest.embedding import Embedder
from ingest.pdf_reader import open_pdf
from ingest.pipeline import parse_pdf
from ingest.retrieval import QuestionTruncator, Retriever
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord
from ingest.text_format import indexed_text
from modelstore.registry import ALL_MINILM_L6_V2
from tests.ingest.ingest_pdfs import long_pdf

PAGES = 300
# Word coverage (ABSTAIN_MIN_COVERAGE, off by default but selectable): this test's English embedder has no
# calibrated dense gate (api/chat/calibration.py), so coverage is the not-found rule a deployment would choose.
COVERAGE = AbstentionRule(min_dense=None, min_bm25=None, min_coverage=MEASURED_MIN_COVERAGE)


def _code(page: int) -> str:
    return f"P{page * 7 + 3:05d}"  # the code `long_pdf` prints on each page


@pytest.fixture(scope="module")
def one_document(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder, model_cache: Path) -> Retriever:
    """An index holding one generated document of 300 pages, chunked as ingestion chunks it."""
    folder = tmp_path_factory.mktemp("one-document")
    pdf = long_pdf(folder / "zorgprotocol.pdf", PAGES)
    with open_pdf(pdf, 50_000_000) as opened:
        parsed = parse_pdf(opened)
    chunks = split_into_chunks(parsed.text, 800, 160)
    records = [
        ChunkRecord(
            document_id="protocol",
            chunk_index=chunk.index,
            text=indexed_text(parsed.title, chunk.text),
            chunk=chunk.text,
            title=parsed.title,
            source_path=str(pdf),
            page_start=chunk.page_start,
            page_end=chunk.page_end,
            char_start=chunk.start,
            char_end=chunk.end,
        )
        for chunk in chunks
    ]
    index = EmbeddedIndex(folder / "index")
    index.put_document(records, minilm.embed_passages([record.text for record in records]))
    return Retriever(index, minilm, QuestionTruncator.for_model(ALL_MINILM_L6_V2, model_cache))


def _asked(retriever: Retriever, question: str) -> tuple[bool, dict[str, object] | None]:
    """What the chat decides for `question`: whether it abstains, and the quote it would show otherwise."""
    retrieval = retriever.retrieve(question)
    sources = [source(chunk) for chunk in retrieval.chunks]
    confidence = Confidence.of(
        ((c.dense, c.bm25) for c in retrieval.chunks),
        question,
        (f"{c.title}\n{c.text}" for c in retrieval.chunks),
    )
    return COVERAGE.abstains(confidence), select_quote(question, sources)


def test_a_300_page_document_alone_in_the_index_answers_from_its_page_212(one_document: Retriever) -> None:
    abstains, quote = _asked(one_document, f"afspraak met kenmerk {_code(212)}")

    assert not abstains
    assert quote is not None and quote["text"] == f"Afspraak met kenmerk {_code(212)}."
    assert int(str(quote["page_start"])) <= 212 <= int(str(quote["page_end"]))  # the passage's pages


def test_a_one_word_question_gets_a_quote_holding_that_word(one_document: Retriever) -> None:
    abstains, quote = _asked(one_document, "wondzorg")

    assert not abstains
    assert quote is not None and "wondzorg" in str(quote["text"])


def test_a_question_in_english_or_of_only_a_number_gets_no_quote(one_document: Retriever) -> None:
    """No Dutch content word to match: nothing is quoted rather than a sentence picked at random."""
    for question in ("How often should the parameters be checked?", "212", "15,5"):
        _, quote = _asked(one_document, question)
        assert quote is None, question


def test_a_question_the_one_document_does_not_answer_is_not_found(one_document: Retriever) -> None:
    abstains, _ = _asked(one_document, "insulinepomp ontkoppelen hoe lang bij kinderen")

    assert abstains


def test_a_passage_that_is_one_long_table_is_quoted_by_the_row_that_answers() -> None:
    rows = [f"Kamer {number} | Afdeling {number % 9} | {number * 3} bedden" for number in range(1, 300)]
    table = "Kamer | Afdeling | Bedden\n" + "\n".join(rows)
    sources = [{"document_id": "t", "title": "Beddenplan", "page_start": 1, "page_end": 4, "passage": table}]

    quote = select_quote("hoeveel bedden kamer 217", sources)

    assert quote is not None and quote["text"] == "Kamer 217 | Afdeling 1 | 651 bedden"
    any_row = select_quote("bedden", sources, QuoteRule(min_score=0.0))
    assert any_row is not None and len(str(any_row["text"])) <= QuoteRule().max_chars


def test_a_document_that_is_one_long_table_is_chunked_within_the_chunk_size() -> None:
    rows = [f"Kamer {number} | Afdeling {number % 9} | {number * 3} bedden" for number in range(1, 2000)]
    document = single_page("Beddenplan per kamer:\n" + "\n".join(rows))

    chunks = split_into_chunks(document, 800, 160)

    assert all(len(chunk.text) <= 800 for chunk in chunks)
    assert chunks[0].text.startswith("Beddenplan per kamer:\nKamer 1 |")  # the lead-in with the first rows
    assert any("Kamer 1999 | Afdeling 1 | 5997 bedden" in chunk.text for chunk in chunks)
