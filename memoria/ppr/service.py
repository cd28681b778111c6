"""Running a validated PPR request: seeds (the caller's, or found for a query), the group's projection, PPR.

Plain PPR takes a query's seeds from hybrid entity search, or (`linked`) from the entities the query names;
relation-aware PPR
(seed 003) takes them from the facts nearest the query and the nearest
episodes, and multiplies every edge's weight by its category's β. The REST
view, and later the websocket and the evaluation, all come through `ppr_run`;
it says which projection version it used and how fresh that was. The walk takes only the facts that count at the
request's moment (memoria/graph/asof.py, default now), masked from the projection's interval arrays per query:
a new as_of never reloads the projection.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings

from memoria.errors import InvalidInput
from memoria.graph import kinds
from memoria.graph.asof import AsOf
from memoria.graph.versions import GroupVersion
from memoria.linking.lexicon import group_lexicon
from memoria.llm.modes import StepMode
from memoria.ppr.pagerank import CONJUGATE_GRADIENT, DEFAULT_TOLERANCE, POWER, PprResult, personalized_pagerank
from memoria.ppr.relation_seeds import ScoredFact, SeedOptions, relation_seeds
from memoria.ppr.relations import RelationBetas
from memoria.ppr.request import PprRequest, SeedWeight
from memoria.ppr.steps import RelationSteps, relation_steps_for
from memoria.projection.cache import STALE, Freshness, ProjectionCache, projection_cache
from memoria.projection.projection import Projection
from memoria.requests.moment import AsOfInput
from memoria.retrieval.budget import STATUS as BUDGET_EXHAUSTED
from memoria.retrieval.budget import BudgetExhausted, RetrievalBudget, server_limits
from memoria.retrieval.event_types import Algorithm
from memoria.search.service import search_seeds

SEARCH_SEEDS = 5  # entities taken from hybrid search when the caller gives a query

CALLER = "caller"
SEARCH = "search"
FACTS = "facts"
LINKED = "linked"
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
    seed_source: str  # caller | search | linked | facts (relation-aware) | uniform (no seeds: all restart alike)
    seeds: tuple[SeedWeight, ...]  # as used, weights normalised to sum 1
    scores: tuple[ScoredNode, ...]  # the top_k, best first
    passages: tuple[ScoredNode, ...]  # the top_k episodes, best first
    result: PprResult
    betas: RelationBetas | None  # relation-aware only
    facts: tuple[ScoredFact, ...]  # relation-aware seeds from a query: the facts they came from
    fact_filter: str | None  # who kept those facts (offline | llm); None when no facts were read
    damping: float
    directed: bool
    mentions: bool
    nodes: int
    edges: int
    freshness: Freshness
    seconds: float  # PPR itself, on the loaded projection
    status: str = "completed"  # or budget_exhausted: the scores are the iterate the budget stopped at
    budget: dict[str, Any] | None = None  # the budget's limits, use, and which limit ended the solve
    moment: AsOf | None = None  # the moment the facts counted at
    facts_left_out: int = 0  # walked edges that did not count at the moment

    def as_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "algorithm": Algorithm.PPR,
            "seed_source": self.seed_source,
            "seeds": [{"id": seed.id, "weight": seed.weight} for seed in self.seeds],
            "scores": [vars(node) for node in self.scores],
            "passages": [vars(node) for node in self.passages],
            "relation_aware": self.betas is not None,
            "betas": self.betas.as_dict() if self.betas else None,
            "facts": [vars(fact) for fact in self.facts],
            "fact_filter": self.fact_filter,
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
            "status": self.status,
            "budget": self.budget,
            "time": self.moment.as_dict() if self.moment else None,
            "facts_left_out": self.facts_left_out,
        }


def _missing(projection: Projection, seeds: tuple[SeedWeight, ...]) -> list[int]:
    return [index for index, seed in enumerate(seeds) if projection.position(seed.id) is None]


def _top(
    projection: Projection, scores: np.ndarray, top_k: int, among: np.ndarray | None = None
) -> tuple[ScoredNode, ...]:
    candidates = np.arange(len(scores)) if among is None else among
    count = min(top_k, len(candidates))
    if count == 0:
        return ()
    values = scores[candidates]
    best = np.argpartition(-values, count - 1)[:count] if count < len(candidates) else np.arange(len(candidates))
    # Ties broken by position (= id order), so equal scores come back in the same order every time.
    chosen = candidates[best[np.lexsort((candidates[best], -values[best]))]]
    return tuple(
        ScoredNode(projection.ids[i], projection.names[i], projection.kind(i), float(scores[i])) for i in chosen
    )


def _relation_steps(request: PprRequest) -> RelationSteps | None:
    """The β manager and fact filter a relation-aware request uses; a step it does not use stays offline."""
    if not request.relation_aware:
        return None
    reads_facts = request.seeds is None and request.query is not None
    return relation_steps_for(
        betas_source=StepMode.OFFLINE if request.betas else request.betas_source,
        fact_filter=request.fact_filter if reads_facts else StepMode.OFFLINE,
    )


def _query_seeds(
    request: PprRequest, projection: Projection, steps: RelationSteps | None, moment: AsOf
) -> tuple[tuple[SeedWeight, ...] | None, str, tuple[ScoredFact, ...]]:
    if request.seeds is not None or request.query is None:
        return request.seeds, CALLER, ()
    if steps is not None:
        found = relation_seeds(
            projection=projection,
            group=request.group,
            query=request.query,
            options=SeedOptions(),
            fact_filter=steps.facts,
            moment=moment,
        )
        return tuple(SeedWeight(node, weight) for node, weight in found.weights.items()), FACTS, found.facts
    if request.linked:
        linked = group_lexicon(projection).link(request.query, max_share=request.linked_max_share)
        return tuple(SeedWeight(entity.id, entity.weight) for entity in linked), LINKED, ()
    entities = search_seeds(group=request.group, query=request.query, limit=SEARCH_SEEDS)
    return tuple(SeedWeight(node, score) for node, score in entities), SEARCH, ()


# A live view's window on the solve: iteration, error bound, and how to get the top_k nodes so far.
TopHook = Callable[[int, float, Callable[[], tuple[ScoredNode, ...]]], None]


@dataclass(frozen=True)
class _Seeded:
    """A request's projection and seeds, ready to walk."""

    projection: Projection
    freshness: Freshness
    seeds: tuple[SeedWeight, ...]
    source: str
    facts: tuple[ScoredFact, ...]
    steps: RelationSteps | None
    moment: AsOf


