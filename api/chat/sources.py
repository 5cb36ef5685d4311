"""What the user sees of a retrieved chunk (docs/api.md `Source`) and what the worker gets of it."""

from collections.abc import Sequence
from typing import Any

from api.answers.source import Source
from ingest.retrieval import RetrievedChunk
from ingest.text_format import indexed_text


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


def prompt_passages(
    chunks: Sequence[RetrievedChunk], quote: dict[str, Any] | None, quote_first: bool
) -> list[str]:
    """The passages the generator reads, in order: the retrieved chunks, after the chosen quote (docs/api.md
    `Quote`) as a passage of its own when `quote_first` and there is one."""
    passages = [prompt_chunk(chunk) for chunk in chunks]
    if quote_first and quote is not None:
        return [indexed_text(str(quote.get("title") or ""), str(quote["text"])), *passages]
    return passages
