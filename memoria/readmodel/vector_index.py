"""Exact cosine over one scope's embeddings, in a float32 matrix that grows in place.

Exact search with numpy (BLAS) reads the whole matrix once a query: at 100k × 384
vectors that is 154 MB, 20 ms at p50 on the shared 2-core machine (`bench view`,
docs/benchmarks.md) and most of a search at that size. An approximate index would
bring back the recall loss the server's index had (0.6 at k=10,
memoria/search/methods.py); fewer bytes a query with the same answers (a compact
copy scanned first, its candidates rescored exactly) is the way left open.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

INITIAL_ROWS = 1024
GROWTH_DIVISOR = 4


class VectorIndex:
    """Rows by key; vectors are stored normalised, so a dot product is the cosine."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._matrix = np.zeros((0, dimensions), dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)
        self._keys: list[str | None] = []
        self._rows: dict[str, int] = {}
        self._free: list[int] = []

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def nbytes(self) -> int:
        return int(self._matrix.nbytes + self._alive.nbytes) + 100 * len(self._keys)

    def put(self, key: str, vector: Sequence[float] | np.ndarray | None) -> None:
        """Store (or replace) a key's vector; a missing or wrongly sized one removes the key."""
        if vector is None or len(vector) != self.dimensions:
            self.remove(key)
            return
        self.put_rows([key], np.asarray(vector, dtype=np.float32)[None, :])

    def put_rows(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Store (or replace) many keys' vectors at once, one row each: what a view's build does, page by page,
        without a Python step per vector. Rows of the wrong size, zero or not finite remove their key, as `put`."""
        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} keys for {len(vectors)} vectors")
        if vectors.ndim != 2 or vectors.shape[1] != self.dimensions:
            for key in keys:
                self.remove(key)
            return
        vectors = vectors.astype(np.float32, copy=False)
        # One way of normalising for a build and a single put alike, so a re-read item scores as it did.
        norms = np.linalg.norm(vectors, axis=1)
        usable = np.isfinite(norms) & (norms > 0.0)
        rows = np.empty(len(keys), dtype=np.intp)
        for position, key in enumerate(keys):
            if not usable[position]:
                self.remove(key)
                rows[position] = -1
                continue
            row = self._rows.get(key)
            if row is None:
                row = self._free.pop() if self._free else self._grow()
                self._rows[key] = row
                self._keys[row] = key
            rows[position] = row
        placed = rows >= 0
        self._matrix[rows[placed]] = vectors[placed] / norms[placed, None]
        self._alive[rows[placed]] = True

    def remove(self, key: str) -> None:
        row = self._rows.pop(key, None)
        if row is not None:
            self._alive[row] = False
            self._keys[row] = None
            self._free.append(row)

    def vector(self, key: str) -> list[float] | None:
        row = self._rows.get(key)
        return None if row is None else self._matrix[row].tolist()

    def nearest(
        self, query: Sequence[float], *, limit: int, min_similarity: float = -1.0, keep: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """(key, cosine) best first, ties by key, above `min_similarity`, among `keep` if given."""
        if limit <= 0 or not self._rows:
            return []
        target = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(target))
        if norm == 0.0 or len(target) != self.dimensions:
            return []
        used = len(self._keys)  # rows past it are spare room: reading them would only cost time
        scores = self._matrix[:used] @ (target / norm)
        usable = self._alive[:used] & (scores > min_similarity)
        if keep is not None:
            usable &= np.fromiter((key in keep for key in self._keys), dtype=bool, count=len(self._keys))
        if int(np.count_nonzero(usable)) > limit:
            # One partition over all rows, unusable ones sunk: no copies of the (often half the rows) usable
            # scores. Everything tied with the limit-th score stays, so ties are broken by key, not by row order.
            np.copyto(scores, -np.inf, where=~usable)
            cut = np.partition(scores, used - limit)[used - limit]
            usable &= scores >= cut
        candidates = np.flatnonzero(usable)
        ranked = sorted(((self._keys[row], float(scores[row])) for row in candidates), key=lambda h: (-h[1], h[0]))
        return ranked[:limit]  # type: ignore[return-value]

    def reserve(self, rows: int) -> None:
        """Room for `rows` more keys, allocated once and exactly: a build that knows its size copies its
        vectors once instead of at every growth, and keeps no spare rows."""
        needed = len(self._keys) + rows - len(self._free)
        if needed > len(self._matrix):
            self._resize(needed)

    def _grow(self) -> int:
        row = len(self._keys)
        if row == len(self._matrix):
            # By a quarter: a built view that takes one more item must not double its largest allocation.
            self._resize(max(INITIAL_ROWS, row + row // GROWTH_DIVISOR))
        self._keys.append(None)
        return row

    def _resize(self, capacity: int) -> None:
        row = len(self._keys)
        matrix = np.zeros((capacity, self.dimensions), dtype=np.float32)
        matrix[:row] = self._matrix[:row]
        alive = np.zeros(capacity, dtype=bool)
        alive[:row] = self._alive[:row]
        self._matrix, self._alive = matrix, alive
