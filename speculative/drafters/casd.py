"""CASD, context-aware speculative decoding: draft what followed the text the answer is copying right now.

The query is the last `query_tokens` accepted tokens plus the root. Its suffixes are looked up in the context
(`scope="context"`: prompt and generated tokens; `scope="prompt"`: the prompt only, the paper's CASD_prompt
ablation); a request that names its context (the retrieved passages) has them searched instead of the prompt. The `matches` longest occurrences win, ties broken by `tie_break`, and the `draft_tokens` tokens after
each become a branch of the tree, cut after a stop token and at the end of the text. The trivial match of the
query with itself at the very end of the sequence is excluded, as is a match whose branch would add no node
(its continuation is a prefix of a branch already chosen).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

from speculative.drafters.context_index import Match, NgramIndex, TieBreak
from speculative.engine.drafter import DraftContext, Drafter, DrafterFactory
from speculative.engine.tree import DraftTree
from speculative.settings import SpeculativeSettings

Scope = Literal["context", "prompt"]


@dataclass(frozen=True)
class CasdConfig:
    """CASD's parameters; the defaults are the paper's (query 10 + root, top-2, 10 tokens per branch)."""

    query_tokens: int = 10
    matches: int = 2
    draft_tokens: int = 10
    tie_break: TieBreak = "most_recent"
    scope: Scope = "context"

    def __post_init__(self) -> None:
        if self.query_tokens < 0 or self.matches < 1 or self.draft_tokens < 1:
            raise ValueError(f"invalid CASD parameters: {self}")

    @property
    def max_nodes(self) -> int:
        """The most nodes CASD can draft in one step."""
        return self.matches * self.draft_tokens


@dataclass(frozen=True)
class Branch:
    """One CASD draft: the continuation after a match."""

    match: Match
    tokens: tuple[int, ...]


class CasdDrafter(Drafter):
    """Copies continuations of the longest context matches.

    The index catches up with the committed sequence at each proposal (accepted tokens and bonus included), so
    `observe` has nothing left to learn.
    """

    def __init__(self, config: CasdConfig) -> None:
        self.config = config
        self.name = "casd" if config.scope == "context" else "casd_prompt"
        self._index = NgramIndex(max_n=config.query_tokens + 1)

    def budget_on_top(self, step_budget: int) -> int:
        """On top of a merged tree CASD adds all its branches, whatever the step's budget (the paper's ≤ 20)."""
        return self.config.max_nodes

    def propose(self, context: DraftContext) -> DraftTree:
        tree = context.new_tree()
        branches = self.branches(
            context.sequence, context.prompt_length, context.stop_token_ids, context.context_ids
        )
        for branch in branches:
            tree.add_path(branch.tokens[: context.max_depth], self.name, evidence=branch.match.length)
        return tree

    def branches(
        self,
        sequence: Sequence[int],
        prompt_length: int,
        stop_token_ids: frozenset[int],
        context_ids: Sequence[int] | None = None,
    ) -> list[Branch]:
        """The chosen continuations for the query at the end of `sequence`, best match first."""
        self._catch_up(sequence, prompt_length, context_ids)
        text = self._index.tokens
        query = sequence[max(0, len(sequence) - self.config.query_tokens - 1) :]
        self_match = len(text) - 1 if self.config.scope == "context" else None
        chosen: list[Branch] = []
        for match in self._index.longest_matches(query, self.config.tie_break, exclude_end=self_match):
            tokens = _continuation(text, match.end, self.config.draft_tokens, stop_token_ids)
            if tokens and not any(branch.tokens[: len(tokens)] == tokens for branch in chosen):
                chosen.append(Branch(match, tokens))
                if len(chosen) == self.config.matches:
                    break
        return chosen

    def _catch_up(
        self, sequence: Sequence[int], prompt_length: int, context_ids: Sequence[int] | None
    ) -> None:
        """Index what is new: the source (the prompt, or the request's context), then (context scope) each
        generated token; the indexed text is the source followed by the generated tokens."""
        source = sequence[:prompt_length] if context_ids is None else context_ids
        self._index.extend(source[len(self._index) :])
        if self.config.scope == "context":
            self._index.extend(sequence[prompt_length + len(self._index) - len(source) :])


def _continuation(
    text: Sequence[int], end: int, count: int, stop_token_ids: frozenset[int]
) -> tuple[int, ...]:
    """Up to `count` tokens after position `end`, cut just after the first stop token."""
    tokens: list[int] = []
    for token in text[end + 1 : end + 1 + count]:
        tokens.append(token)
        if token in stop_token_ids:
            break
    return tuple(tokens)


def build_casd(settings: SpeculativeSettings, scope: Scope) -> DrafterFactory:
    """One CASD drafter per request with the settings' CASD parameters, searching `scope`."""
    config = CasdConfig(
        query_tokens=settings.casd_query_tokens,
        matches=settings.casd_matches,
        draft_tokens=settings.casd_draft_tokens,
        tie_break=settings.casd_tie_break,
        scope=scope,
    )
    return partial(CasdDrafter, config)
