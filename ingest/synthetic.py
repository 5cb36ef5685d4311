"""Synthetic but realistic material for benchmarks: chunk corpora of any size and a 1,000-page PDF.

Index latency and write cost depend on the term distribution and the vector dimension, not on meaning, so
a corpus sampled from the word frequencies of a real Dutch document (with random unit vectors) measures
them faithfully at sizes no real collection here reaches.
"""

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from ingest.search.tokens import DUTCH_STOPWORDS, tokenize
from ingest.search.types import ChunkRecord

WORDS_PER_CHUNK = 120


@dataclass(frozen=True)
class Vocabulary:
    """Words with the frequencies they have in a real text."""

    words: tuple[str, ...]
    probabilities: NDArray[np.float64]

    @classmethod
    def from_text(cls, text: str) -> "Vocabulary":
        counts = Counter(tokenize(text))
        words = tuple(counts)
        frequencies = np.array([counts[word] for word in words], dtype=np.float64)
        return cls(words, frequencies / frequencies.sum())

    def sample(self, rng: np.random.Generator, size: int) -> list[str]:
        return [self.words[i] for i in rng.choice(len(self.words), size=size, p=self.probabilities)]

    def query(self, rng: np.random.Generator, words: int) -> str:
        """A keyword query: content words only, as a clinician types them."""
        content = [
            word for word in self.sample(rng, words * 4) if word not in DUTCH_STOPWORDS and len(word) > 3
        ]
        return " ".join(content[:words])


def synthetic_documents(
    vocabulary: Vocabulary, chunks: int, chunks_per_document: int, dimension: int, seed: int = 0
) -> Iterator[tuple[list[ChunkRecord], NDArray[np.float32]]]:
    """Documents of `chunks_per_document` chunks (the last one shorter) with random unit vectors."""
    rng = np.random.default_rng(seed)
    for number, first in enumerate(range(0, chunks, chunks_per_document)):
        count = min(chunks_per_document, chunks - first)
        document_id = f"synthetic-{seed}-{number:07d}"
        records = []
        for index in range(count):
            text = " ".join(vocabulary.sample(rng, WORDS_PER_CHUNK))
            records.append(
                ChunkRecord(
                    document_id=document_id,
                    chunk_index=index,
                    text=f"Titel: Synthetisch document {number}\nTekst: {text}",
                    chunk=text,
                    title=f"Synthetisch document {number}",
                    source_path=f"/synthetic/{document_id}.pdf",
                    page_start=index + 1,
                    page_end=index + 1,
                    char_start=0,
                    char_end=len(text),
                )
            )
        vectors = rng.normal(size=(count, dimension)).astype(np.float32)
        yield records, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def long_pdf(path: Path, pages: int) -> Path:
    """A text PDF of many pages (a handbook), each with a few lines of Dutch and a page footer."""
    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    canvas.setTitle("Handboek verpleegkunde")
    _, height = A4
    topics = ["koorts", "pijnbestrijding", "wondzorg", "mobilisatie", "voeding", "medicatie", "hygiëne"]
    for number in range(1, pages + 1):
        canvas.setFont("Helvetica", 11)
        topic = topics[number % len(topics)]
        lines = (
            f"Hoofdstuk {number}: {topic} bij opgenomen patiënten.",
            f"Afspraak P{number * 7 + 3:05d}: controleer de parameters elke {2 + number % 5} uur.",
            f"Overleg bij twijfel over {topic} met de arts van dienst en noteer het overleg in het dossier.",
            f"Evalueer de aanpak voor {topic} bij elke overdracht, uiterlijk na {1 + number % 3} dagen.",
        )
        for row, line in enumerate(lines):
            canvas.drawString(72, height - 80 - row * 15, line)
        canvas.setFont("Helvetica", 8)
        canvas.drawString(72, 30, f"Pagina {number} van {pages}")
        canvas.showPage()
    canvas.save()
    return path
