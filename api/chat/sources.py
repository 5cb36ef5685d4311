"""What the user sees of a retrieved chunk (docs/api.md `Source`) and what the worker gets of it."""

from api.answers.source import Source
from ingest.chunking import indexed_text
from ingest.retrieval import RetrievedChunk


def source(chunk: RetrievedChunk) -> Source:
    """The chunk as the viewer needs it: `passage` is the cleaned passage it highlights (no `Titel:` prefix)."""
    return {
        "document_id": chunk.document_id,
        "title": chunk.title,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "chunk_index": chunk.chunk_index,
        "passage": chunk.text,
        "score": round(chunk.score, 4),
    }


def prompt_chunk(chunk: RetrievedChunk) -> str:
    """The chunk as it was indexed (`Titel: …\\nTekst: …`): the title tells the model what the passage is about."""
    return indexed_text(chunk.title, chunk.text)
