"""Split a document's cleaned text into overlapping chunks that know their offsets and pages.

The source study found 800 characters with 160 overlap best for MRR, splitting preferably between paragraphs,
then lines, then sentences, then words, so that neither thoughts nor words are cut. Each chunk is indexed
and embedded as `Titel: {title}\\nTekst: {chunk}` (`ingest.text_format.indexed_text`): a chunk from the middle
of a document lacks the topic that only its title names.

A list is kept with the line that announces it (`ingest.lists`: a lead-in ending in ":" or a heading, and the item
lines under it), so a chunk holding "welke vier groepen …:" also holds the groups and the items under "Waar niet
prikken" never start a chunk as if they said where to inject: a list is never split apart when it fits in a chunk
less its overlap (a longer list keeps its lead-in with as many items as fit).
"""

from dataclasses import dataclass

from langchain_text_splitters import RecursiveCharacterTextSplitter

from ingest.document_text import DocumentText
from ingest.lists import lists

SEPARATORS = ["\n\n", "\n", r"(?<=[.!?])\s+", " ", ""]
_KEPT_NEWLINE = "\x00"  # stands in for a line break the splitter must not split at (one character for one)


@dataclass(frozen=True)
class Chunk:
    """A piece of the cleaned text: `document.text[start:end] == text`, on pages `page_start..page_end`."""

    index: int
    text: str
    start: int
    end: int
    page_start: int
    page_end: int


def split_into_chunks(document: DocumentText, size: int, overlap: int) -> list[Chunk]:
    """Chunks of at most `size` characters, consecutive ones sharing up to `overlap` characters."""
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size,
        chunk_overlap=overlap,
        separators=SEPARATORS,
        is_separator_regex=True,
        add_start_index=True,
    )
    chunks = []
    for index, piece in enumerate(splitter.create_documents([kept_lists(document.text, size - overlap)])):
        start = int(piece.metadata["start_index"])
        if start < 0:
            raise RuntimeError(f"chunk {index} is not a substring of the document text")
        end = start + len(piece.page_content)
        first_page, last_page = document.page_range(start, end)
        chunks.append(Chunk(index, document.text[start:end], start, end, first_page, last_page))
    return chunks


def kept_lists(text: str, room: int) -> str:
    """`text` with the line breaks inside each list (its lead-in and the items that fit in `room` characters)
    replaced by a character the splitter does not split at; same length, so offsets hold."""
    kept = list(text)
    for listed in lists(text, room):
        for index in range(listed.lead_in.start, listed.end):
            if text[index] == "\n":
                kept[index] = _KEPT_NEWLINE
    return "".join(kept)
