"""Remove text that a PDF draws but nobody sees, before extraction.

The source study found an almost empty page that yielded 2,500+ characters of hidden text, and hidden text in
a hospital's document would put words into the clinicians' answers. pypdf extracts every text-showing
operator regardless of visibility, so this module rewrites a page's content stream without the operators that
paint invisibly: text render mode 3/7 (neither fill nor stroke, used for OCR layers and keyword stuffing) and
filled text in pure white.

Form XObjects (stamps, watermarks, whole pages some producers wrap in a form) get the same treatment. pypdf's
layout mode, which the pipeline reads, does not enter them, but its plain mode, the fallback for pages layout
mode cannot handle, extracts their text as if it were the page's. A form paints in the graphics state of its
`Do`, so the same form can be visible in one place and invisible in another: it is rewritten once per
inherited state, into a copy under a new name that only this page's copied resources know. The file and the
shared form objects stay as they are. pypdf skips a form that invokes itself; a copy would escape that check,
so a cyclic `Do` (and one nested absurdly deep) is left out of the copies.
"""

import re
from typing import Any

from pypdf import PageObject
from pypdf.generic import ContentStream, DictionaryObject, NameObject, StreamObject

_TEXT_SHOWING = {b"Tj", b"TJ", b"'", b'"'}
_NEXT_LINE_OPERATORS = {b"'", b'"'}
_INVISIBLE_RENDER_MODES = {3, 7}
_FILL_ONLY_RENDER_MODES = {0, 4}
_ENCODING_KEYS = {"/Filter", "/DecodeParms", "/Length"}
_MAX_FORM_DEPTH = 32
_ONE = rb"1(?:\.0*)?"
_ZERO = rb"(?:0+(?:\.0*)?|\.0+)"
_MIGHT_HIDE = re.compile(
    rb"\bTr\b"
    rb"|(?<![0-9.])" + _ONE + rb"\s+g\b"
    rb"|(?<![0-9.])" + rb"\s+".join([_ONE] * 3) + rb"\s+rg\b"
    rb"|(?<![0-9.])" + rb"\s+".join([_ZERO] * 4) + rb"\s+k\b"
)

Operations = list[tuple[list[Any], bytes]]


class _GraphicsState:
    """The two parts of the graphics state that decide whether drawn text is visible."""

    def __init__(self, render_mode: int = 0, fill_is_white: bool = False) -> None:
        self.render_mode = render_mode
        self.fill_is_white = fill_is_white
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

    def for_form(self) -> "_GraphicsState":
        """The state a form starts in: the caller's, which the form cannot restore past (`Q` stops there)."""
        return _GraphicsState(self.render_mode, self.fill_is_white)

    @property
    def hides_text(self) -> bool:
        if self.render_mode in _INVISIBLE_RENDER_MODES:
            return True
        return self.fill_is_white and self.render_mode in _FILL_ONLY_RENDER_MODES


def might_hide_text(content: bytes) -> bool:
    """A cheap scan of the raw stream: only pages that set a render mode or a white fill need parsing."""
    return _MIGHT_HIDE.search(content) is not None


