"""`bench tenants`: what a group costs alone and beside a crowd of other groups on the same server.

A 10k-fact group is measured alone (the crowd's groups removed), then again
after other groups holding `crowd` facts in all were written beside it, with
vectors, so the server's full-text and vector indexes hold them all. Each phase
times search per recipe, offline ingest of fresh episodes into a new group, and
Activation from the group's entities; the ratios crowd ÷ alone are what the
per-group views are for (targets: ≤ 1.2×).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import numpy as np

from memoria.bench.search import (
    SyntheticMemory,
    build_memory,
    query_vectors_known,
    search_benchmark,
    synthetic_memory,
)
from memoria.bench.settle import DEFAULT_CAP_SECONDS, server_settled
from memoria.embeddings import configured_model_id
from memoria.evaluation.timing import percentile
from memoria.graph import driver
from memoria.graph.dialect import graph_dialect
from memoria.graph.schema import VECTOR_MODEL, VECTOR_TEXT, embedding_dimensions
from memoria.graph.searchable import SEARCHABLE_TEXT_VERSION
from memoria.graph.versions import group_stamps_delete
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.pipeline import episodes_add
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.readmodel.cache import view_cache
from memoria.retrieval.activation import Seed, activation_events
from memoria.retrieval.budget import RetrievalBudget, server_limits
from memoria.retrieval.engines import VIEW, EngineChoice, default_engine, engine_choose, engine_events
from memoria.retrieval.event_types import RetrievalEvent

TENANT_RECIPES = ("facts_hybrid_rrf", "entities_hybrid_rrf", "episodes_hybrid_rrf", "combined_hybrid_rrf")
CROWD_PREFIX = "bench-crowd-"
WRITE_CHUNK = 10_000
DELETE_CHUNK = 5_000
DELETE_NODES = """
MATCH (n:Memory {group_id: $group}) WITH n LIMIT $limit
DETACH DELETE n RETURN count(*) AS deleted
"""
# $model: the configured model's id, so search takes the crowd's vectors for its own (memoria/graph/schema.py);
# the current text version, so reindex leaves them alone.
SET_FACT_VECTORS = f"""
UNWIND $rows AS row
MATCH (a:Memory {{group_id: $group, id: row.source}})-[r:RELATES]->() WHERE r.id = row.id
SET r.fact_embedding = row.vector, r.{VECTOR_MODEL} = $model, r.{VECTOR_TEXT} = {SEARCHABLE_TEXT_VERSION}
"""
# {vector} is a node scope's vector property (memoria/readmodel/scopes.py), never input.
SET_VECTORS_OF_NODES = f"""
UNWIND $rows AS row
MATCH (n:Memory {{{{group_id: $group, id: row.id}}}})
SET n.{{vector}} = row.vector, n.{VECTOR_MODEL} = $model, n.{VECTOR_TEXT} = {SEARCHABLE_TEXT_VERSION}
"""
SET_NODE_VECTORS = SET_VECTORS_OF_NODES.format(vector="name_embedding")

Say = Callable[[str], None]


def group_delete(group: str) -> int:
    """In chunks: one DETACH DELETE of a 100k-node group would need the server's whole query heap."""
    total = 0
    while True:
        deleted = driver.write(DELETE_NODES, group=group, limit=DELETE_CHUNK)[0]["deleted"]
        total += deleted
        if deleted < DELETE_CHUNK:
            group_stamps_delete(group=group)  # no longer listed
            return total


def unit_vectors(rng: np.random.Generator, count: int, dimensions: int) -> list[list[float]]:
    vectors = rng.normal(size=(count, dimensions)).astype(np.float32)
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).tolist()


