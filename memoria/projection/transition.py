"""The random walk of PageRank over weighted edges, as sparse matrices built once per graph view.

The semantics are igraph's PRPACK ones, so scores agree with
`igraph.Graph.personalized_pagerank`: parallel edges add their weights, an
undirected view walks every edge both ways and counts a self-loop twice,
zero-weight edges are never walked, and a node with no weight to walk on
(dangling) sends its walker back to the personalization.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

# The walk's damping when a caller names none: the share of each step that follows an edge rather than going back to
# the seeds. PPR, its REST request and search's ppr method all default to it.
DEFAULT_DAMPING = 0.5


@dataclass(frozen=True)
class TransitionGraph:
    """Row-stochastic walk P (dangling rows empty) plus what each solver needs of it.

    Nodes live in *slots*: positions sorted by edge count, most first, so the
    scores of the hubs that most rows read sit together in cache (measured 20%
    faster multiplies on a 100k/500k graph). `slot[position]` and
    `node[slot]` translate. `forward` is P by source rows (a frontier's rows
    are sliced from it); `backward` is Pᵀ as CSR, the layout of the fastest full
    multiply. For undirected views `symmetric` is D^-1/2·W·D^-1/2, with D the
    weighted degrees. The `*_halves` split a matrix's rows in two (views, no
    copy) for two-thread multiplies.
    """

    size: int
    directed: bool
    slot: np.ndarray  # position → slot
    node: np.ndarray  # slot → position
    forward: sp.csr_matrix
    backward: sp.csr_matrix
    dangling: np.ndarray  # slots of nodes with no positive out-weight
    degree: np.ndarray  # by slot: weighted out-degree (undirected: weighted degree)
    backward_halves: tuple[sp.csr_matrix, sp.csr_matrix]
    symmetric: sp.csr_matrix | None = None
    symmetric_halves: tuple[sp.csr_matrix, sp.csr_matrix] | None = None
    sqrt_degree: np.ndarray | None = None  # by slot

    @property
    def edges(self) -> int:
        """Stored (summed) transitions: the cost of one full multiply."""
        return int(self.forward.nnz)

    def weighted_edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(sources, targets, weights) by position, parallel edges summed; undirected: each pair once."""
        adjacency = self.forward.multiply(self.degree[:, None]).tocoo()
        kept = adjacency.data > 0  # a zero-weight edge is never walked: it is no edge
        rows, cols, weights = self.node[adjacency.row[kept]], self.node[adjacency.col[kept]], adjacency.data[kept]
        if self.directed:
            return rows, cols, weights
        # The walk holds both directions, and a self-loop twice on its diagonal.
        once = rows <= cols
        halve = np.where(rows[once] == cols[once], 0.5, 1.0)
        return rows[once], cols[once], weights[once] * halve


