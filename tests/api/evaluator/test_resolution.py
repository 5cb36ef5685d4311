"""Evaluators name documents by id, file name or title; anything else resolves to nothing."""

from api.evaluator.resolution import DocumentResolver, IndexedDocument

CATALOGUE = [
    IndexedDocument(id="doc-1", title="Pijnbeleid bij kinderen", file_name="pijnbeleid_kinderen.pdf"),
    IndexedDocument(id="doc-2", title="Pijnbeleid bij volwassenen", file_name="pijnbeleid_volwassenen.pdf"),
    IndexedDocument(id="doc-3", title="Isolatiemaatregelen", file_name=None),
    IndexedDocument(id="doc-4", title="Isolatiemaatregelen", file_name="isolatie-2024.pdf"),
]


def test_a_reference_resolves_by_id_file_name_stem_or_title_ignoring_case_and_spacing() -> None:
    resolver = DocumentResolver(CATALOGUE)

    assert resolver.resolve("doc-2") == {"doc-2"}
    assert resolver.resolve("PIJNBELEID_KINDEREN.pdf") == {"doc-1"}
    assert resolver.resolve("pijnbeleid_kinderen") == {"doc-1"}
    assert resolver.resolve("  pijnbeleid   bij Volwassenen ") == {"doc-2"}


def test_a_shared_title_names_every_document_that_carries_it() -> None:
    assert DocumentResolver(CATALOGUE).resolve("isolatiemaatregelen") == {"doc-3", "doc-4"}


def test_a_reference_that_names_nothing_resolves_to_nothing() -> None:
    resolver = DocumentResolver(CATALOGUE)

    assert resolver.resolve("doc-9") == frozenset()
    assert resolver.resolve("Pijnbeleid") == frozenset()
    assert resolver.resolve("DOC-1") == frozenset()