def ppr_run(
    request: PprRequest,
    *,
    cache: ProjectionCache | None = None,
    wait: float | None = None,
    on_iteration: TopHook | None = None,
    budget: RetrievalBudget | None = None,
) -> PprAnswer:
    """Personalized PageRank over the group's projection; InvalidInput names seeds that are not the group's.

    The budget (the request's, else the server's) is charged a whole multiply per iteration, an upper bound on
    the transitions it read. The solve stops, and its iterate so far is the answer, when the time is up or the
    next iteration would pass the row limit (the first iteration always runs).
    """
    cache = cache or projection_cache()
    steps = _relation_steps(request)
    moment = request.moment or AsOfInput().resolved()
    projection, freshness = cache.get(request.group, wait=wait)
    seeds, source, facts = _query_seeds(request, projection, steps, moment)
    if seeds and _missing(projection, seeds) and freshness.state == STALE:
        # Written since this projection was loaded: only a current one can tell whether they exist.
        projection, freshness = cache.get(request.group, wait=wait, fresh=True)
    missing = _missing(projection, seeds or ())
    if missing and source == CALLER:
        raise InvalidInput(
            [f"seeds[{index}].id: no node {seeds[index].id!r} in group {request.group!r}" for index in missing]
        )
    seeds = tuple(seed for seed in seeds or () if projection.position(seed.id) is not None)
    seeded = _Seeded(projection, freshness, seeds, source, facts, steps, moment)
    return _walked(request, seeded, budget=budget, on_iteration=on_iteration)


