"""A document's title: the sidecar's, a specific metadata title (not one other documents carry too), the first
page's main heading, the first heading-like line, the file name."""

import shutil
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from ingest.documents import find_document, list_documents
from ingest.metadata import document_tags
from ingest.models import FileStatus
from ingest.pdf_reader import UnusableFile, main_heading, open_pdf, page_texts
from ingest.pipeline import parse_pdf
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from ingest.title import document_title, shared_titles
from tests.ingest.ingest_pdfs import slide_pdf, text_pdf


def test_a_real_metadata_title_wins() -> None:
    assert document_title("Procedure koorts bij kinderen", "Iets anders", Path("x.pdf")) == (
        "Procedure koorts bij kinderen"
    )


def test_office_export_junk_is_stripped_from_the_metadata_title() -> None:
    assert document_title("Microsoft Word - Sepsis protocol.docx", "", Path("x.pdf")) == "Sepsis protocol"


@pytest.mark.parametrize("junk", [None, "", "untitled", "Document", "12"])
def test_without_a_usable_metadata_title_the_first_heading_is_used(junk: str | None) -> None:
    text = "1\nProtocol decubituspreventie\nDeze procedure beschrijft ..."

    assert document_title(junk, text, Path("x.pdf")) == "Protocol decubituspreventie"


def test_without_any_heading_the_file_name_is_used() -> None:
    assert document_title(None, "", Path("/docs/wondzorg_na-operatie.pdf")) == "wondzorg na operatie"


def test_a_generic_metadata_title_gives_way_to_the_main_heading() -> None:
    heading = "Declaratieprotocol wijkverpleging"

    assert document_title("Microsoft Word - sjabloon.docx", "", Path("x.pdf"), heading) == heading
    assert document_title("declaratie_v3", "", Path("/d/declaratie_v3.pdf"), heading) == heading
    assert document_title("untitled", "", Path("x.pdf"), heading) == heading
    assert document_title("Protocol wijkverpleging 2026", "", Path("x.pdf"), heading) == (
        "Protocol wijkverpleging 2026"
    )


@pytest.mark.parametrize("stamp", ["MADE BY PPTSOLUTIONS.NL", "Gemaakt door Bureau X", "www.ciz.nl"])
def test_a_makers_stamp_or_web_address_gives_way_to_the_main_heading(stamp: str) -> None:
    heading = "Meerzorg proces & administratie"

    assert document_title(stamp, f"{heading}\nTekst", Path("x.pdf"), heading) == heading
    assert document_title(stamp, "", Path("/d/meerzorg_proces.pdf")) == "meerzorg proces"


def test_a_heading_that_says_more_than_the_metadata_title_names_the_document() -> None:
    form = "Formulier voor (her)indicatie client"

    assert document_title("Formulier CIZ", "", Path("x.pdf"), form) == form
    assert document_title("Formulier voor (her)indicatie client Wlz", "", Path("x.pdf"), form) == (
        "Formulier voor (her)indicatie client Wlz"  # the metadata title says as much or more
    )
    assert document_title("Protocol koorts", "", Path("x.pdf"), "Werkwijze bij koorts op de afdeling") == (
        "Protocol koorts"  # a heading that starts otherwise is about something else
    )


BODY = ["Deze tekst beschrijft de werkwijze voor cliënten die meer zorg nodig hebben dan gebruikelijk."] * 6


@pytest.mark.parametrize(
    ("metadata_title", "heading", "expected"),
    [
        ("MADE BY PPTSOLUTIONS.NL", ["Meerzorg proces & administratie"], "Meerzorg proces & administratie"),
        (None, ["Toetsingskader meerzorg 202", "5"], "Toetsingskader meerzorg 2025"),
        ("Formulier CIZ", ["Formulier voor (her)indicatie client"], "Formulier voor (her)indicatie client"),
    ],
    ids=["makers-stamp", "split-year", "heading-says-more"],
)
def test_real_exports_are_named_by_what_their_first_page_says(
    tmp_path: Path, metadata_title: str | None, heading: list[str], expected: str
) -> None:
    path = slide_pdf(tmp_path / "export.pdf", metadata_title, heading, BODY)

    with open_pdf(path, 10_000_000) as pdf:
        assert parse_pdf(pdf).title == expected


def test_a_metadata_title_documents_of_different_content_carry_is_shared() -> None:
    carried = [
        ("sha-a", "Zorgverzekeraars Nederland"),
        ("sha-b", "zorgverzekeraars  NEDERLAND"),
        ("sha-c", None),
    ]

    assert shared_titles([*carried, ("sha-c", "Sepsis protocol")]) == {"zorgverzekeraars nederland"}
    assert shared_titles([("sha-a", "Handhygiëne"), ("sha-a", "Handhygiëne")]) == set()  # two copies of one


