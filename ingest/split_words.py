"""Words that layout-mode extraction splits and plain mode reads whole, joined again.

pypdf's layout mode places text by position, which fixes the reading order of browser-printed pages, but in
justified text it turns wide letter gaps into spaces, one or many ("ontwikkel aar", "b ijv.", "wer      den",
"implementatie -fase", "5.3. 1a"). Split words break BM25, the embedding, the copy check and the highlight. Plain
mode of the same page reads these words whole, so two neighbours in the layout text are joined when plain mode
has the joined piece (between spaces) and never the pair, and reads it in the same place: after the same word or
before the same word (two columns side by side are never joined that way). The layout's order is kept, only the
bogus gaps go. Two words of the Dutch word list whose join is not one stay apart even when plain mode glued them
("de voorschriften", not "devoorschriften").
"""

import re

from ingest.vocabulary import Vocabulary

_TOKEN = re.compile(r"\S+")
_SPACES = re.compile(r"\s+")
_WORDLIKE = re.compile(r"[^\W\d_]{2,}")


def rejoin_split_words(layout: str, plain: str, vocabulary: Vocabulary | None = None) -> tuple[str, int]:
    """The layout text with split words joined, and how many joins were made; every other piece keeps its
    column (a joined word is padded with the spaces it lost), so that columns stay where they were."""
    vocabulary = vocabulary or Vocabulary()
    flat = f" {_SPACES.sub(' ', plain).strip()} "
    whole = set(flat.split())
    lines = []
    joins = 0
    for line in layout.split("\n"):
        tokens = [(match.start(), match.end(), match.group(0)) for match in _TOKEN.finditer(line)]
        kept: list[tuple[int, int, str]] = []
        for index, (start, end, token) in enumerate(tokens):
            if kept and _split(kept, token, tokens[index + 1 : index + 2], flat, whole, vocabulary):
                kept[-1] = (kept[-1][0], end, kept[-1][2] + token)
                joins += 1
            else:
                kept.append((start, end, token))
        lines.append(_rebuild(line, kept))
    return "\n".join(lines), joins


def _split(
    kept: list[tuple[int, int, str]],
    token: str,
    following: list[tuple[int, int, str]],
    flat: str,
    whole: set[str],
    vocabulary: Vocabulary,
) -> bool:
    """Whether the last kept piece and `token` are one word that layout mode split."""
    first = kept[-1][2]
    joined = first + token
    if joined not in whole or f" {first} {token} " in flat:
        return False
    if _both_words(first, token, vocabulary) and not vocabulary.in_list(joined):
        return False
    before = f" {kept[-2][2]} {joined} " if len(kept) > 1 else None
    after = f" {joined} {following[0][2]} " if following else None
    if before is None and after is None:
        return True
    return (before is not None and before in flat) or (after is not None and after in flat)


def _both_words(first: str, second: str, vocabulary: Vocabulary) -> bool:
    return all(_WORDLIKE.fullmatch(part) is not None and vocabulary.in_list(part) for part in (first, second))


def _rebuild(line: str, kept: list[tuple[int, int, str]]) -> str:
    """The line with its pieces where they were: a joined piece starts at its first part and is padded to
    where its last part ended."""
    out = []
    position = 0
    for start, end, token in kept:
        out.append(line[position:start])
        out.append(token.ljust(end - start))
        position = end
    out.append(line[position:])
    return "".join(out)
