"""Cosine over one scope's embeddings, held as two levels of int8 codes: 772 bytes a row where float32 took 1,536.

A unit row v is stored as its peak p = max|vᵢ|, a coarse code c = round(127·v/p) and a fine code
f = round(32,258·v/p − 254·c) (what the coarse code missed, in steps 254 times finer), each code one signed byte.
Decoded, p·(254·c + f)/32,258 is within p/64,516 of each component: a 384-dimension MiniLM row (p ≈ 0.2) is read
back to about 3e-6, where a float16 copy of the same 768 bytes would err by up to 2.4e-4 of each component. So no
float32 matrix is kept: the float32 vectors stay on the graph server, the store of record.

A search first scans the coarse codes alone with SimSIMD's int8 dot product (a quarter of the float32 matrix's
bytes: 100k × 384 in 1.5 ms on one core where numpy's float32 product took 6.0 ms). Every row's coarse error is
bounded (`_bound`), so the rows whose cosine could reach the limit-th one are known, and those few (hundreds at
100k) are decoded whole and scored. The answers are those of an exact search over the decoded rows, which differ
from float32 cosines by the decoding's error alone: `bench vectors` measures recall@10 against the exact float32
search and the largest score error (docs/benchmarks.md, "Views that fit a million"). An approximate index (HNSW)
would bring back the recall loss the server's index had (0.6 at k=10, memoria/search/methods.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import simsimd

INITIAL_ROWS = 1024
GROWTH_DIVISOR = 4
INT8_MAX = 127
FINE_STEPS = 254  # fine steps per coarse step: a coarse code misses by at most half a step, 127 fine ones
LEVELS = INT8_MAX * FINE_STEPS  # steps of the peak in the decoded row
# Below this many rows decoding every row and scoring it is as fast as the int8 scan and its follow-up; a limit
# above this share of the rows would rescore most of them anyway.
SCAN_MIN_ROWS = 4096
SCAN_MAX_LIMIT_SHARE = 0.05
# What float32 arithmetic may add to a bound made in exact arithmetic (a 384-term dot product rounds by ~1e-5 at
# worst): the window of rows to rescore is widened by it, so a rounding never drops a row.
FLOAT_MARGIN = 1e-4


def exact_cosines(rows: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Each row's dot product with the query, one pair at a time (SimSIMD, float64 results): a row's score does
    not depend on where it sits in the matrix, as BLAS's blocked products' last bits do, so equal rows tie exactly
    and are ordered by key whichever rows are scored together."""
    if not len(rows):
        return np.zeros(0)
    return np.asarray(simsimd.cdist(unit[None, :], rows, metric="dot", threads=1))[0]


