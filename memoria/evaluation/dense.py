"""The plain dense-retrieval baseline: every item's text embedded by the memory's own model, ranked by cosine in
numpy, with no graph and no index in between.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from memoria.evaluation.runner import Retriever

Embed = Callable[[list[str]], list[list[float]]]


class DenseIndex:
    """Unit vectors in one matrix: a query's cosine with every item is one matrix-vector product."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        if len(ids) != len(vectors):
            raise ValueError(f"{len(ids)} ids for {len(vectors)} vectors")
        self.ids = list(ids)
        matrix = np.asarray(vectors, dtype=np.float32)
        self.matrix = _unit_rows(matrix.reshape(len(self.ids), -1)) if self.ids else np.zeros((0, 0), np.float32)

    @classmethod
    def build(cls, *, ids: Sequence[str], texts: Sequence[str], embed: Embed) -> DenseIndex:
        return cls(ids, np.asarray(embed(list(texts)), dtype=np.float32))

    def __len__(self) -> int:
        return len(self.ids)

    def rank(self, vector: Sequence[float], k: int) -> list[str]:
        """The k items most similar to the vector, best first; equal scores keep the items' order."""
        return [item for item, _ in self.scored(vector, k)]

    def scored(self, vector: Sequence[float], k: int) -> list[tuple[str, float]]:
        """The k items most similar to the vector with their cosine similarity, best first."""
        if not self.ids:
            return []
        query = _unit_rows(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
        similarities = self.matrix @ query
        order = np.argsort(-similarities, kind="stable")[:k]
        return [(self.ids[index], float(similarities[index])) for index in order]


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def dense_retriever(index: DenseIndex, *, embed: Embed, limit: int) -> Retriever:
    """Embeds the question, then ranks; the embedding is part of the answer's time, as it is for search."""

    def retrieve(text: str) -> list[str]:
        return index.rank(embed([text])[0], limit)

    return retrieve
