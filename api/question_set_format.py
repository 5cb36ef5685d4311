"""The columns of a labelled question set's CSV: what the evaluator reads (`api.evaluator.queries`) and the
feedback export writes as a set (`api.services.feedback`), kept below both."""

DOCUMENT_SEPARATOR = ";"  # between several relevant documents in one cell
CSV_COLUMNS = ("question", "relevant_documents")
OPTIONAL_CSV_COLUMNS = ("id", "answer")
