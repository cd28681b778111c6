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


@dataclass(frozen=True)
class TransitionGraph:
    """Row-stochastic walk P (dangling rows empty) plus what each solver needs of it.

    Nodes live in *slots*: positions sorted by degree, highest first, so the
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
        rows, cols, weights = self.node[adjacency.row], self.node[adjacency.col], adjacency.data
        if self.directed:
            return rows, cols, weights
        # The walk holds both directions, and a self-loop twice on its diagonal.
        once = rows <= cols
        halve = np.where(rows[once] == cols[once], 0.5, 1.0)
        return rows[once], cols[once], weights[once] * halve


def _csr(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, size: int) -> sp.csr_matrix:
    matrix = sp.csr_matrix((values, (rows, cols)), shape=(size, size), dtype=np.float64)
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    return _narrow(matrix)


def _narrow(matrix: sp.csr_matrix) -> sp.csr_matrix:
    # int32 indices: a quarter less memory traffic per multiply than int64.
    if matrix.nnz < np.iinfo(np.int32).max:
        matrix.indices = matrix.indices.astype(np.int32, copy=False)
        matrix.indptr = matrix.indptr.astype(np.int32, copy=False)
    return matrix


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


def transition_graph(
    *, size: int, sources: np.ndarray, targets: np.ndarray, weights: np.ndarray, directed: bool
) -> TransitionGraph:
    """Build the walk over `size` nodes from edge arrays; weights must be finite and non-negative."""
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    if not (len(sources) == len(targets) == len(weights)):
        raise ValueError("sources, targets and weights must have the same length")
    if len(weights) and (not np.all(np.isfinite(weights)) or weights.min() < 0):
        raise ValueError("weights must be finite and non-negative")
    if len(sources) and (min(sources.min(), targets.min()) < 0 or max(sources.max(), targets.max()) >= size):
        raise ValueError("edge ends must be node positions in [0, size)")
    ends = np.bincount(sources, weights=weights, minlength=size) + np.bincount(targets, weights=weights, minlength=size)
    node = np.argsort(-ends, kind="stable")
    slot = np.empty(size, dtype=np.int64)
    slot[node] = np.arange(size)
    sources, targets = slot[sources], slot[targets]
    if directed:
        adjacency = _csr(sources, targets, weights, size)
    else:
        # Both ways: a self-loop lands on the diagonal twice, as igraph counts it.
        both_sources, both_targets = np.concatenate([sources, targets]), np.concatenate([targets, sources])
        adjacency = _csr(both_sources, both_targets, np.concatenate([weights, weights]), size)
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    walking = degree > 0
    inverse = np.divide(1.0, degree, out=np.zeros(size), where=walking)
    forward = _csr_scaled_rows(adjacency, inverse)
    backward = _narrow(forward.transpose().tocsr())
    dangling = np.flatnonzero(~walking)
    if directed:
        return TransitionGraph(size, True, slot, node, forward, backward, dangling, degree, _halves(backward))
    sqrt_degree = np.sqrt(degree)
    inverse_sqrt = np.divide(1.0, sqrt_degree, out=np.zeros(size), where=walking)
    symmetric = _csr_scaled_rows(adjacency, inverse_sqrt)
    symmetric.data *= inverse_sqrt[symmetric.indices]
    return TransitionGraph(
        size,
        False,
        slot,
        node,
        forward,
        backward,
        dangling,
        degree,
        _halves(backward),
        symmetric,
        _halves(symmetric),
        sqrt_degree,
    )


def _csr_scaled_rows(matrix: sp.csr_matrix, factors: np.ndarray) -> sp.csr_matrix:
    scaled = matrix.copy()
    scaled.data *= np.repeat(factors, np.diff(matrix.indptr))
    return scaled