def test_a_shared_metadata_title_names_no_document() -> None:
    shared = shared_titles([("sha-a", "Zorgverzekeraars Nederland"), ("sha-b", "Zorgverzekeraars Nederland")])
    text = "Zorgverzekeraars Nederland\nDeclaratie wijkverpleging\nDeze regeling ..."
    heading = "Declaratie wijkverpleging"

    assert document_title("Zorgverzekeraars Nederland", text, Path("x.pdf"), heading, shared) == heading
    assert document_title("Zorgverzekeraars Nederland", text, Path("/d/zn_declaratie.pdf"), None, shared) == (
        "zn declaratie"  # not the first line either: it is the shared name
    )
    assert (
        document_title("Zorgverzekeraars Nederland", text, Path("x.pdf"), heading)
        == "Zorgverzekeraars Nederland"
    )


def _word_like_pdf(path: Path, metadata_title: str, heading: str, body: list[str]) -> Path:
    """A first page as Word lays it out: a large heading above body text, fonts scaled by the text matrix."""
    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    canvas.setTitle(metadata_title)
    text = canvas.beginText()
    text.setTextOrigin(72, 780)
    text.setFont("Helvetica", 8)
    text.textLine("Zorgverzekeraars Nederland")
    text.setFont("Helvetica-Bold", 20)
    text.textLine(heading)
    text.setFont("Helvetica", 11)
    for line in body:
        text.textLine(line)
    canvas.drawText(text)
    canvas.save()
    return path


def test_the_main_heading_is_the_first_pages_largest_text(tmp_path: Path) -> None:
    body = ["Deze regeling beschrijft hoe wijkverpleging wordt gedeclareerd. " * 2] * 6
    path = _word_like_pdf(tmp_path / "a.pdf", "Zorgverzekeraars Nederland", "Declaratie wijkverpleging", body)

    with open_pdf(path, 10_000_000) as pdf:
        parsed = parse_pdf(pdf)
        assert main_heading(pdf, next(page_texts(pdf))) == "Declaratie wijkverpleging"
    assert parsed.title == "Zorgverzekeraars Nederland"  # an organisation name is specific to a lone document


def test_a_page_set_in_one_size_has_no_main_heading(tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "plain.pdf", [["Koorts bij kinderen", "Geef paracetamol."]])

    with open_pdf(path, 10_000_000) as pdf:
        assert main_heading(pdf, next(page_texts(pdf))) is None


def test_a_word_export_is_named_by_its_heading(tmp_path: Path) -> None:
    path = _word_like_pdf(
        tmp_path / "b.pdf",
        "Microsoft Word - ZN-sjabloon.docx",
        "Machtiging hulpmiddelen",
        ["Tekst. " * 20] * 4,
    )

    with open_pdf(path, 10_000_000) as pdf:
        assert parse_pdf(pdf).title == "Machtiging hulpmiddelen"


def test_the_sidecar_sets_the_title(
    ingestion: Ingestion, tmp_path: Path, ingest_settings: IngestSettings
) -> None:
    folder = tmp_path / "protocollen"
    folder.mkdir()
    path = _word_like_pdf(
        folder / "zn.pdf", "Zorgverzekeraars Nederland", "Kop", ["Tekst over declareren. " * 8]
    )
    (folder / "zn.meta.json").write_text('{"title": "  Declareren   van wijkverpleging "}')

    ingestion.ingest([folder])

    document = find_document(ingest_settings.database_url, str(path))
    assert document.title == "Declareren van wijkverpleging"


def test_a_sidecar_title_must_be_text(tmp_path: Path) -> None:
    pdf = tmp_path / "a.pdf"
    (tmp_path / "a.meta.json").write_text('{"title": ["twee", "titels"]}')

    with pytest.raises(UnusableFile, match="'title' moet een niet-lege tekst zijn"):
        document_tags(pdf, tmp_path)


ZN = "Zorgverzekeraars Nederland"


def _organisation_document(folder: Path, name: str, heading: str, metadata_title: str = ZN) -> Path:
    """A Word export of one organisation: its template's title in the metadata, its own subject as heading."""
    folder.mkdir(parents=True, exist_ok=True)
    body = [f"Deze regeling beschrijft {heading.lower()} voor alle verzekerden. " * 2] * 4
    return _word_like_pdf(folder / name, metadata_title, heading, body)


def _titles(ingest_settings: IngestSettings) -> dict[str, str]:
    return {Path(row.source_path).name: row.title for row in list_documents(ingest_settings.database_url)}