@dataclass(frozen=True)
class WalkPattern:
    """Which transitions exist, in slots, computed once per graph view; `walk` fills in weights.

    Relation-aware PPR reweights every edge per query: with the pattern kept, that is
    a few passes over the stored entries instead of sorting the edges again.
    """

    size: int
    directed: bool
    slot: np.ndarray  # position → slot, by edge count, most first
    node: np.ndarray  # slot → position
    indptr: np.ndarray  # CSR of the adjacency, parallel edges merged into one stored entry
    indices: np.ndarray
    rows: np.ndarray  # the row of each stored entry
    place: np.ndarray  # the stored entry each input edge adds to (undirected: then each reversed edge)
    transpose: np.ndarray  # stored entries in the order of the transpose's CSR
    transpose_indptr: np.ndarray
    edge_count: int  # input edges

    def walk(self, weights: np.ndarray) -> TransitionGraph:
        """The walk with these weights (one per input edge, finite and ≥ 0; 0: never walked)."""
        weights = np.asarray(weights, dtype=np.float64)
        if len(weights) != self.edge_count:
            raise ValueError(f"expected {self.edge_count} weights, got {len(weights)}")
        if len(weights) and (not np.all(np.isfinite(weights)) or weights.min() < 0):
            raise ValueError("weights must be finite and non-negative")
        both = weights if self.directed else np.concatenate([weights, weights])
        size, stored = self.size, len(self.indices)
        adjacency = np.bincount(self.place, weights=both, minlength=stored)
        degree = np.bincount(self.rows, weights=adjacency, minlength=size)
        walking = degree > 0
        inverse = np.divide(1.0, degree, out=np.zeros(size), where=walking)
        forward = self._csr(adjacency * inverse[self.rows], self.indices, self.indptr)
        backward = self._csr(forward.data[self.transpose], self.rows[self.transpose], self.transpose_indptr)
        dangling = np.flatnonzero(~walking)
        common = (size, self.directed, self.slot, self.node, forward, backward, dangling, degree, _halves(backward))
        if self.directed:
            return TransitionGraph(*common)
        sqrt_degree = np.sqrt(degree)
        inverse_sqrt = np.divide(1.0, sqrt_degree, out=np.zeros(size), where=walking)
        symmetric = self._csr(
            adjacency * inverse_sqrt[self.rows] * inverse_sqrt[self.indices], self.indices, self.indptr
        )
        return TransitionGraph(*common, symmetric, _halves(symmetric), sqrt_degree)

    def _csr(self, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix((data, indices, indptr), shape=(self.size, self.size), copy=False)


def _halves(matrix: sp.csr_matrix) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """The rows split where half the stored values are, as views on the matrix's arrays."""
    indptr = matrix.indptr
    cut = int(np.searchsorted(indptr, indptr[-1] // 2))
    parts = []
    for start, stop in ((0, cut), (cut, matrix.shape[0])):
        first, last = indptr[start], indptr[stop]
        part = sp.csr_matrix(
            (matrix.data[first:last], matrix.indices[first:last], indptr[start : stop + 1] - first),
            shape=(stop - start, matrix.shape[1]),
            copy=False,
        )
        parts.append(part)
    return parts[0], parts[1]


def walk_pattern(*, size: int, sources: np.ndarray, targets: np.ndarray, directed: bool) -> WalkPattern:
    """The transitions between `size` nodes that the edges (position pairs) make possible."""
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    if len(sources) != len(targets):
        raise ValueError("sources and targets must have the same length")
    if len(sources) and (min(sources.min(), targets.min()) < 0 or max(sources.max(), targets.max()) >= size):
        raise ValueError("edge ends must be node positions in [0, size)")
    node = np.argsort(-(np.bincount(sources, minlength=size) + np.bincount(targets, minlength=size)), kind="stable")
    slot = np.empty(size, dtype=np.int64)
    slot[node] = np.arange(size)
    tails, heads = slot[sources], slot[targets]
    if not directed:
        # Both ways: a self-loop lands on the diagonal twice, as igraph counts it.
        tails, heads = np.concatenate([tails, heads]), np.concatenate([heads, tails])
    keys = tails * max(size, 1) + heads
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.ones(len(ordered), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    place = np.empty(len(keys), dtype=np.int64)
    place[order] = np.cumsum(starts) - 1
    stored = ordered[starts]
    rows, columns = stored // max(size, 1), stored % max(size, 1)
    transpose = np.lexsort((rows, columns))
    # int32 indices: a quarter less memory traffic per multiply than int64.
    index = np.int32 if max(size, len(stored)) < np.iinfo(np.int32).max else np.int64
    return WalkPattern(
        size=size,
        directed=directed,
        slot=slot,
        node=node,
        indptr=np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=size))]).astype(index),
        indices=columns.astype(index),
        rows=rows.astype(index),
        place=place,
        transpose=transpose,
        transpose_indptr=np.concatenate([[0], np.cumsum(np.bincount(columns, minlength=size))]).astype(index),
        edge_count=len(sources),
    )


def transition_graph(
    *, size: int, sources: np.ndarray, targets: np.ndarray, weights: np.ndarray, directed: bool
) -> TransitionGraph:
    """Build the walk over `size` nodes from edge arrays; weights must be finite and non-negative."""
    if len(weights) != len(sources):
        raise ValueError("sources, targets and weights must have the same length")
    return walk_pattern(size=size, sources=sources, targets=targets, directed=directed).walk(weights)
