"""The kinds of file ingestion takes, told from their content (and, for Word's old format, their name).

PDFs are read as they are; Word (.docx, .doc) and OpenDocument text (.odt) files are converted to PDF first
(`conversion.py`). The content decides: a file named `.pdf` that is a Word file is a Word file, and a file
without an extension is still recognised. A password-protected .docx is an OLE container like a .doc, so the
OLE kind is settled by conversion, which says why it cannot read one.
"""

import zipfile
from enum import StrEnum
from pathlib import Path

PDF_MAGIC = b"%PDF-"
ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
HEADER_WINDOW = 1024
_ODT_MIMETYPE = b"application/vnd.oasis.opendocument.text"


class Kind(StrEnum):
    pdf = "pdf"
    docx = "docx"
    odt = "odt"
    doc = "doc"

    @property
    def suffix(self) -> str:
        return f".{self.value}"

    @property
    def needs_conversion(self) -> bool:
        return self is not Kind.pdf


SUFFIXES = frozenset(kind.suffix for kind in Kind)
ACCEPTED = "PDF-, Word- of OpenDocument-bestand (.pdf, .docx, .doc, .odt)"


def kind_of(path: Path, name: str | None = None) -> Kind | None:
    """What the file at `path` is (None: none of the kinds taken); `name`: the name it goes by, when the file
    is a stored copy of ours."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEADER_WINDOW)
    except OSError:
        return None
    suffix = Path(name or path.name).suffix.lower()
    if PDF_MAGIC in head:
        return Kind.pdf
    if head.startswith(OLE_MAGIC):
        return Kind.docx if suffix == ".docx" else Kind.doc
    if head.startswith(ZIP_MAGIC):
        return _zip_kind(path)
    return None


def _zip_kind(path: Path) -> Kind | None:
    """A .docx holds `word/document.xml`; an .odt names its type in its first member, `mimetype`."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = {info.filename: info for info in archive.infolist()}
            if "word/document.xml" in members:
                return Kind.docx
            mimetype = members.get("mimetype")
            if mimetype is not None and mimetype.file_size <= len(_ODT_MIMETYPE) + 2:
                return Kind.odt if archive.read(mimetype).strip() == _ODT_MIMETYPE else None
    except (zipfile.BadZipFile, OSError, KeyError, ValueError):
        return None
    return None


def is_document_name(name: str) -> bool:
    """Whether a file found in a folder is one ingestion takes (by its name: folders are not read whole)."""
    return Path(name).suffix.lower() in SUFFIXES