def linked_walk(
    request: PprRequest, *, cache: ProjectionCache | None = None, version: GroupVersion | None = None
) -> PprAnswer | None:
    """A `linked` request's walk, or None when its query names no entity (ppr_run would then walk from
    everywhere: a PageRank as costly as any, ranking by centrality). One projection serves the linking and the
    walk; `version` is the group's version as the caller read it for this request, else it is read here."""
    if not request.linked or request.query is None or request.seeds is not None or request.relation_aware:
        raise ValueError("linked_walk takes a linked query without seeds")
    moment = request.moment or AsOfInput().resolved()
    projection, freshness = (cache or projection_cache()).get(request.group, version=version)
    seeds, source, facts = _query_seeds(request, projection, None, moment)
    if not seeds:
        return None
    return _walked(request, _Seeded(projection, freshness, seeds, source, facts, None, moment))


def _walked(
    request: PprRequest,
    seeded: _Seeded,
    *,
    budget: RetrievalBudget | None = None,
    on_iteration: TopHook | None = None,
) -> PprAnswer:
    budget = budget or RetrievalBudget(request.budget or server_limits(ppr=True))
    projection, seeds, steps, moment = seeded.projection, seeded.seeds, seeded.steps, seeded.moment
    positions = {projection.position(seed.id): seed.weight for seed in seeds}
    betas = None
    if steps is not None:
        betas = request.betas or steps.betas.choose_betas(request.query or "")
    started = time.perf_counter()
    chosen = projection.chosen_edges(mentions=request.mentions)
    multipliers = betas.multipliers(projection, chosen) if betas else None
    counting = projection.counting(moment, chosen)
    walk = projection.walk(
        directed=request.directed, mentions=request.mentions, multipliers=multipliers, counting=counting
    )
    threads = int(settings.MEMORIA_PPR_THREADS)
    stopped_at: list[tuple[int, float, np.ndarray]] = []

    def hook(iteration: int, bound: float, scores: Callable[[], np.ndarray]) -> None:
        if on_iteration is not None:
            on_iteration(iteration, bound, lambda: _top(projection, scores(), request.top_k))
        budget.charge(walk.edges)
        limit = budget.over(upcoming=walk.edges)
        if limit and bound > DEFAULT_TOLERANCE:  # a solve converging on this very step has nothing left to stop
            stopped_at.append((iteration, bound, scores()))
            raise budget.stop(limit)

    try:
        result = personalized_pagerank(walk, positions, damping=request.damping, threads=threads, on_iteration=hook)
    except BudgetExhausted:
        iteration, bound, scores = stopped_at[0]
        method = POWER if walk.directed else CONJUGATE_GRADIENT  # as the solver's auto choice
        result = PprResult(scores, iteration, False, bound, method, frontier_iterations=0)  # not told: not counted
    seconds = time.perf_counter() - started
    total = sum(seed.weight for seed in seeds)
    used = tuple(SeedWeight(seed.id, seed.weight / total) for seed in seeds if seed.weight > 0) if total > 0 else ()
    episodes = np.flatnonzero(projection.kinds == kinds.NODE_KINDS.index(kinds.EPISODE))
    return PprAnswer(
        group=request.group,
        seed_source=seeded.source if used else UNIFORM,
        seeds=used,
        scores=_top(projection, result.scores, request.top_k),
        passages=_top(projection, result.scores, request.top_k, among=episodes),
        result=result,
        betas=betas,
        facts=seeded.facts,
        fact_filter=steps.facts.source if steps is not None and seeded.source == FACTS else None,
        damping=request.damping,
        directed=request.directed,
        mentions=request.mentions,
        nodes=projection.size,
        edges=projection.edge_count,
        freshness=seeded.freshness,
        seconds=seconds,
        status=BUDGET_EXHAUSTED if budget.exhausted else "completed",
        budget=budget.report(),
        moment=moment,
        facts_left_out=0 if counting is None else int(len(counting) - np.count_nonzero(counting)),
    )
