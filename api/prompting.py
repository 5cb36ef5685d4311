"""The product's RAG prompt: the question and its passages in the bracket template, and where answers end.

The passages are the retrieved chunks, after the chosen quote when the chat puts it first (`prompt_passages` in
api/chat/sources.py, setting ANSWER_QUOTE_FIRST).

The API renders the prompt and sends it to the worker with these stop strings and the chunks as CASD's context
(docs/worker.md): the worker is a generic generation service that knows no template. The bracket style is
the one the source system's generator handled well; the role line is needed, otherwise the model refuses medical
questions; the instruction after it asks for one or two sentences from the passages, or "niet gevonden". The
model continues after `[begin antwoord]`; writing any marker of the template means the answer is over (the closing
`[einde antwoord]`, or a new `[begin …]` block the model invents), so those are the stop strings.
"""

from collections.abc import Sequence

DEFAULT_HOSPITAL = "UZGent"
CHUNK_SEPARATOR = "—"
ANSWER_START = "[begin antwoord]\n"
ANSWER_STOP_STRINGS = ("[einde antwoord]", "[begin")
_ROLE_LINE = "Jij bent een dokter. Jij kent alle medische procedures van het {hospital}."
# Asked of every model: a short answer from the passages, and the reply the chat recognises as the model's own "not
# found" (api/chat/abstention.py). Chosen on the real development part (docs/evaluation.md, "The generator's
# instruction").
INSTRUCTION = (
    "Beantwoord de vraag in één of twee zinnen, alleen met wat in de documenten staat. Staat het antwoord niet in "
    'de documenten, antwoord dan "niet gevonden".'
)


def build_rag_prompt(question: str, chunks: Sequence[str], hospital: str = DEFAULT_HOSPITAL) -> str:
    """The prompt text for `question` answered from `chunks` (in retrieval order), ready to tokenise.

    Chunks and question are stripped of surrounding whitespace so the markers always stand on their own lines
    (blank chunks are left out); a question without chunks still gets an empty documents block, so the model can
    say it does not know.
    """
    question = question.strip()
    if not question:
        raise ValueError("the question is empty")
    if not hospital.strip():
        raise ValueError("the hospital name is empty")
    documents = f"\n{CHUNK_SEPARATOR}\n".join(chunk.strip() for chunk in chunks if chunk.strip())
    blocks = [
        _block("context", _ROLE_LINE.format(hospital=hospital.strip()) + "\n" + INSTRUCTION),
        _block("documenten", documents),
        _block("vraag", question),
    ]
    return "\n\n".join(blocks) + "\n\n" + ANSWER_START


def _block(name: str, body: str) -> str:
    """One `[begin name]` … `[einde name]` block; an empty body leaves the two markers on adjacent lines."""
    return "\n".join([f"[begin {name}]", *([body] if body else []), f"[einde {name}]"])
