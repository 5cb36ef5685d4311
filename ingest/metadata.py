"""Who a document is for: audience and department tags, filterable in search; and, optionally, its title.

Clinicians asked to see the version of a procedure for their patient group first, so each document carries
tags. They come from a sidecar next to the PDF (`<name>.meta.json`: `{"audience": [...], "department": [...],
"title": "..."}`), else the department is the name of the sub-folder the file sits in below the ingested
folder. The sidecar's title overrides whatever the PDF says (a Word template's generic title, say).
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ingest.pdf_reader import UnusableFile

SIDECAR_SUFFIX = ".meta.json"
_KNOWN_KEYS = {"audience", "department", "title"}


@dataclass(frozen=True)
class DocumentTags:
    audiences: tuple[str, ...] = ()
    departments: tuple[str, ...] = ()
    title: str | None = None


def sidecar_path(pdf: Path) -> Path:
    return pdf.with_name(pdf.stem + SIDECAR_SUFFIX)


def document_tags(pdf: Path, root: Path | None) -> DocumentTags:
    """Tags from the sidecar if there is one, else the folder below `root` as department."""
    sidecar = sidecar_path(pdf)
    if sidecar.is_file():
        return _read_sidecar(sidecar)
    return DocumentTags(departments=_folder_department(pdf, root))


def _read_sidecar(sidecar: Path) -> DocumentTags:
    try:
        content = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise UnusableFile(f"metadatabestand {sidecar.name} is onleesbaar: {error}") from error
    if not isinstance(content, dict) or not set(content) <= _KNOWN_KEYS:
        raise UnusableFile(
            f"metadatabestand {sidecar.name} moet een object zijn met alleen 'audience', 'department' en 'title'"
        )
    title = content.get("title")
    if title is not None and not (isinstance(title, str) and title.strip()):
        raise UnusableFile(f"metadatabestand {sidecar.name}: 'title' moet een niet-lege tekst zijn")
    return DocumentTags(
        audiences=_tag_list(content.get("audience", []), "audience", sidecar),
        departments=_tag_list(content.get("department", []), "department", sidecar),
        title=" ".join(title.split()) if title else None,
    )


def _tag_list(value: object, key: str, sidecar: Path) -> tuple[str, ...]:
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(tag, str) and tag.strip() for tag in values):
        raise UnusableFile(f"metadatabestand {sidecar.name}: '{key}' moet een lijst van namen zijn")
    return _normalised(values)


def _normalised(tags: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(tag.strip().lower() for tag in tags))


def _folder_department(pdf: Path, root: Path | None) -> tuple[str, ...]:
    if root is None or pdf.parent == root or not pdf.is_relative_to(root):
        return ()
    return _normalised([pdf.parent.name])
