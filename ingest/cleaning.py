"""Clean the noise PDF extraction leaves in text, keeping the natural language.

Per line: compatibility characters (ligatures, full-width forms) become plain letters (NFKC), invisible and
control characters go, symbol-font bullets become "- ", stray backslashes go, runs of spaces collapse,
letter-spaced headers become words (`letter_spacing.py`).
Per page: words hyphenated at a line end are rejoined (without the hyphen, "behan-" + "deling", unless the word
is written with it: a known hyphenated word, a vowel clash such as "micro-organismen", a capital or digit before
it as in "MS-patiënten"), lines broken inside a sentence are joined, blank lines collapse to one paragraph break. Both sides of a search (indexing and the query) normalise the same
way through `normalise_characters`.
"""

import re
import unicodedata
from collections.abc import Iterable

from ingest.letter_spacing import unspace_letters
from ingest.vocabulary import Vocabulary

_BULLETS = "•◦▪▫■□●○►▸▹▶➢➤➔→✓✔❖◆◇♦·*"
_PRIVATE_USE = r"\ue000-\uf8ff"
_LEADING_BULLET = re.compile(rf"^\s*(?:[{re.escape(_BULLETS)}{_PRIVATE_USE}]|-(?=\s))\s*")
_PRIVATE_USE_CHARACTER = re.compile(rf"[{_PRIVATE_USE}]")
_STRAY_BACKSLASH = re.compile(r"(?<!\S)\\+|\\+(?!\S)")
_SPACES = re.compile(r"[^\S\n]+")
_HYPHENATED_END = re.compile(r"(?<=[^\W\d_])-$")
_FIRST_WORD = re.compile(r"[^\W\d_]+")
_SENTENCE_END = re.compile(r"[.!?:;]['\")\]]*$")
_TAIL = 16  # only the end of the text before a break matters; searching all of it would be quadratic
_CONJUNCTIONS_AFTER_HYPHEN = frozenset({"en", "of", "tot", "t/m", "and", "or"})
_LAST_WORD = re.compile(r"[^\W\d_]+(?=-$)")
_VOWELS = "aeiouyáéíóúëïöüèàêâîôû"
_CLASHES = frozenset(
    {
        "aa",
        "ae",
        "ai",
        "au",
        "ee",
        "ei",
        "eu",
        "ie",
        "ii",
        "oe",
        "oi",
        "oo",
        "ou",
        "ui",
        "uu",
        "ea",
        "eo",
        "ia",
    }
)


def normalise_characters(text: str) -> str:
    """NFKC, and every invisible or control character removed or turned into a plain space."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(_plain_character(character) for character in text)


def _plain_character(character: str) -> str:
    if character in "\n\t":
        return " " if character == "\t" else character
    category = unicodedata.category(character)
    if category in ("Cc", "Cf", "Cs", "Cn"):
        return ""
    if category in ("Zs", "Zl", "Zp"):
        return " "
    return character


def clean_line(line: str) -> str:
    """One extracted line as readable text: bullets normalised, private-use glyphs and stray `\\` removed."""
    line = normalise_characters(line)
    bullet = _LEADING_BULLET.match(line)
    if bullet and line[bullet.end() :].strip():
        line = "- " + line[bullet.end() :]
    line = _PRIVATE_USE_CHARACTER.sub("", line)
    line = _STRAY_BACKSLASH.sub(" ", line)
    return unspace_letters(_SPACES.sub(" ", line).strip())


def join_lines(lines: Iterable[str], vocabulary: Vocabulary | None = None) -> str:
    """Cleaned lines of one page as paragraphs: wrapped lines joined, one blank line between paragraphs;
    `vocabulary` decides whether a line-end hyphen stays (None: the Dutch word list alone)."""
    vocabulary = vocabulary or Vocabulary()
    paragraphs: list[str] = []
    current = ""
    after_row = False
    for line in lines:
        if line:
            row = type(line) is not str  # a table row (`document_text.RowLine`) stands on its own line
            if not current:
                current = line
            elif row or after_row:
                current = f"{current}\n{line}"
            else:
                current = join_two(current, line, vocabulary)
            after_row = row
        elif current:
            paragraphs.append(current)
            current = ""
            after_row = False
    if current:
        paragraphs.append(current)
    return "\n\n".join(paragraphs)


def join_two(before: str, after: str, vocabulary: Vocabulary) -> str:
    """Two consecutive lines as one text: a rejoined word, a space inside a sentence, else a line break."""
    if continues_word(before, after):
        return before + after if keeps_hyphen(before, after, vocabulary) else before[:-1] + after
    return before + (" " if is_soft_break(before, after) else "\n") + after


def keeps_hyphen(before: str, after: str, vocabulary: Vocabulary) -> bool:
    """Whether a word hyphenated at a line end (`before` ends in it, `after` goes on with it) is written with its
    hyphen: the word without it is not known and the hyphenated one is, or the parts clash (two vowels that would
    read as one sound, a capital or digit before the hyphen)."""
    head = _LAST_WORD.search(before[-_TAIL * 2 :])
    tail = _FIRST_WORD.match(after)
    if head is None or tail is None:
        return True
    first, second = head.group(0), tail.group(0)
    if not first[-1].islower() or any(character.isupper() for character in first[1:]):
        return True  # an abbreviation: "MS-patiënten", "IFNβ-producten"
    if vocabulary.knows(first + second):
        return False
    if vocabulary.knows(f"{first}-{second}"):
        return True
    return first[-1] in _VOWELS and (first[-1] + second[0]) in _CLASHES


def is_soft_break(before: str, after: str) -> bool:
    """A line broken by wrapping: no sentence end before it, a lowercase word after it, not a list item."""
    if _SENTENCE_END.search(before[-_TAIL:]) or after.startswith("- "):
        return False
    first = after[:1]
    return first.isalpha() and first.islower()


def continues_word(before: str, after: str) -> bool:
    """`behan-` + `deling` is one word; `hart-` + `en vaatziekten` and `COVID-` + `19` are not rejoined."""
    if not _HYPHENATED_END.search(before[-_TAIL:]):
        return False
    word = _FIRST_WORD.match(after)
    first_word = word.group(0) if word else ""
    return bool(first_word) and first_word[0].islower() and first_word not in _CONJUNCTIONS_AFTER_HYPHEN
