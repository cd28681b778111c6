"""`bench view`: what one big group's search view costs: its build beside the graph projection's, and search on it.

The build is timed cold (the view dropped first) with the process's resident
memory before and after, beside the view's own byte count; the graph
projection of the same group, loaded in the same process just before, is the
reference (the issue's target: a view no slower to build than a few seconds
more than the projection). Search is timed per recipe with the query
embedding, then with the query vectors known, beside the exact cosine alone
(the facts' matrix times the query vector, top 20), which no view search can
beat.
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from memoria.bench.search import WALKING, build_memory, query_vectors_known, search_benchmark
from memoria.bench.tenants import SET_FACT_VECTORS, SET_VECTORS_OF_NODES, unit_vectors
from memoria.embeddings import configured_model_id, embedder
from memoria.evaluation.timing import percentile
from memoria.graph import driver
from memoria.graph.schema import embedding_dimensions
from memoria.projection.projection import projection_load
from memoria.readmodel.cache import view_cache
from memoria.readmodel.scopes import SCOPES
from memoria.search.config import Scope
from memoria.search.recipes import SCOPE_DEFAULT_RECIPES

# The facts and entities defaults, the episodes default (the gated walk beside the text methods), all scopes at once.
VIEW_RECIPES = (
    SCOPE_DEFAULT_RECIPES[Scope.FACTS],
    SCOPE_DEFAULT_RECIPES[Scope.ENTITIES],
    SCOPE_DEFAULT_RECIPES[Scope.EPISODES],
    "combined_hybrid_rrf",
)
KNOWN = " (query vector known)"
STATM = "/proc/self/statm"
VECTOR_WRITE_ROWS = 1000
FACTS_WITHOUT_VECTOR = """
MATCH (a:Memory {group_id: $group})-[r:RELATES]->(:Memory) WHERE r.fact_embedding IS NULL
RETURN collect({id: r.id, source: a.id}) AS rows
"""
NODES_WITHOUT_VECTOR = """
MATCH (n:Memory {{group_id: $group}}) WHERE '{label}' IN labels(n) AND n.{vector} IS NULL
RETURN collect(n.id) AS ids
"""

Say = Callable[[str], None]


def resident_bytes() -> int:
    """The process's resident memory now (Linux), what the machine gives up for a view."""
    with open(STATM) as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def random_vectors_fill(group: str, say: Say) -> None:
    """Random unit vectors for every item still without one: embedding 130k texts takes most of an hour on a
    busy 2-core machine, and a view's build and an exact cosine cost the same whatever the vectors say."""
    rng = np.random.default_rng(13)
    dimensions = embedding_dimensions()
    facts = driver.read(FACTS_WITHOUT_VECTOR, group=group)[0]["rows"]
    writes = [(SET_FACT_VECTORS, facts)]
    for spec in SCOPES.values():
        if not spec.is_fact:
            query = NODES_WITHOUT_VECTOR.format(label=spec.label, vector=spec.vector_property)
            ids = driver.read(query, group=group)[0]["ids"]
            writes.append((SET_VECTORS_OF_NODES.format(vector=spec.vector_property), [{"id": node} for node in ids]))
    for query, rows in writes:
        for start in range(0, len(rows), VECTOR_WRITE_ROWS):
            part = rows[start : start + VECTOR_WRITE_ROWS]
            vectors = unit_vectors(rng, len(part), dimensions)
            driver.write(
                query,
                rows=[{**row, "vector": vector} for row, vector in zip(part, vectors, strict=True)],
                group=group,
                model=configured_model_id(),
            )
        if rows:
            say(f"  {len(rows)} random unit vectors written")


def _view_build(group: str) -> dict[str, Any]:
    view_cache().forget(group)
    gc.collect()
    before = resident_bytes()
    started = time.perf_counter()
    with view_cache().reading(group, "facts", "entities", "episodes", "communities"):
        pass
    seconds = time.perf_counter() - started
    gc.collect()
    size = next(size for size in view_cache().sizes() if size.group == group)
    return {"seconds": seconds, "bytes": size.bytes, "rss_growth": resident_bytes() - before, "items": size.items}


def _projection_build(group: str) -> float:
    started = time.perf_counter()
    projection_load(group=group)
    return time.perf_counter() - started


def _cosine_alone(group: str, queries: list[str], warmup: int) -> dict[str, float]:
    """The reference for search: the facts' exact cosine top 20 for each query vector, nothing else."""
    model = embedder()
    vectors = [model.embed_one(query) for query in queries]
    with view_cache().reading(group, "facts") as (scopes, _state):
        index_of_facts = scopes["facts"].vectors
        seconds = []
        for index, vector in enumerate(vectors):
            started = time.perf_counter()
            index_of_facts.nearest(vector, limit=20)
            if index >= warmup:
                seconds.append(time.perf_counter() - started)
    return {"p50_ms": statistics.median(seconds) * 1000, "p95_ms": percentile(seconds, 0.95) * 1000}


def view_benchmark(*, facts: int, runs: int, warmup: int, random_vectors: bool, say: Say) -> dict[str, Any]:
    group, memory = build_memory(facts=facts, say=say, embed=not random_vectors)
    if random_vectors:
        random_vectors_fill(group, say)
    say(f"loading the graph projection of {group} (the reference)")
    projection_seconds = _projection_build(group)
    say(f"building the search view of {group}")
    view = _view_build(group)
    say(f"searching {runs} times per recipe")
    walking = (SCOPE_DEFAULT_RECIPES[Scope.EPISODES],)
    timed = {"names": VIEW_RECIPES, "walking": walking}
    search = search_benchmark(group=group, memory=memory, runs=runs, warmup=warmup, **timed)
    with query_vectors_known(memory.queries + memory.walk_queries):
        known = search_benchmark(group=group, memory=memory, runs=runs, warmup=warmup, **timed)
    for name in (*VIEW_RECIPES, *(f"{name}{WALKING}" for name in walking)):
        if name in known:  # a group too small for a rare entity has no walking series
            search[f"{name}{KNOWN}"] = known[name]
    queries = [memory.queries[index % len(memory.queries)] for index in range(runs + warmup)]
    return {
        "projection_seconds": projection_seconds,
        "view": view,
        "search": search,
        "cosine_alone": _cosine_alone(group, queries, warmup),
    }


def view_report(results: dict[str, Any], *, facts: int, load: str) -> list[str]:
    view, reference = results["view"], results["projection_seconds"]
    cosine = results["cosine_alone"]
    lines = [
        f"view: a {facts}-fact group ({load})",
        f"  view build (all four scopes, items {view['items']}): {view['seconds']:.2f} s, "
        f"view {view['bytes'] / 2**20:.1f} MiB, RSS +{view['rss_growth'] / 2**20:.0f} MiB; "
        f"graph projection build {reference:.2f} s; ratio {view['seconds'] / max(reference, 1e-9):4.2f}×",
        f"  exact cosine alone (facts' top 20 for a known vector): p50 {cosine['p50_ms']:.2f} ms  "
        f"p95 {cosine['p95_ms']:.2f} ms",
    ]
    for name, timing in results["search"].items():
        what = name if name == "query embedding alone" else f"search {name}"
        lines.append(
            f"  {what:49s} p50 {timing['p50_ms']:7.2f} ms  p95 {timing['p95_ms']:7.2f} ms  "
            f"ratio p95 to cosine alone {timing['p95_ms'] / max(cosine['p95_ms'], 1e-9):5.1f}×"
        )
    return lines
