"""The RELATES facts at each node in both directions: the undirected adjacency Activation Energy walks.

The projection's CSR lists edges by source only; activation's `(current)-[r:RELATES]-(neighbor)` reads each
fact from both ends, so each fact appears twice here (once a self-loop's both entries), with which end it
was stored from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FactIncidence:
    indptr: np.ndarray  # int64, nodes + 1: node i's entries are indptr[i]:indptr[i+1]
    neighbours: np.ndarray  # int32: the other end's position
    edges: np.ndarray  # int32: the fact's edge index in the projection
    outgoing: np.ndarray  # bool: the fact is stored from this node to the neighbour

    def memory_bytes(self) -> int:
        return sum(a.nbytes for a in (self.indptr, self.neighbours, self.edges, self.outgoing))


def fact_incidence(sources: np.ndarray, targets: np.ndarray, relates: np.ndarray, size: int) -> FactIncidence:
    """From the projection's edges (by source) and which of them are RELATES facts."""
    edges = np.flatnonzero(relates).astype(np.int32)
    starts, ends = sources[edges], targets[edges]
    at = np.concatenate((starts, ends))
    order = np.argsort(at, kind="stable")
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(at, minlength=size), out=indptr[1:])
    return FactIncidence(
        indptr=indptr,
        neighbours=np.concatenate((ends, starts)).astype(np.int32)[order],
        edges=np.concatenate((edges, edges))[order],
        outgoing=np.concatenate((np.ones(len(edges), dtype=bool), np.zeros(len(edges), dtype=bool)))[order],
    )
