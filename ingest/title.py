"""A document's title: what clinicians would call it, named in every chunk (`Titel: …`).

The PDF's own title wins when it names the document. Many exports carry a generic one instead (the Word
template's "Microsoft Word - x.docx", the file's own name, "untitled", a maker's stamp such as "MADE BY
PPTSOLUTIONS.NL" or a bare web address, or a title that other documents carry too, such as the organisation's name
in its template): then the first page's main heading (its largest text) is used, then the Office file name, then
the first heading-like line, and the file name last. A heading that begins like the metadata title but says more
("Formulier voor (her)indicatie client" against "Formulier CIZ") names the document better and wins over it. A
title shared by other documents names none of them, so no candidate equal to it is used. A `.meta.json`
sidecar's "title" overrides all of them (`metadata.py`).
"""

import re
from collections import defaultdict
from collections.abc import Collection, Iterable
from pathlib import Path

from ingest.cleaning import clean_line

MAX_TITLE_LENGTH = 200
MIN_TEXT_FOR_LANGUAGE = 1000
_OFFICE_PREFIX = re.compile(r"^(?:microsoft\s+(?:word|powerpoint|excel)\s*-\s*)", re.IGNORECASE)
_FILE_EXTENSION = re.compile(r"\.(?:docx?|pdf|pptx?|xlsx?|odt|rtf|txt)$", re.IGNORECASE)
_SPACED_DIGITS = re.compile(r"(?<!\S)\d(?: \d){3,}(?!\S)")
_SPLIT_YEAR = re.compile(r"\b((?:19|20)\d) (\d)\b")
_TITLE_WORD = re.compile(r"[^\W\d_]{3,}")
_PLACEHOLDERS = frozenset({"untitled", "titel", "title", "document", "naamloos", "presentatie", "no title"})
_SEPARATORS = re.compile(r"[_\s]+|(?<=[^\W\d_])-(?=[^\W\d_])")
_MAKERS_STAMP = re.compile(
    r"^(?:(?:made|created|designed|gemaakt|ontworpen)\s+(?:by|door)\b.*"
    r"|(?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:/\S*)?)$",
    re.IGNORECASE,
)


def document_title(
    metadata_title: str | None,
    text: str,
    path: Path,
    heading: str | None = None,
    shared: Collection[str] = frozenset(),
) -> str:
    """The first usable of: the main `heading` when it says more than the metadata title, a specific metadata
    title, the main heading, an Office export's file name, the first heading-like line, the file name; none that is one of the `shared` titles (see `shared_titles`)."""
    main = _usable(_digits_joined(clean_line(heading or "")))
    if metadata_title and not _in_the_text(metadata_title, text):
        metadata_title = None  # a template's or another language's title ("M4 Treating MS NL PRINT")
    candidates = (
        main if _says_more(main, metadata_title) else None,
        _specific(metadata_title, path),
        main,
        _from_metadata(metadata_title),
        _first_heading(text),
        _from_file_name(path),
    )
    for candidate in candidates:
        if candidate and not is_shared(candidate, shared):
            return candidate[:MAX_TITLE_LENGTH]
    return path.name[:MAX_TITLE_LENGTH]


def clean_metadata_title(metadata_title: str | None) -> str | None:
    """A PDF's metadata title as documents are compared by (and stored): cleaned, without Office export junk."""
    cleaned = _from_metadata(metadata_title)
    return cleaned[:MAX_TITLE_LENGTH] if cleaned else None


def shared_titles(documents: Iterable[tuple[str, str | None]]) -> frozenset[str]:
    """The cleaned metadata titles that documents of different content carry (a template's or an organisation's
    name): `documents` are (content hash, `clean_metadata_title`) pairs; copies of one content count once."""
    contents: defaultdict[str, set[str]] = defaultdict(set)
    for sha256, title in documents:
        if title:
            contents[_key(title)].add(sha256)
    return frozenset(key for key, carriers in contents.items() if len(carriers) > 1)


def is_shared(title: str, shared: Collection[str]) -> bool:
    """Whether a title is one of the `shared_titles` (case and spacing aside)."""
    return _key(title) in shared


def _key(title: str) -> str:
    return " ".join(title.split()).casefold()


def _digits_joined(title: str) -> str:
    """A title's letter-spaced number ("2 0 1 7") or split year ("202 5") written whole."""
    return _SPLIT_YEAR.sub(r"\1\2", _SPACED_DIGITS.sub(lambda match: match.group(0).replace(" ", ""), title))


def _says_more(heading: str | None, metadata_title: str | None) -> bool:
    """Whether the heading names the same kind of document as the metadata title (same first word) in more
    words: "Formulier voor (her)indicatie client" over "Formulier CIZ"."""
    title = _from_metadata(metadata_title)
    if not heading or not title:
        return False
    heading_words, title_words = heading.casefold().split(), title.casefold().split()
    return heading_words[0] == title_words[0] and len(heading_words) > len(title_words)


def _specific(title: str | None, path: Path) -> str | None:
    """The metadata title unless it is generic: an Office export name, a maker's stamp or web address, or the
    file's own name."""
    if not title or _OFFICE_PREFIX.match(clean_line(title)):
        return None
    cleaned = _from_metadata(title)
    if (
        cleaned is None
        or _SEPARATORS.sub(" ", cleaned).casefold() == (_from_file_name(path) or "").casefold()
    ):
        return None
    return cleaned


def _from_metadata(title: str | None) -> str | None:
    if not title:
        return None
    cleaned = _FILE_EXTENSION.sub("", _OFFICE_PREFIX.sub("", clean_line(title))).strip()
    return None if _MAKERS_STAMP.match(cleaned) else _usable(cleaned)


def _usable(candidate: str) -> str | None:
    return candidate if _looks_like_a_title(candidate) else None


def _first_heading(text: str) -> str | None:
    """The first short line with some words in it (long lines are body text, not headings), with the line after
    it when it ends in a colon ("MODULE 4:" / "Behandeling van MS")."""
    lines = [line for line in text.split("\n") if line.strip()]
    for index, line in enumerate(lines):
        if _looks_like_a_title(line) and len(line) <= 150:
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if line.endswith(":") and _looks_like_a_title(following) and len(line + following) <= 150:
                return f"{line} {following}"
            return line
    return None


def _in_the_text(title: str, text: str) -> bool:
    """Whether at least half the title's words (three letters or more) occur in the document's text (of some
    length: a short text may not repeat its title): a title in another language than the document, or a
    template's, does not name it."""
    words = [word.casefold() for word in _TITLE_WORD.findall(clean_line(_OFFICE_PREFIX.sub("", title)))]
    if not words or len(text) < MIN_TEXT_FOR_LANGUAGE:
        return True
    found = set(_TITLE_WORD.findall(text.casefold()))
    return sum(word in found for word in words) * 2 >= len(words)


def _from_file_name(path: Path) -> str | None:
    name = _SEPARATORS.sub(" ", path.stem).strip()
    return name or None


def _looks_like_a_title(candidate: str) -> bool:
    letters = sum(character.isalpha() for character in candidate)
    return letters >= 3 and candidate.lower() not in _PLACEHOLDERS
