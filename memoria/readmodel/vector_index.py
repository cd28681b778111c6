"""Exact cosine over one scope's embeddings, in a float32 matrix that grows in place.

Exact search with numpy (BLAS) is measured at a few milliseconds for 100k × 384
vectors on this machine, so no approximate index is needed at these sizes; an
approximate one would also bring back the recall loss the server's index had
(0.6 at k=10, memoria/search/methods.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

INITIAL_ROWS = 1024


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
        values = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(values))
        if not np.isfinite(norm) or norm == 0.0:
            self.remove(key)
            return
        row = self._rows.get(key)
        if row is None:
            row = self._free.pop() if self._free else self._grow()
            self._rows[key] = row
            self._keys[row] = key
        self._matrix[row] = values / norm
        self._alive[row] = True

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
        scores = self._matrix @ (target / norm)
        usable = self._alive & (scores > min_similarity)
        if keep is not None:
            usable &= np.fromiter((key in keep for key in self._keys), dtype=bool, count=len(self._keys))
        candidates = np.flatnonzero(usable)
        if len(candidates) > limit:
            # Everything tied with the limit-th score stays, so ties are broken by key, not by row order.
            cut = np.partition(scores[candidates], len(candidates) - limit)[len(candidates) - limit]
            candidates = candidates[scores[candidates] >= cut]
        ranked = sorted(((self._keys[row], float(scores[row])) for row in candidates), key=lambda h: (-h[1], h[0]))
        return ranked[:limit]  # type: ignore[return-value]

    def _grow(self) -> int:
        row = len(self._keys)
        if row == len(self._matrix):
            capacity = max(INITIAL_ROWS, 2 * len(self._matrix))
            matrix = np.zeros((capacity, self.dimensions), dtype=np.float32)
            matrix[:row] = self._matrix
            alive = np.zeros(capacity, dtype=bool)
            alive[:row] = self._alive
            self._matrix, self._alive = matrix, alive
        self._keys.append(None)
        return row
