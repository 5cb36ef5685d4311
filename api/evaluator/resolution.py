"""Turning the document references in a question file into the ids of documents in the index.

Evaluators name documents the way they know them: an id, a file name, or a title. A reference that matches nothing
is reported as unresolved and left out of the averages: counting it as a miss would blame retrieval for a
document that was never indexed.
"""

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath


@dataclass(frozen=True)
class IndexedDocument:
    """What the index knows about a document, enough to recognise how people refer to it."""

    id: str
    title: str
    file_name: str | None = None


class DocumentResolver:
    """Matches a reference by id first, then by file name (with or without extension), then by title."""

    def __init__(self, documents: Iterable[IndexedDocument]) -> None:
        self._ids: set[str] = set()
        self._file_names: dict[str, set[str]] = defaultdict(set)
        self._titles: dict[str, set[str]] = defaultdict(set)
        for document in documents:
            self._ids.add(document.id)
            self._titles[_normalise(document.title)].add(document.id)
            if document.file_name:
                self._file_names[_normalise(document.file_name)].add(document.id)
                self._file_names[_normalise(PurePath(document.file_name).stem)].add(document.id)

    def resolve(self, reference: str) -> frozenset[str]:
        """The ids the reference names (several when a title is shared), empty when it names nothing."""
        if reference in self._ids:
            return frozenset({reference})
        key = _normalise(reference)
        return frozenset(self._file_names.get(key) or self._titles.get(key) or ())


def _normalise(name: str) -> str:
    """Case and runs of whitespace do not distinguish documents for the people who type their names."""
    return re.sub(r"\s+", " ", name).strip().casefold()
