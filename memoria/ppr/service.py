"""Running a validated PPR request: seeds (the caller's, or found by hybrid search), the group's projection, PPR.

The REST view, and later the websocket and the evaluation, all come through
`ppr_run`; it says which projection version it used and how fresh that was.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings

from memoria.errors import InvalidInput
from memoria.graphindex.cache import STALE, Freshness, ProjectionCache, projection_cache
from memoria.graphindex.projection import Projection
from memoria.ppr.pagerank import PprResult, personalized_pagerank
from memoria.ppr.request import PprRequest, SeedWeight
from memoria.search.service import search_seeds

SEARCH_SEEDS = 5  # entities taken from hybrid search when the caller gives a query
DEFAULT_THREADS = 1  # MEMORIA_PPR_THREADS=2 splits whole-graph multiplies over two cores (docs/ppr.md)

CALLER = "caller"
SEARCH = "search"
UNIFORM = "uniform"


@dataclass(frozen=True)
class ScoredNode:
    id: str
    name: str
    kind: str
    score: float


@dataclass(frozen=True)
class PprAnswer:
    group: str
    seed_source: str  # caller | search | uniform (no seeds: every node restarts alike)
    seeds: tuple[SeedWeight, ...]  # as used, weights normalised to sum 1
    scores: tuple[ScoredNode, ...]  # the top_k, best first
    result: PprResult
    damping: float
    directed: bool
    mentions: bool
    nodes: int
    edges: int
    freshness: Freshness
    seconds: float  # PPR itself, on the loaded projection

    def as_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "algorithm": "ppr",
            "seed_source": self.seed_source,
            "seeds": [{"id": seed.id, "weight": seed.weight} for seed in self.seeds],
            "scores": [vars(node) for node in self.scores],
            "iterations": self.result.iterations,
            "converged": self.result.converged,
            "error_bound": self.result.error_bound,
            "method": self.result.method,
            "damping": self.damping,
            "directed": self.directed,
            "mentions": self.mentions,
            "nodes": self.nodes,
            "edges": self.edges,
            "projection": self.freshness.as_dict(),
            "seconds": round(self.seconds, 6),
        }


def _missing(projection: Projection, seeds: tuple[SeedWeight, ...]) -> list[int]:
    return [index for index, seed in enumerate(seeds) if projection.position(seed.id) is None]


def _top(projection: Projection, scores: np.ndarray, top_k: int) -> tuple[ScoredNode, ...]:
    count = min(top_k, len(scores))
    if count == 0:
        return ()
    best = np.argpartition(-scores, count - 1)[:count] if count < len(scores) else np.arange(len(scores))
    # Ties broken by position (= id order), so equal scores come back in the same order every time.
    ordered = best[np.lexsort((best, -scores[best]))]
    return tuple(
        ScoredNode(projection.ids[i], projection.names[i], projection.kind(i), float(scores[i])) for i in ordered
    )


def ppr_run(request: PprRequest, *, cache: ProjectionCache | None = None, wait: float | None = None) -> PprAnswer:
    """Personalized PageRank over the group's projection; InvalidInput names seeds that are not the group's."""
    cache = cache or projection_cache()
    seeds, source = request.seeds, CALLER
    if request.query is not None:
        found = search_seeds(group=request.group, query=request.query, limit=SEARCH_SEEDS)
        seeds, source = tuple(SeedWeight(node_id, score) for node_id, score in found), SEARCH
    projection, freshness = cache.get(request.group, wait=wait)
    if seeds and _missing(projection, seeds) and freshness.state == STALE:
        # Written since this projection was loaded: only a current one can tell whether they exist.
        projection, freshness = cache.get(request.group, wait=wait, fresh=True)
    missing = _missing(projection, seeds or ())
    if missing and source == CALLER:
        raise InvalidInput(
            [f"seeds[{index}].id: no node {seeds[index].id!r} in group {request.group!r}" for index in missing]
        )
    seeds = tuple(seed for seed in seeds or () if projection.position(seed.id) is not None)
    positions = {projection.position(seed.id): seed.weight for seed in seeds}
    started = time.perf_counter()
    walk = projection.walk(directed=request.directed, mentions=request.mentions)
    threads = int(getattr(settings, "MEMORIA_PPR_THREADS", DEFAULT_THREADS))
    result = personalized_pagerank(walk, positions, damping=request.damping, threads=threads)
    seconds = time.perf_counter() - started
    total = sum(seed.weight for seed in seeds)
    used = tuple(SeedWeight(seed.id, seed.weight / total) for seed in seeds if seed.weight > 0) if total > 0 else ()
    return PprAnswer(
        group=request.group,
        seed_source=source if used else UNIFORM,
        seeds=used,
        scores=_top(projection, result.scores, request.top_k),
        result=result,
        damping=request.damping,
        directed=request.directed,
        mentions=request.mentions,
        nodes=projection.size,
        edges=projection.edge_count,
        freshness=freshness,
        seconds=seconds,
    )
