"""An evaluation measures the chat's pipeline: the index holds exactly the chunks ingestion stores (titles,
tags, source paths) and questions are asked through the chat's `Retriever` (stripped, cut to what the
embedder reads), with progress shown for each slow step."""

from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from api.evaluator.configs import RetrievalConfig
from api.evaluator.corpus import clean_set, read_pdf_folder
from api.evaluator.datasets import EvalSet, SourceDocument
from api.evaluator.queries import EvalQuery
from api.evaluator.retrieval_runs import Embedders, build_index, run_configurations
from ingest.metadata import document_tags
from ingest.pdf_reader import open_pdf
from ingest.pipeline import chunk_records, parse_pdf
from ingest.settings import IngestSettings
from modelstore.registry import ALL_MINILM_L6_V2 as MINILM

MAX_BYTES = 10_000_000


def _pdf(path: Path, title: str, lines: list[str]) -> Path:
    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    canvas.setTitle(title)
    for number, line in enumerate(lines):
        canvas.drawString(72, 760 - 15 * number, line)
    canvas.save()
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "procedures"
    (root / "intensive care").mkdir(parents=True)
    _pdf(root / "hygiene.pdf", "Hand hygiene", ["Alcohol rub kills most bacteria within thirty seconds."])
    (root / "hygiene.meta.json").write_text('{"audience": ["nurses"]}')
    _pdf(
        root / "intensive care" / "ventilation.pdf",
        "Ventilation",
        ["Prone positioning improves oxygenation in ARDS patients on the ventilator."],
    )
    return root


@pytest.fixture
def embedders(offline_models: Path) -> Embedders:
    settings = IngestSettings(_env_file=None, model_cache=offline_models)  # type: ignore[call-arg]
    return Embedders(settings)


def test_the_evaluation_index_holds_exactly_the_chunks_ingestion_stores(
    folder: Path, embedders: Embedders, tmp_path: Path
) -> None:
    documents = read_pdf_folder(folder, MAX_BYTES).documents

    index = build_index(
        documents, RetrievalConfig(embedder=MINILM), embedders.get(MINILM), tmp_path / "index"
    )

    tags = {}
    for path in sorted(folder.rglob("*.pdf")):
        with open_pdf(path, MAX_BYTES) as pdf:
            parsed = parse_pdf(pdf)
        chunks = index.chunks(parsed.sha256)
        assert chunks == chunk_records(parsed, document_tags(path, folder), 800, 160)
        tags[path.name] = {(chunk.source_path, chunk.audiences, chunk.departments) for chunk in chunks}
    index.close()
    assert tags == {
        "hygiene.pdf": {(str(folder / "hygiene.pdf"), ("nurses",), ())},
        "ventilation.pdf": {(str(folder / "intensive care" / "ventilation.pdf"), (), ("intensive care",))},
    }


def _long_question(head: str, tail: str) -> str:
    """Words the embedder reads, then filler past its 256 tokens, then words it never reads."""
    return f"  {head} " + "xyzzy " * 400 + tail + "  "


def test_a_question_is_searched_as_the_chat_searches_it_cut_to_what_the_embedder_reads(
    folder: Path, embedders: Embedders, tmp_path: Path
) -> None:
    documents = read_pdf_folder(folder, MAX_BYTES).documents
    ventilation = next(document for document in documents if document.source.title == "Ventilation")
    question = EvalQuery(
        id="q1",
        question=_long_question("alcohol rub bacteria", "prone positioning oxygenation ventilator"),
        relevant_documents=(ventilation.source.id,),
    )

    (result,) = run_configurations(
        documents, [question], {"bm25": RetrievalConfig(alpha=0.0, embedder=MINILM)}, embedders, tmp_path
    )

    (outcome,) = result.outcomes
    assert outcome.document_judged and outcome.document_rank is None


def test_a_public_set_document_is_indexed_under_its_id_with_its_title(
    embedders: Embedders, tmp_path: Path
) -> None:
    source = SourceDocument(id="101", title="Vaccine storage", text="The mRNA vaccine must be stored frozen.")
    cleaned = clean_set(EvalSet(name="test", description="one article", documents=(source,), queries=()))

    index = build_index(cleaned.documents, RetrievalConfig(embedder=MINILM), embedders.get(MINILM), tmp_path)

    (chunk,) = index.chunks("101")
    assert (chunk.title, chunk.text) == ("Vaccine storage", "Titel: Vaccine storage\nTekst: " + source.text)
    index.close()


def test_parsing_embedding_and_asking_show_progress(
    folder: Path, embedders: Embedders, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = read_pdf_folder(folder, MAX_BYTES).documents
    question = EvalQuery(id="q1", question="Which positioning helps in ARDS?", relevant_documents=())

    run_configurations(
        documents, [question], {"hybrid": RetrievalConfig(embedder=MINILM)}, embedders, tmp_path
    )

    progress = capsys.readouterr().err
    for step in ("parsing", "embedding", "embedding questions", "asking hybrid"):
        assert f"{step}: 100%" in progress