def crowd_write(*, groups: list[str], facts_each: int, say: Say) -> None:
    """Other tenants' memories, with random unit vectors (embedding 500k texts would take half an hour and
    changes nothing the indexes see: they hold vectors either way)."""
    rng = np.random.default_rng(11)
    dimensions = embedding_dimensions()
    for group in groups:
        started = time.perf_counter()
        document = synthetic_memory(group=group, facts=facts_each, seed=hash(group) % 1000).document
        nodes = {"nodes": document["nodes"], "edges": []}
        graph_document_import(document=parse_graph_document(nodes, group=group), group=group)
        for start in range(0, facts_each, WRITE_CHUNK):
            chunk = {"nodes": [], "edges": document["edges"][start : start + WRITE_CHUNK]}
            graph_document_import(document=parse_graph_document(chunk, group=group), group=group)
            edges = chunk["edges"]
            vectors = unit_vectors(rng, len(edges), dimensions)
            rows = [{"id": e["id"], "source": e["source"], "vector": v} for e, v in zip(edges, vectors, strict=True)]
            for part in range(0, len(rows), 1000):
                driver.write(SET_FACT_VECTORS, rows=rows[part : part + 1000], group=group, model=configured_model_id())
        entities = [node for node in document["nodes"] if "Entity" in node["labels"]]
        vectors = unit_vectors(rng, len(entities), dimensions)
        rows = [{"id": node["id"], "vector": v} for node, v in zip(entities, vectors, strict=True)]
        for part in range(0, len(rows), 1000):
            driver.write(SET_NODE_VECTORS, rows=rows[part : part + 1000], group=group, model=configured_model_id())
        say(f"  crowd group {group}: {facts_each} facts with vectors in {time.perf_counter() - started:.1f} s")


def _episodes(memory: SyntheticMemory, count: int, seed: int) -> list[EpisodeInput]:
    """Conversation-sized episodes made of the memory's own fact sentences (two or three each)."""
    rng = random.Random(seed)
    sentences = [edge["fact"] for edge in memory.document["edges"]]
    return [EpisodeInput(content=". ".join(rng.sample(sentences, rng.randint(2, 3))) + ".") for _ in range(count)]


def _ingest_rate(memory: SyntheticMemory, episodes: int, seed: int) -> dict[str, float]:
    group = f"bench-tenant-ingest-{uuid.uuid4().hex[:8]}"
    inputs = _episodes(memory, episodes, seed)
    started = time.perf_counter()
    episodes_add(group=group, episodes=inputs)
    seconds = time.perf_counter() - started
    group_delete(group)
    view_cache().forget(group)
    return {"episodes": episodes, "seconds": seconds, "per_second": episodes / seconds}


def _activation(group: str, memory: SyntheticMemory, runs: int, warmup: int) -> dict[str, Any]:
    """Explorations from five random entities on the default engine (the view once loaded: loaded first)."""
    entities = [node["id"] for node in memory.document["nodes"] if "Entity" in node["labels"]]
    rng = random.Random(5)
    latencies: list[float] = []
    engines: set[str] = set()
    engine_choose(group=group, requested=VIEW)  # the projection's load is not an exploration's time

    async def series() -> None:
        for index in range(runs + warmup):
            seeds = [Seed(node, 1.0) for node in rng.sample(entities, 5)]

            def run(choice: EngineChoice, seeds: list[Seed] = seeds) -> AsyncIterator[RetrievalEvent]:
                engines.add(choice.name)
                return activation_events(group=group, seeds=seeds, engine=choice)

            started = time.perf_counter()
            budget = RetrievalBudget(server_limits())
            async for _event in engine_events(group=group, requested=default_engine(), budget=budget, run=run):
                pass
            if index >= warmup:
                latencies.append(time.perf_counter() - started)

    asyncio.run(series())
    return {
        "p50_ms": statistics.median(latencies) * 1000,
        "p95_ms": percentile(latencies, 0.95) * 1000,
        "engines": sorted(engines),
    }


def _phase(group: str, memory: SyntheticMemory, *, runs: int, warmup: int, episodes: int) -> dict[str, Any]:
    view_cache().forget(group)
    build = time.perf_counter()
    with view_cache().reading(group, "facts", "entities", "episodes", "communities"):
        pass
    view_seconds = time.perf_counter() - build
    size = next(s for s in view_cache().sizes() if s.group == group)
    search = search_benchmark(group=group, memory=memory, runs=runs, warmup=warmup, names=TENANT_RECIPES)
    with query_vectors_known(memory.queries):
        without = search_benchmark(group=group, memory=memory, runs=runs, warmup=warmup, names=TENANT_RECIPES[:1])
    search[f"{TENANT_RECIPES[0]} (query vector known)"] = without[TENANT_RECIPES[0]]
    return {
        "view": {"seconds": view_seconds, "bytes": size.bytes, "items": size.items},
        "search": search,
        "ingest": _ingest_rate(memory, episodes, seed=3),
        "activation": _activation(group, memory, runs, warmup),
    }


