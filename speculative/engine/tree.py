"""The draft tree that one target forward verifies: a trie of candidate continuations below the root.

Node 0 is the root (the last token the target chose, not yet in its KV cache); every other node is a drafted
token whose parent precedes it, so the node order is also the row order of the verification forward. Inserting
through the trie makes drafts with a shared prefix reuse nodes, which is how the drafts of several drafters
(EAGLE-2's tree and CASD's copies) merge into one tree. Each node remembers the drafter that first proposed it and
that drafter's evidence for it (EAGLE-2: its probability given the parent; CASD: the length of the context match it
copies), which the adaptive tree budget calibrates into acceptance probabilities.
"""

from collections import Counter
from collections.abc import Iterable, Sequence

import torch

ROOT = 0
ROOT_SOURCE = "root"
NO_EVIDENCE = 1.0


class DraftTree:
    """Tokens, parent pointers, depths, sources and evidence of a draft tree, with an optional node budget."""

    def __init__(self, root_token: int, max_nodes: int | None = None) -> None:
        if max_nodes is not None and max_nodes < 0:
            raise ValueError(f"max_nodes must be ≥ 0, got {max_nodes}")
        self.max_nodes = max_nodes
        self.tokens: list[int] = [root_token]
        self.parents: list[int] = [-1]
        self.depths: list[int] = [0]
        self.sources: list[str] = [ROOT_SOURCE]
        self.evidence: list[float] = [NO_EVIDENCE]
        self._children: list[dict[int, int]] = [{}]

    @property
    def root_token(self) -> int:
        return self.tokens[ROOT]

    @property
    def num_drafted(self) -> int:
        """Nodes below the root: what the budget counts."""
        return len(self.tokens) - 1

    @property
    def num_rows(self) -> int:
        """Rows of the verification forward: the root and every drafted node."""
        return len(self.tokens)

    @property
    def is_full(self) -> bool:
        return self.max_nodes is not None and self.num_drafted >= self.max_nodes

    def child(self, node: int, token: int) -> int | None:
        """The child of `node` that holds `token`, if drafted."""
        return self._children[node].get(token)

    def children(self, node: int) -> list[int]:
        return list(self._children[node].values())

    def add(self, parent: int, token: int, source: str, evidence: float = NO_EVIDENCE) -> int | None:
        """Insert `token` below `parent`, reusing an existing child; None once the budget is spent."""
        if not 0 <= parent < len(self.tokens):
            raise IndexError(f"parent {parent} is not a node of this {len(self.tokens)}-node tree")
        existing = self._children[parent].get(token)
        if existing is not None:
            return existing
        if self.is_full:
            return None
        node = len(self.tokens)
        self.tokens.append(token)
        self.parents.append(parent)
        self.depths.append(self.depths[parent] + 1)
        self.sources.append(source)
        self.evidence.append(evidence)
        self._children.append({})
        self._children[parent][token] = node
        return node

    def add_path(
        self, tokens: Sequence[int], source: str, parent: int = ROOT, evidence: float = NO_EVIDENCE
    ) -> list[int]:
        """Insert a chain below `parent`; returns its nodes, shorter than `tokens` if the budget ran out."""
        nodes: list[int] = []
        for token in tokens:
            node = self.add(parent, token, source, evidence)
            if node is None:
                break
            nodes.append(node)
            parent = node
        return nodes

    def merge(self, other: "DraftTree") -> list[int]:
        """Insert every node of `other` (same root) as a trie, keeping its sources; returns the mapped nodes."""
        if other.root_token != self.root_token:
            raise ValueError(
                f"cannot merge trees with different roots ({other.root_token} ≠ {self.root_token})"
            )
        mapped = [ROOT]
        for node in range(1, other.num_rows):
            parent = mapped[other.parents[node]]
            new = None if parent < 0 else self._copy_node(other, node, parent)
            mapped.append(-1 if new is None else new)
        return mapped[1:]

    def path_to(self, node: int) -> list[int]:
        """Nodes from the root's first child down to `node` (empty for the root)."""
        path: list[int] = []
        while node != ROOT:
            path.append(node)
            node = self.parents[node]
        return path[::-1]

    def source_counts(self) -> Counter[str]:
        """How many nodes each drafter contributed (a shared prefix counts for its first proposer)."""
        return Counter(self.sources[1:])

    def pruned_to_depth(self, max_depth: int) -> "DraftTree":
        """A copy without the nodes deeper than `max_depth` (e.g. past the tokens still allowed)."""
        return self.kept(node for node in range(1, self.num_rows) if self.depths[node] <= max_depth)

    def kept(self, nodes: Iterable[int]) -> "DraftTree":
        """A copy holding only `nodes` (and none whose parent is dropped), in this tree's order."""
        wanted = set(nodes)
        kept = DraftTree(self.root_token, self.max_nodes)
        mapped = [ROOT]
        for node in range(1, self.num_rows):
            parent = mapped[self.parents[node]]
            added = kept._copy_node(self, node, parent) if parent >= 0 and node in wanted else None
            mapped.append(-1 if added is None else added)
        return kept

    def _copy_node(self, other: "DraftTree", node: int, parent: int) -> int | None:
        """Add `other`'s `node` below our `parent`, with its source and evidence."""
        return self.add(parent, other.tokens[node], other.sources[node], other.evidence[node])

    def ancestor_mask(self) -> torch.Tensor:
        """Bool `[rows, rows]`: entry (i, j) is True when node j is node i or one of its ancestors."""
        rows = self.num_rows
        mask = torch.zeros(rows, rows, dtype=torch.bool)
        mask[ROOT, ROOT] = True
        for node in range(1, rows):
            mask[node] = mask[self.parents[node]]
            mask[node, node] = True
        return mask

    def position_offsets(self) -> torch.Tensor:
        """Long `[rows]`: each node's depth, its position after the committed prefix if accepted."""
        return torch.tensor(self.depths, dtype=torch.long)

    def __repr__(self) -> str:
        return f"DraftTree(root={self.root_token}, drafted={self.num_drafted}, max_nodes={self.max_nodes})"
