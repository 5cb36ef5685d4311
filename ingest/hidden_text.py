"""Remove text that a PDF draws but nobody sees, before extraction.

The source study found an almost empty page that yielded 2,500+ characters of hidden text. pypdf extracts
every text-showing operator regardless of visibility, so this module rewrites a page's content stream
without the operators that paint invisibly: text render mode 3/7 (neither fill nor stroke, used for OCR
layers and keyword stuffing) and filled text in pure white. Text inside form XObjects is left as it is.
"""

import re
from typing import Any

from pypdf import PageObject
from pypdf.generic import ContentStream, NameObject

_TEXT_SHOWING = {b"Tj", b"TJ", b"'", b'"'}
_NEXT_LINE_OPERATORS = {b"'", b'"'}
_INVISIBLE_RENDER_MODES = {3, 7}
_FILL_ONLY_RENDER_MODES = {0, 4}
_ONE = rb"1(?:\.0*)?"
_ZERO = rb"(?:0+(?:\.0*)?|\.0+)"
_MIGHT_HIDE = re.compile(
    rb"\bTr\b"
    rb"|(?<![0-9.])" + _ONE + rb"\s+g\b"
    rb"|(?<![0-9.])" + rb"\s+".join([_ONE] * 3) + rb"\s+rg\b"
    rb"|(?<![0-9.])" + rb"\s+".join([_ZERO] * 4) + rb"\s+k\b"
)


class _GraphicsState:
    """The two parts of the graphics state that decide whether drawn text is visible."""

    def __init__(self) -> None:
        self.render_mode = 0
        self.fill_is_white = False
        self._saved: list[tuple[int, bool]] = []

    def apply(self, operator: bytes, operands: list[Any]) -> None:
        if operator == b"q":
            self._saved.append((self.render_mode, self.fill_is_white))
        elif operator == b"Q" and self._saved:
            self.render_mode, self.fill_is_white = self._saved.pop()
        elif operator == b"Tr" and operands:
            self.render_mode = int(operands[0])
        elif operator in (b"g", b"rg"):
            self.fill_is_white = all(float(value) >= 0.99 for value in operands)
        elif operator == b"k":
            self.fill_is_white = all(float(value) <= 0.01 for value in operands)
        elif operator in (b"sc", b"scn", b"cs"):
            self.fill_is_white = False

    @property
    def hides_text(self) -> bool:
        if self.render_mode in _INVISIBLE_RENDER_MODES:
            return True
        return self.fill_is_white and self.render_mode in _FILL_ONLY_RENDER_MODES


def might_hide_text(content: bytes) -> bool:
    """A cheap scan of the raw stream: only pages that set a render mode or a white fill need parsing."""
    return _MIGHT_HIDE.search(content) is not None


def visible_operations(
    operations: list[tuple[list[Any], bytes]],
) -> tuple[list[tuple[list[Any], bytes]], int]:
    """The operations without invisible text (line moves of `'`/`"` kept), and how many were dropped."""
    state = _GraphicsState()
    kept: list[tuple[list[Any], bytes]] = []
    dropped = 0
    for operands, operator in operations:
        state.apply(operator, operands)
        if operator in _TEXT_SHOWING and state.hides_text:
            dropped += 1
            if operator in _NEXT_LINE_OPERATORS:
                kept.append(([], b"T*"))
            continue
        kept.append((operands, operator))
    return kept, dropped


def remove_hidden_text(page: PageObject) -> int:
    """Replace the page's content (in memory only) by its visible part; return how many text operators went."""
    contents = page.get_contents()
    if contents is None or not might_hide_text(contents.get_data()):
        return 0
    stream = ContentStream(contents, page.pdf, "bytes")
    kept, dropped = visible_operations(stream.operations)
    if dropped:
        stream.operations = kept
        page[NameObject("/Contents")] = stream
    return dropped
