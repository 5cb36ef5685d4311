"""A document's title: real metadata first, else the first heading, else the file name."""

from pathlib import Path

import pytest

from ingest.title import document_title


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
