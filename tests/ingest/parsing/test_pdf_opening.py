"""Opening a PDF: every unusable file is refused with a clear reason; invisible text never gets through."""

import os
from pathlib import Path

import pytest

from ingest.pdf_reader import UnusableFile, open_pdf, page_texts
from tests.ingest.ingest_pdfs import hidden_text_pdf, text_pdf

MAX_BYTES = 10_000_000


def _refusal(path: Path, max_bytes: int = MAX_BYTES) -> str:
    with pytest.raises(UnusableFile) as refused:
        open_pdf(path, max_bytes)
    return str(refused.value)


def test_a_valid_pdf_opens_with_its_content_hash(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "a.pdf", [["Koorts bij kinderen."]])

    with open_pdf(pdf, MAX_BYTES) as opened:
        assert opened.page_count == 1
        assert len(opened.sha256) == 64


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "leeg.pdf").write_bytes(b"")

    assert "leeg bestand" in _refusal(tmp_path / "leeg.pdf")


def test_a_file_that_is_not_a_pdf_is_refused_whatever_its_name(tmp_path: Path) -> None:
    (tmp_path / "verslag.pdf").write_bytes(b"PK\x03\x04 a docx archive, renamed")

    assert "geen PDF-bestand" in _refusal(tmp_path / "verslag.pdf")


def test_a_truncated_pdf_is_refused(tmp_path: Path) -> None:
    whole = text_pdf(tmp_path / "heel.pdf", [["Regel een."], ["Regel twee."]]).read_bytes()
    (tmp_path / "afgekapt.pdf").write_bytes(whole[: len(whole) // 2])

    assert "afgekapt" in _refusal(tmp_path / "afgekapt.pdf")


def test_a_pdf_with_garbage_inside_is_refused(tmp_path: Path) -> None:
    (tmp_path / "kapot.pdf").write_bytes(b"%PDF-1.4\n" + os.urandom(4000) + b"\n%%EOF\n")

    assert "beschadigd" in _refusal(tmp_path / "kapot.pdf")


def test_a_pdf_that_needs_a_password_is_refused(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "geheim.pdf", [["Vertrouwelijk protocol."]], user_password="geheim")

    assert "versleuteld" in _refusal(pdf)


def test_a_pdf_encrypted_without_a_user_password_opens(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "beveiligd.pdf", [["Alleen afdrukken beperkt."]], user_password="")

    with open_pdf(pdf, MAX_BYTES) as opened:
        assert "Alleen afdrukken beperkt." in next(page_texts(opened))


def test_a_dangling_link_is_unreadable_even_for_root(tmp_path: Path) -> None:
    """chmod 000 does not stop root (the tests run as root), a link to nothing does."""
    (tmp_path / "weg.pdf").symlink_to(tmp_path / "bestaat-niet.pdf")

    assert "onleesbaar" in _refusal(tmp_path / "weg.pdf")


def test_a_folder_named_like_a_pdf_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "map.pdf").mkdir()

    assert "onleesbaar" in _refusal(tmp_path / "map.pdf")


def test_a_file_above_the_size_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "groot.pdf", [["Regel."]])

    assert "te groot" in _refusal(pdf, max_bytes=100)


def test_invisible_and_white_text_is_not_extracted(tmp_path: Path) -> None:
    pdf = hidden_text_pdf(
        tmp_path / "verborgen.pdf",
        visible=["Zichtbare eerste regel.", "Zichtbare laatste regel."],
        invisible="ONZICHTBARE trefwoorden",
        white="WITTE trefwoorden",
    )

    with open_pdf(pdf, MAX_BYTES) as opened:
        text = next(page_texts(opened))

    assert "Zichtbare eerste regel." in text and "Zichtbare laatste regel." in text
    assert "ONZICHTBARE" not in text and "WITTE" not in text
