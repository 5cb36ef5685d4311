"""Synthetic but realistic material for benchmarks: chunk corpora of any size and a 1,000-page PDF.

Index latency and write cost depend on the term distribution and the vector dimension, not on meaning, so
a corpus sampled from a realistic word distribution measures them faithfully at sizes no real collection
here reaches. Two vocabularies: the word frequencies of a real Dutch document, or a Zipf law over 50,000
made-up words; a single document knows only a few thousand words, so at 100,000 chunks each of its words
lies in hundreds of chunks, while a large collection has the long tail of rare terms (short BM25 posting
lists) that the Zipf vocabulary gives. Vectors are unit vectors, anywhere on the sphere or around cluster
centres like real embeddings (neighbourhoods of related passages): an exact scan costs the same for any
vectors, an HNSW graph walk does not.
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
    """Words with their frequencies, and which of them a query may use (`searchable`: content words)."""

    words: tuple[str, ...]
    probabilities: NDArray[np.float64]
    searchable: NDArray[np.bool_]

    @classmethod
    def from_text(cls, text: str) -> "Vocabulary":
        """The frequencies of a real text; queries leave out its stopwords and words of 3 letters or fewer."""
        counts = Counter(tokenize(text))
        words = tuple(counts)
        frequencies = np.array([counts[word] for word in words], dtype=np.float64)
        searchable = np.array([word not in DUTCH_STOPWORDS and len(word) > 3 for word in words])
        return cls(words, frequencies / frequencies.sum(), searchable)

    @classmethod
    def zipf(cls, size: int, exponent: float, function_words: int) -> "Vocabulary":
        """`size` made-up words (`w` + the rank in base 26) whose frequency falls off as rank^-exponent, as in
        any natural language; queries leave out the `function_words` commonest, which in a real language are
        the function words a stopword list drops."""
        ranks = np.arange(1, size + 1)
        frequencies = ranks.astype(np.float64) ** -exponent
        words = tuple("w" + np.base_repr(int(rank), 26).lower() for rank in ranks)
        return cls(words, frequencies / frequencies.sum(), ranks > function_words)

    def sample(self, rng: np.random.Generator, size: int) -> list[str]:
        return [self.words[i] for i in rng.choice(len(self.words), size=size, p=self.probabilities)]

    def query(self, rng: np.random.Generator, words: int) -> str:
        """A keyword query: content words only, with their frequencies among content words, as a clinician
        types them."""
        weights = np.where(self.searchable, self.probabilities, 0.0)
        chosen = rng.choice(len(self.words), size=words, p=weights / weights.sum())
        return " ".join(self.words[i] for i in chosen)


@dataclass(frozen=True)
class VectorSpace:
    """Where synthetic embeddings lie: scattered around `centres` (none: anywhere on the unit sphere)."""

    dimension: int
    centres: NDArray[np.float32] | None = None
    spread: float = 0.35

    @classmethod
    def clustered(cls, rng: np.random.Generator, dimension: int, clusters: int) -> "VectorSpace":
        return cls(dimension, rng.standard_normal((clusters, dimension)).astype(np.float32))

    def vectors(self, rng: np.random.Generator, count: int) -> NDArray[np.float32]:
        """`count` L2-normalised vectors, like the embedder's."""
        vectors = rng.standard_normal((count, self.dimension)).astype(np.float32)
        if self.centres is not None:
            vectors = self.centres[rng.integers(0, len(self.centres), count)] + self.spread * vectors
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def synthetic_documents(
    vocabulary: Vocabulary, space: VectorSpace, chunks: int, chunks_per_document: int, seed: int = 0
) -> Iterator[tuple[list[ChunkRecord], NDArray[np.float32]]]:
    """Documents of `chunks_per_document` chunks (the last one shorter) with vectors from `space`."""
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
        yield records, space.vectors(rng, count)


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