def tenants_benchmark(
    *,
    facts: int,
    crowd: int,
    crowd_groups: int,
    runs: int,
    warmup: int,
    episodes: int,
    say: Say,
    settle_seconds: float = DEFAULT_CAP_SECONDS,
) -> dict[str, Any]:
    """Both phases start once the graph server has finished the work its bulk writes left (bench/settle.py): the
    crowd's 500k facts kept it busy for minutes, and a phase timed during that measured the machine, not the crowd."""
    group, memory = build_memory(facts=facts, say=say)
    crowd_names = [f"{CROWD_PREFIX}{index}" for index in range(crowd_groups)]
    for name in crowd_names:
        if group_delete(name):
            say(f"  removed crowd group {name}")
    settled = {"alone": server_settled(cap_seconds=settle_seconds, say=say)}
    say(f"phase 1: group {group} alone ({settled['alone'].describe()})")
    alone = _phase(group, memory, runs=runs, warmup=warmup, episodes=episodes)
    say(f"phase 2: writing {crowd} facts over {crowd_groups} other groups")
    crowd_write(groups=crowd_names, facts_each=crowd // crowd_groups, say=say)
    settled["crowd"] = server_settled(cap_seconds=settle_seconds, say=say)
    say(f"phase 2: group {group} beside the crowd ({settled['crowd'].describe()})")
    beside = _phase(group, memory, runs=runs, warmup=warmup, episodes=episodes)
    return {
        "alone": alone,
        "crowd": beside,
        "settled": {name: item.describe() for name, item in settled.items()},
        # With them on, ArcadeDB rebuilds each whole index after the crowd's writes (docs/operations.md).
        "server_vector_indexes": graph_dialect().serves_vector_indexes(),
    }


def tenants_report(results: dict[str, Any], *, facts: int, crowd: int) -> list[str]:
    alone, beside = results["alone"], results["crowd"]
    lines = [f"tenants: a {facts}-fact group alone, then beside {crowd} facts in other groups (ratio = crowd ÷ alone)"]
    lines.append(f"  server vector indexes: {'on' if results['server_vector_indexes'] else 'off'}")
    lines.extend(f"  before the {phase} phase: {settled}" for phase, settled in results.get("settled", {}).items())
    for phase, data in (("alone", alone), ("crowd", beside)):
        view = data["view"]
        lines.append(
            f"  view build ({phase}): {view['seconds']:.2f} s, {view['bytes'] / 2**20:.1f} MiB, items {view['items']}"
        )
    for name, first in alone["search"].items():
        second = beside["search"][name]
        lines.append(
            f"  search {name:40s} p50 {first['p50_ms']:7.2f} → {second['p50_ms']:7.2f} ms  "
            f"p95 {first['p95_ms']:7.2f} → {second['p95_ms']:7.2f} ms  ratio p95 "
            f"{second['p95_ms'] / max(first['p95_ms'], 1e-9):4.2f}×"
        )
    a, b = alone["ingest"], beside["ingest"]
    lines.append(
        f"  ingest {a['episodes']} episodes (offline): {a['per_second']:.1f} → {b['per_second']:.1f} episodes/s  "
        f"ratio {a['per_second'] / max(b['per_second'], 1e-9):4.2f}× slower"
    )
    a, b = alone["activation"], beside["activation"]
    lines.append(
        f"  activation 5 seeds: p50 {a['p50_ms']:.2f} → {b['p50_ms']:.2f} ms  p95 {a['p95_ms']:.2f} → "
        f"{b['p95_ms']:.2f} ms  ratio p95 {b['p95_ms'] / max(a['p95_ms'], 1e-9):4.2f}×  "
        f"engine {', '.join(b['engines'])}"
    )
    return lines
