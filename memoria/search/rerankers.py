"""Rerankers: how the candidates of several methods become one ordered list with one score each.

RRF and MMR are pure functions of ranks and vectors; node distance and episode mentions read the graph
through memoria.search.methods; the cross-encoder is an optional local model: no PyPI package ships the weights
of one (docs/search.md lists the wheels checked), so it works only where MEMORIA_CROSS_ENCODER_MODEL names a folder.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings

from memoria.errors import InvalidInput
from memoria.search.methods import node_hops

if TYPE_CHECKING:
    from sentence_transformers import CrossEncoder

# Graphiti's rank constant: the first item of a list scores 1/(0 + 1) = 1, the second 1/2.
RRF_RANK_CONSTANT = 1
CROSS_ENCODER_SETTING = "MEMORIA_CROSS_ENCODER_MODEL"
CROSS_ENCODER_NEEDED = (
    f"set {CROSS_ENCODER_SETTING} to a local sentence-transformers cross-encoder folder (none ships with Memoria)"
)

Ranked = list[tuple[str, float]]


def rrf(ranked_lists: Sequence[Sequence[str]], *, rank_constant: int = RRF_RANK_CONSTANT) -> Ranked:
    """score(id) = Σ over lists of 1 / (rank + rank_constant), rank counted from 0; ties keep first-seen order."""
    scores: dict[str, float] = {}
    for ranked in ranked_lists:
        for rank, item in enumerate(ranked):
            scores[item] = scores.get(item, 0.0) + 1.0 / (rank + rank_constant)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def mmr(query_vector: Sequence[float], vectors: Mapping[str, Sequence[float]], *, mmr_lambda: float) -> Ranked:
    """Greedy maximal marginal relevance: each step takes the candidate with the best
    λ·cos(q, d) − (1 − λ)·max cos(d, already taken), and scores it with that value.
    """
    ids = list(vectors)
    if not ids:
        return []
    matrix = np.asarray([vectors[item] for item in ids], dtype=np.float64)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    query = np.asarray(query_vector, dtype=np.float64)
    relevance = matrix @ (query / max(float(np.linalg.norm(query)), 1e-12))
    similarity = matrix @ matrix.T
    redundancy: np.ndarray | None = None  # max similarity to anything taken; nothing taken yet means no penalty
    remaining = list(range(len(ids)))
    chosen: Ranked = []
    while remaining:
        penalty = 0.0 if redundancy is None else redundancy[remaining]
        marginal = mmr_lambda * relevance[remaining] - (1.0 - mmr_lambda) * penalty
        best = int(np.argmax(marginal))
        index = remaining.pop(best)
        chosen.append((ids[index], float(marginal[best])))
        taken = similarity[index]
        redundancy = taken.copy() if redundancy is None else np.maximum(redundancy, taken)
    return chosen


def node_distances(*, center: str, nodes: Sequence[str], group: str) -> dict[str, float]:
    """True hop distance over RELATES from the center to each node (math.inf beyond NODE_DISTANCE_MAX_HOPS)."""
    hops = node_hops(center=center, nodes=nodes, group=group)
    return {node: float(hops.get(node, math.inf)) for node in nodes}


def by_node_distance(order: Sequence[str], distances: Mapping[str, float]) -> Ranked:
    """Nearest first, the incoming order breaking ties; score 1/(1 + hops), 0 when unreachable."""
    ranked = sorted(order, key=lambda item: distances[item])  # stable: ties keep the fused order
    return [(item, 0.0 if math.isinf(distances[item]) else 1.0 / (1.0 + distances[item])) for item in ranked]


def by_mentions(order: Sequence[str], mentions: Mapping[str, int]) -> Ranked:
    """Most mentioned first, the incoming order breaking ties; the score is the mention count."""
    ranked = sorted(order, key=lambda item: -mentions.get(item, 0))
    return [(item, float(mentions.get(item, 0))) for item in ranked]


_lock = threading.Lock()
_cross_encoder: CrossEncoder | None = None


def cross_encoder_folder() -> str:
    """The configured cross-encoder folder, "" when none is: what decides whether its recipes are offered."""
    return str(getattr(settings, CROSS_ENCODER_SETTING, "") or "").strip()


def cross_encoder_model(*, where: str = "reranker") -> CrossEncoder:
    """The configured local cross-encoder, loaded once; without one the reranker is unavailable."""
    global _cross_encoder
    folder = cross_encoder_folder()
    if not folder:
        raise InvalidInput(f"{where}: cross_encoder is unavailable here: {CROSS_ENCODER_NEEDED}")
    if not Path(folder).expanduser().is_dir():
        raise InvalidInput(f"{where}: cross_encoder is unavailable: {CROSS_ENCODER_SETTING}={folder} is not a folder")
    with _lock:
        if _cross_encoder is None:
            # Read by huggingface_hub at import time: a local folder only, never a download.
            os.environ["HF_HUB_OFFLINE"] = "1"
            from sentence_transformers import CrossEncoder

            _cross_encoder = CrossEncoder(str(Path(folder).expanduser()), device="cpu")
        return _cross_encoder


def cross_encoder_rank(*, query: str, texts: Mapping[str, str]) -> Ranked:
    """Each candidate's relevance to the query as the cross-encoder judges it, best first."""
    if not texts:
        return []
    ids = list(texts)
    scores = cross_encoder_model().predict([(query, texts[item]) for item in ids], show_progress_bar=False)
    return sorted(zip(ids, (float(score) for score in scores), strict=True), key=lambda pair: -pair[1])