class _VisibleForms:
    """One page's forms, each rewritten at most once per graphics state it is invoked in."""

    def __init__(self, pdf: Any) -> None:
        self._pdf = pdf
        self._copies: dict[tuple[int, int, bool], tuple[StreamObject | None, int]] = {}
        self._open: list[int] = []

    def visible(
        self, operations: Operations, state: _GraphicsState, resources: DictionaryObject
    ) -> tuple[Operations, int, DictionaryObject | None]:
        """The operations without invisible text, how many text operators went, and the resources the
        rewritten operations need: None when nothing changed, so the original stream can stay."""
        xobjects = _xobjects(resources)
        kept: Operations = []
        dropped = 0
        copies: dict[NameObject, StreamObject] = {}
        cut = False
        for operands, operator in operations:
            state.apply(operator, operands)
            if operator in _TEXT_SHOWING and state.hides_text:
                dropped += 1
                if operator in _NEXT_LINE_OPERATORS:
                    kept.append(([], b"T*"))
                continue
            form = _form(xobjects, operands[0]) if operator == b"Do" and operands else None
            if form is not None:
                if id(form) in self._open or len(self._open) >= _MAX_FORM_DEPTH:
                    cut = True
                    continue
                copy, form_dropped = self._visible_form(form, state.for_form())
                dropped += form_dropped
                if copy is not None:
                    name = NameObject(f"{operands[0]}~visible-{state.render_mode}-{int(state.fill_is_white)}")
                    copies[name] = copy
                    operands = [name]
            kept.append((operands, operator))
        if not (dropped or copies or cut):
            return kept, 0, None
        return kept, dropped, _with_xobjects(resources, xobjects, copies) if copies else resources

    def _visible_form(self, form: StreamObject, state: _GraphicsState) -> tuple[StreamObject | None, int]:
        """A copy of the form without what is invisible in `state`, or None if nothing in it is."""
        key = (id(form), state.render_mode, state.fill_is_white)
        if key not in self._copies:
            self._open.append(id(form))
            try:
                stream = ContentStream(form, self._pdf, "bytes")
                resources = _dictionary(form.get("/Resources"))
                kept, dropped, new_resources = self.visible(stream.operations, state, resources)
            finally:
                self._open.pop()
            copy: StreamObject | None = None
            if new_resources is not None:
                stream.operations = kept
                for entry, value in form.items():
                    if entry not in _ENCODING_KEYS:
                        stream[NameObject(entry)] = value
                stream[NameObject("/Resources")] = new_resources
                copy = stream
            self._copies[key] = (copy, dropped)
        return self._copies[key]


def remove_hidden_text(page: PageObject) -> int:
    """Replace the page's content (in memory only) by its visible part; return how many text operators went."""
    contents = page.get_contents()
    if contents is None:
        return 0
    resources = _dictionary(page.get_inherited("/Resources"))
    if not might_hide_text(contents.get_data()) and not any(
        might_hide_text(form.get_data()) for form in _reachable_forms(resources)
    ):
        return 0
    stream = ContentStream(contents, page.pdf, "bytes")
    kept, dropped, new_resources = _VisibleForms(page.pdf).visible(
        stream.operations, _GraphicsState(), resources
    )
    if new_resources is not None:
        stream.operations = kept
        page[NameObject("/Contents")] = stream
        page[NameObject("/Resources")] = new_resources
    return dropped


def _dictionary(value: Any) -> DictionaryObject:
    resolved = value.get_object() if value is not None else None
    return resolved if isinstance(resolved, DictionaryObject) else DictionaryObject()


def _xobjects(resources: DictionaryObject) -> DictionaryObject:
    return _dictionary(resources.get("/XObject"))


def _form(xobjects: DictionaryObject, name: Any) -> StreamObject | None:
    """What pypdf's text extraction enters on `Do`: any XObject stream but an image."""
    entry = xobjects.get(name) if isinstance(name, str) else None
    resolved = entry.get_object() if entry is not None else None
    if isinstance(resolved, StreamObject) and resolved.get("/Subtype") != "/Image":
        return resolved
    return None


def _reachable_forms(resources: DictionaryObject) -> list[StreamObject]:
    """Every form these resources can invoke, directly or through other forms; each once."""
    found: dict[int, StreamObject] = {}
    pending = [resources]
    while pending:
        xobjects = _xobjects(pending.pop())
        for name in xobjects:
            form = _form(xobjects, name)
            if form is not None and id(form) not in found:
                found[id(form)] = form
                pending.append(_dictionary(form.get("/Resources")))
    return list(found.values())


def _with_xobjects(
    resources: DictionaryObject, xobjects: DictionaryObject, copies: dict[NameObject, StreamObject]
) -> DictionaryObject:
    """A shallow copy of the resources with the visible copies added; the shared originals are not touched."""
    new_resources = DictionaryObject(resources)
    new_xobjects = DictionaryObject(xobjects)
    new_xobjects.update(copies)
    new_resources[NameObject("/XObject")] = new_xobjects
    return new_resources