def _title_lines(index: EmbeddedIndex, path: Path) -> set[str]:
    """The `Titel: …` line each of the file's indexed chunks starts with."""
    return {
        chunk.text.split("\n")[0]
        for document_id in index.document_ids()
        for chunk in index.chunks(document_id)
        if chunk.source_path == str(path)
    }


def test_documents_sharing_a_metadata_title_are_named_by_their_headings(
    ingestion: Ingestion, index: EmbeddedIndex, tmp_path: Path, ingest_settings: IngestSettings
) -> None:
    folder = tmp_path / "zn"
    declaratie = _organisation_document(folder, "declaratie.pdf", "Declaratie wijkverpleging")
    machtiging = _organisation_document(folder, "machtiging.pdf", "Machtiging hulpmiddelen")

    ingestion.ingest([folder])

    assert _titles(ingest_settings) == {
        "declaratie.pdf": "Declaratie wijkverpleging",
        "machtiging.pdf": "Machtiging hulpmiddelen",
    }
    assert _title_lines(index, declaratie) == {"Titel: Declaratie wijkverpleging"}
    assert _title_lines(index, machtiging) == {"Titel: Machtiging hulpmiddelen"}


def test_a_document_indexed_before_its_metadata_title_was_shared_is_renamed_when_ingested_again(
    ingestion: Ingestion, index: EmbeddedIndex, tmp_path: Path, ingest_settings: IngestSettings
) -> None:
    declaratie = _organisation_document(tmp_path / "eerst", "declaratie.pdf", "Declaratie wijkverpleging")
    ingestion.ingest([declaratie])
    assert _titles(ingest_settings) == {"declaratie.pdf": ZN}  # alone, nothing says the title is generic

    ingestion.ingest(
        [_organisation_document(tmp_path / "later", "machtiging.pdf", "Machtiging hulpmiddelen")]
    )
    assert _titles(ingest_settings)["machtiging.pdf"] == "Machtiging hulpmiddelen"

    renamed = ingestion.ingest([declaratie])
    assert [file.status for file in renamed.files] == [FileStatus.indexed]
    assert _titles(ingest_settings)["declaratie.pdf"] == "Declaratie wijkverpleging"
    assert _title_lines(index, declaratie) == {"Titel: Declaratie wijkverpleging"}

    again = ingestion.ingest([declaratie])
    assert [(file.status, file.message) for file in again.files] == [
        (FileStatus.skipped, "ongewijzigd: al geïndexeerd")
    ]


def test_a_metadata_title_no_other_document_carries_names_its_document(
    ingestion: Ingestion, tmp_path: Path, ingest_settings: IngestSettings
) -> None:
    folder = tmp_path / "zn"
    original = _organisation_document(folder, "declaratie.pdf", "Declaratie wijkverpleging")
    shutil.copy(original, folder / "kopie-declaratie.pdf")  # a copy is the same document, not another
    _organisation_document(folder, "machtiging.pdf", "Kop", metadata_title="Machtiging hulpmiddelen 2026")

    ingestion.ingest([folder])

    assert _titles(ingest_settings) == {
        "declaratie.pdf": ZN,
        "machtiging.pdf": "Machtiging hulpmiddelen 2026",
    }


def test_a_new_version_of_a_file_does_not_share_its_title_with_the_version_it_replaces(
    ingestion: Ingestion, tmp_path: Path, ingest_settings: IngestSettings
) -> None:
    declaratie = _organisation_document(tmp_path / "zn", "declaratie.pdf", "Declaratie wijkverpleging")
    ingestion.ingest([declaratie])

    _organisation_document(tmp_path / "zn", "declaratie.pdf", "Declaratie wijkverpleging, versie 2")
    ingestion.ingest([declaratie])

    assert _titles(ingest_settings) == {"declaratie.pdf": ZN}


def test_the_sidecar_title_wins_over_a_shared_metadata_title(
    ingestion: Ingestion, tmp_path: Path, ingest_settings: IngestSettings
) -> None:
    folder = tmp_path / "zn"
    _organisation_document(folder, "declaratie.pdf", "Declaratie wijkverpleging")
    _organisation_document(folder, "machtiging.pdf", "Machtiging hulpmiddelen")
    (folder / "machtiging.meta.json").write_text('{"title": "Machtigingen voor hulpmiddelen"}')

    ingestion.ingest([folder])

    assert _titles(ingest_settings) == {
        "declaratie.pdf": "Declaratie wijkverpleging",
        "machtiging.pdf": "Machtigingen voor hulpmiddelen",
    }
