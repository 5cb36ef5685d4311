"""Split a document's cleaned text into overlapping chunks that know their offsets and pages.

The source study found 800 characters with 160 overlap best for MRR, splitting preferably between paragraphs,
then lines, then sentences, then words, so that neither thoughts nor words are cut. Each chunk is indexed
and embedded as `Titel: {title}\\nTekst: {chunk}`: a chunk from the middle of a document lacks the topic that
only its title names.
"""

from dataclasses import dataclass

from langchain_text_splitters import RecursiveCharacterTextSplitter

from ingest.document_text import DocumentText

SEPARATORS = ["\n\n", "\n", r"(?<=[.!?])\s+", " ", ""]


@dataclass(frozen=True)
class Chunk:
    """A piece of the cleaned text: `document.text[start:end] == text`, on pages `page_start..page_end`."""

    index: int
    text: str
    start: int
    end: int
    page_start: int
    page_end: int


def indexed_text(title: str, chunk: str) -> str:
    """Exactly the text that is embedded and searched for a chunk."""
    return f"Titel: {title}\nTekst: {chunk}"


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
    for index, piece in enumerate(splitter.create_documents([document.text])):
        start = int(piece.metadata["start_index"])
        if start < 0:
            raise RuntimeError(f"chunk {index} is not a substring of the document text")
        end = start + len(piece.page_content)
        first_page, last_page = document.page_range(start, end)
        chunks.append(Chunk(index, piece.page_content, start, end, first_page, last_page))
    return chunks