def quantised(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unit rows as (peaks, coarse codes, fine codes, each row's coarse residual norm ‖row − (p/127)·c‖)."""
    peak = np.abs(rows).max(axis=1)
    peaks = np.where(peak > 0, peak, 1.0).astype(np.float32)
    steps = rows * (LEVELS / peaks[:, None])  # the row in fine steps: at most LEVELS in magnitude
    codes = np.clip(np.rint(steps / FINE_STEPS), -INT8_MAX, INT8_MAX)
    fine = np.clip(np.rint(steps - FINE_STEPS * codes), -INT8_MAX, INT8_MAX)
    residuals = np.linalg.norm(rows - codes * (peaks / INT8_MAX)[:, None], axis=1).astype(np.float32)
    return peaks, codes.astype(np.int8), fine.astype(np.int8), residuals


def decoded(peaks: np.ndarray, codes: np.ndarray, fine: np.ndarray) -> np.ndarray:
    """Rows back as float32 from both codes: p·(254·c + f)/32,258, a row's peak itself read back exactly."""
    steps = codes.astype(np.float32)
    steps *= FINE_STEPS
    steps += fine
    steps *= peaks[:, None]
    steps /= LEVELS
    return steps


class VectorIndex:
    """Rows by key; vectors are stored normalised, so a dot product is the cosine."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._codes = np.zeros((0, dimensions), dtype=np.int8)
        self._fine = np.zeros((0, dimensions), dtype=np.int8)
        self._peaks = np.zeros(0, dtype=np.float32)
        self._residuals = np.zeros(0, dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)
        self._keys: list[str | None] = []
        self._rows: dict[str, int] = {}
        self._free: list[int] = []

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def nbytes(self) -> int:
        arrays = (self._codes, self._fine, self._peaks, self._residuals, self._alive)
        return sum(int(array.nbytes) for array in arrays) + 100 * len(self._keys)

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
        placed = rows[rows >= 0]
        peaks, codes, fine, residuals = quantised(vectors[rows >= 0] / norms[rows >= 0, None])
        self._peaks[placed] = peaks
        self._codes[placed] = codes
        self._fine[placed] = fine
        self._residuals[placed] = residuals
        self._alive[placed] = True

    def remove(self, key: str) -> None:
        row = self._rows.pop(key, None)
        if row is not None:
            self._alive[row] = False
            self._keys[row] = None
            self._free.append(row)

    def vector(self, key: str) -> list[float] | None:
        row = self._rows.get(key)
        if row is None:
            return None
        return decoded(self._peaks[row : row + 1], self._codes[row : row + 1], self._fine[row : row + 1])[0].tolist()

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
        unit = target / norm
        used = len(self._keys)  # rows past it are spare room: reading them would only cost time
        if keep is not None:
            rows = np.fromiter((self._rows[key] for key in keep if key in self._rows), dtype=np.intp)
        elif used >= SCAN_MIN_ROWS and limit <= SCAN_MAX_LIMIT_SHARE * used:
            rows = self._candidates(unit, used, limit=limit, min_similarity=min_similarity)
        else:
            rows = np.arange(used)
        scores = exact_cosines(decoded(self._peaks[rows], self._codes[rows], self._fine[rows]), unit)
        return self._ranked(rows, scores, limit=limit, min_similarity=min_similarity)

    def _candidates(self, unit: np.ndarray, used: int, *, limit: int, min_similarity: float) -> np.ndarray:
        """Rows whose decoded cosine could be among the best `limit` above `min_similarity`, from the coarse scan.

        With the query quantised as the rows are (u = t·q_u + e_u, v = s·q_v + e_v, both of norm 1), the cosine
        differs from the scan's t·s·(q_u·q_v) by u·e_v + e_u·v − e_u·e_v, at most ‖e_v‖ + ‖e_u‖ + ‖e_u‖‖e_v‖ ≤ B,
        taking the largest row residual for ‖e_v‖. The limit-th best scan score minus B is at most the limit-th
        cosine (when it clears the floor), so every row within 2B of that scan score is kept, ties included;
        otherwise every row that could clear the floor is. The decoded rows are within the fine step of the rows
        the residuals were measured on, far inside FLOAT_MARGIN.
        """
        (query_peak,), (query_codes,), _fine, (query_residual,) = quantised(unit[None, :])
        dots = np.asarray(simsimd.cdist(query_codes[None, :], self._codes[:used], metric="dot", threads=1))[0]
        approx = np.multiply(dots, self._peaks[:used], out=dots)
        approx *= float(query_peak) / (INT8_MAX * INT8_MAX)
        approx[self._free] = -np.inf  # removed rows: the free list is exactly the rows not alive
        widest = float(self._residuals[:used].max())
        bound = widest + float(query_residual) * (1.0 + widest) + FLOAT_MARGIN
        kth = float(np.partition(approx, used - limit)[used - limit])
        threshold = kth - 2 * bound if kth - bound > min_similarity else min_similarity - bound
        return np.flatnonzero(approx >= threshold)

    def _ranked(
        self, rows: np.ndarray, scores: np.ndarray, *, limit: int, min_similarity: float
    ) -> list[tuple[str, float]]:
        """The best `limit` of these rows by score: alive, above `min_similarity`, ties broken by key."""
        usable = self._alive[rows] & (scores > min_similarity)
        count = len(rows)
        if int(np.count_nonzero(usable)) > limit:
            # One partition over all rows, unusable ones sunk: no copies of the (often half the rows) usable
            # scores. Everything tied with the limit-th score stays, so ties are broken by key, not by row order.
            np.copyto(scores, -np.inf, where=~usable)
            cut = np.partition(scores, count - limit)[count - limit]
            usable &= scores >= cut
        chosen = np.flatnonzero(usable)
        keys = self._keys
        ranked = sorted(((keys[rows[at]], float(scores[at])) for at in chosen), key=lambda h: (-h[1], h[0]))
        return ranked[:limit]  # type: ignore[return-value]

    def reserve(self, rows: int) -> None:
        """Room for `rows` more keys, allocated once and exactly: a build that knows its size copies its
        vectors once instead of at every growth, and keeps no spare rows."""
        needed = len(self._keys) + rows - len(self._free)
        if needed > len(self._codes):
            self._resize(needed)

    def _grow(self) -> int:
        row = len(self._keys)
        if row == len(self._codes):
            # By a quarter: a built view that takes one more item must not double its largest allocation.
            self._resize(max(INITIAL_ROWS, row + row // GROWTH_DIVISOR))
        self._keys.append(None)
        return row

    def _resize(self, capacity: int) -> None:
        row = len(self._keys)

        def grown(array: np.ndarray) -> np.ndarray:
            bigger = np.zeros((capacity, *array.shape[1:]), dtype=array.dtype)
            bigger[:row] = array[:row]
            return bigger

        self._codes, self._fine = grown(self._codes), grown(self._fine)
        self._peaks, self._residuals, self._alive = grown(self._peaks), grown(self._residuals), grown(self._alive)
