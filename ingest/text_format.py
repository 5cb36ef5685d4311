"""The forms of ingested text that search and the chat read back: a chunk's indexed text and a table row's cells.

Kept apart from the PDF pipeline that writes them, so that the chat, which only reads them, loads no PDF parser.
"""

CELL_SEPARATOR = " | "
"""Between a table row's cells (each row one line, `ingest.tables`): visible in a quote and a prompt, and only
punctuation to the viewer's highlight."""


def indexed_text(title: str, chunk: str) -> str:
    """Exactly the text that is embedded and searched for a chunk (`ChunkRecord.text`)."""
    return f"Titel: {title}\nTekst: {chunk}"
