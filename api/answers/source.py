"""A retrieved passage as the user sees it (docs/api.md `Source`): what the chat streams and stores, and what the
quote and the support check read."""

from typing import TypedDict


class Source(TypedDict):
    """One passage of a retrieved chunk: `passage` is the cleaned text the viewer highlights (no `Titel:` line)."""

    document_id: str
    title: str
    page_start: int
    page_end: int
    chunk_index: int
    passage: str
    score: float
