"""A document's title: what clinicians would call it, named in every chunk (`Titel: …`).

The PDF's own title wins when it is a real title; many exports carry junk there instead ("Microsoft Word -
x.docx", "untitled"), so then the first heading-like line of the text is used, and the file name last.
"""

import re
from pathlib import Path

from ingest.cleaning import clean_line

MAX_TITLE_LENGTH = 200
_OFFICE_PREFIX = re.compile(r"^(?:microsoft\s+(?:word|powerpoint|excel)\s*-\s*)", re.IGNORECASE)
_FILE_EXTENSION = re.compile(r"\.(?:docx?|pdf|pptx?|xlsx?|odt|rtf|txt)$", re.IGNORECASE)
_PLACEHOLDERS = frozenset({"untitled", "titel", "title", "document", "naamloos", "presentatie", "no title"})
_SEPARATORS = re.compile(r"[_\s]+|(?<=[^\W\d_])-(?=[^\W\d_])")


def document_title(metadata_title: str | None, text: str, path: Path) -> str:
    """The metadata title if it is one, else the first heading-like line, else the file name."""
    for candidate in (_from_metadata(metadata_title), _first_heading(text), _from_file_name(path)):
        if candidate:
            return candidate[:MAX_TITLE_LENGTH]
    return path.name[:MAX_TITLE_LENGTH]


def _from_metadata(title: str | None) -> str | None:
    if not title:
        return None
    cleaned = _FILE_EXTENSION.sub("", _OFFICE_PREFIX.sub("", clean_line(title))).strip()
    return cleaned if _looks_like_a_title(cleaned) else None


def _first_heading(text: str) -> str | None:
    """The first short line with some words in it; long lines are body text, not headings."""
    for line in text.split("\n"):
        if _looks_like_a_title(line) and len(line) <= 150:
            return line
    return None


def _from_file_name(path: Path) -> str | None:
    name = _SEPARATORS.sub(" ", path.stem).strip()
    return name or None


def _looks_like_a_title(candidate: str) -> bool:
    letters = sum(character.isalpha() for character in candidate)
    return letters >= 3 and candidate.lower() not in _PLACEHOLDERS
