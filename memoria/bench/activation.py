"""Activation Energy benchmark: build (or reuse) a synthetic graph, time 5-seed explorations, check the reference.

Latency is the wall time to collect one exploration's whole event stream,
choosing its engine included (as a request does, through engine_events: for the
view, one read of the group's version, overlapped with the exploration). The
in-process reference runs the same explorations on the same graph in memory;
every result must match, and its time is the compute floor. Each exploration runs
at every moment asked, one after the other (every fact, as before time-aware
retrieval, and now, the requests' default), so the time filter's cost is measured
under the same load; the synthetic facts carry no times, so every moment gives the
same paths and the difference is the filter alone.
"""

from __future__ import annotations

import asyncio
import random
import resource
import statistics
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from memoria.datasets.synthetic import TOPICS, synthetic_edges, synthetic_nodes, topic_tags
from memoria.evaluation.timing import percentile
from memoria.graph import driver, kinds
from memoria.graph.asof import AsOf
from memoria.graph.driver import adopt_running_loop
from memoria.graph.versions import group_version_bump
from memoria.projection.cache import projection_cache
from memoria.retrieval.activation import Seed, activation_events
from memoria.retrieval.budget import RetrievalBudget, server_limits
from memoria.retrieval.engines import CYPHER, EngineChoice, engine_events
from memoria.retrieval.event_types import RetrievalEvent, RetrievalFinished, SeedFinished
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.reference import EdgeData, ReferenceGraph

WRITE_BATCH = 5000
COUNT_NODES = "MATCH (n:Memory {group_id: $group}) RETURN count(n) AS c"
COUNT_EDGES = "MATCH (n:Memory {group_id: $group})-[r:RELATES]->() RETURN count(r) AS c"
CREATE_NODES = """
UNWIND $rows AS row
CREATE (n:Memory:Entity {id: row.id, group_id: $group, name: row.id, summary: ''})
"""
ADD_KIND = "UNWIND $ids AS id MATCH (n:Memory {{group_id: $group, id: id}}) SET n:{label}"
CREATE_EDGES = """
UNWIND $rows AS row
MATCH (a:Memory {group_id: $group, id: row.source})
MATCH (b:Memory {group_id: $group, id: row.target})
CREATE (a)-[:RELATES {id: row.id, group_id: $group, relation: row.relation, weight: row.weight, tags: row.tags}]->(b)
"""


@dataclass(frozen=True)
class Exploration:
    seeds: tuple[Seed, ...]
    query_tags: tuple[str, ...]


def bench_group(nodes: int, edges: int) -> str:
    return f"bench-{nodes}-{edges}"


def build_graph(*, nodes: int, edges: int, say: Callable[[str], None]) -> tuple[str, ReferenceGraph]:
    """Write the synthetic graph unless the group already holds it; return it in memory too for the reference."""
    group = bench_group(nodes, edges)
    node_rows = synthetic_nodes(group=group, count=nodes)
    edge_rows = list(synthetic_edges(group=group, nodes=node_rows, count=edges))
    stored_nodes = driver.read(COUNT_NODES, group=group)[0]["c"]
    stored_edges = driver.read(COUNT_EDGES, group=group)[0]["c"] if stored_nodes == nodes else -1
    if (stored_nodes, stored_edges) == (nodes, edges):
        say(f"reusing group {group} ({nodes} nodes, {edges} edges)")
    else:
        started = time.perf_counter()
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)
        for start in range(0, nodes, WRITE_BATCH):
            driver.write(CREATE_NODES, rows=[{"id": n.id} for n in node_rows[start : start + WRITE_BATCH]], group=group)
        for label in {n.kind for n in node_rows}:
            assert label in kinds.entity_labels()  # spliced into Cypher: allow-listed only
            ids = [n.id for n in node_rows if n.kind == label]
            for start in range(0, len(ids), WRITE_BATCH):
                driver.write(ADD_KIND.format(label=label), ids=ids[start : start + WRITE_BATCH], group=group)
        for start in range(0, edges, WRITE_BATCH):
            batch = edge_rows[start : start + WRITE_BATCH]
            driver.write(
                CREATE_EDGES,
                group=group,
                rows=[
                    {
                        "id": e.id,
                        "source": e.source,
                        "target": e.target,
                        "relation": e.relation,
                        "weight": e.weight,
                        "tags": list(e.tags),
                    }
                    for e in batch
                ],
            )
            say(f"  edges written: {start + len(batch)}/{edges}")
        driver.write_transaction(lambda tx: group_version_bump(tx, group))  # views of the old graph load it again
        say(f"built group {group} in {time.perf_counter() - started:.1f} s")
    reference = ReferenceGraph(
        (EdgeData(e.id, e.source, e.target, e.weight, e.tags) for e in edge_rows), (n.id for n in node_rows)
    )
    return group, reference


def explorations(*, group: str, nodes: int, count: int, with_tags: bool, seed: int) -> list[Exploration]:
    rng = random.Random(seed)
    chosen = []
    for _ in range(count):
        seeds = tuple(Seed(f"{group}-n{rng.randrange(nodes)}", round(rng.uniform(0.5, 1.0), 3)) for _ in range(5))
        tags = tuple(rng.sample(topic_tags(rng.randrange(TOPICS)), 4)) if with_tags else ()
        chosen.append(Exploration(seeds, tags))
    return chosen


async def timed_exploration(
    group: str, exploration: Exploration, params: ActivationParams, engine: str, moment: AsOf
) -> tuple[float, dict]:
    started = time.perf_counter()
    paths: dict[str, list] = {}
    finished: dict[str, Any] = {}
    ran: list[str] = []

    def run(choice: EngineChoice) -> AsyncIterator[RetrievalEvent]:
        ran.append(choice.name)
        return activation_events(
            group=group,
            seeds=exploration.seeds,
            query_tags=exploration.query_tags,
            params=params,
            engine=choice,
            moment=moment,
        )

    budget = RetrievalBudget(server_limits())
    async for event in engine_events(group=group, requested=engine, budget=budget, run=run):
        if isinstance(event, SeedFinished):
            paths[event.seed_id] = sorted(
                (tuple(p["nodes"]), tuple(h["transfer_energy"] for h in p["hops"])) for p in event.paths
            )
        elif isinstance(event, RetrievalFinished):
            finished = event.frame()
    return time.perf_counter() - started, {"paths": paths, "finished": finished, "engine": ran[-1]}


def reference_paths(reference: ReferenceGraph, exploration: Exploration, params: ActivationParams) -> dict:
    result = {}
    for seed in exploration.seeds:
        found = reference.explore(seed.id, seed.score, exploration.query_tags, params)
        result[seed.id] = sorted((p.nodes, p.energies) for p in (found or []))
    return result


async def run_series(
    group: str,
    reference: ReferenceGraph,
    chosen: list[Exploration],
    params: ActivationParams,
    warmup: int,
    engine: str,
    moments: dict[str, AsOf],
) -> dict[str, dict[str, Any]]:
    """One series per moment, their explorations interleaved (each exploration at every moment in turn)."""
    for exploration in chosen[:warmup]:
        for moment in moments.values():
            await timed_exploration(group, exploration, params, engine, moment)
    timings = {name: _Timings() for name in moments}
    for exploration in chosen[warmup:]:
        started = time.perf_counter()
        expected = reference_paths(reference, exploration, params)
        floor = time.perf_counter() - started
        for name, moment in moments.items():
            seconds, result = await timed_exploration(group, exploration, params, engine, moment)
            timings[name].add(seconds, floor, result, expected)
    return {name: series.summary() for name, series in timings.items()}


@dataclass
class _Timings:
    latencies: list[float] = field(default_factory=list)
    floors: list[float] = field(default_factory=list)
    round_trips: list[int] = field(default_factory=list)
    paths: list[int] = field(default_factory=list)
    engines: set[str] = field(default_factory=set)
    mismatches: int = 0

    def add(self, seconds: float, floor: float, result: dict[str, Any], expected: dict) -> None:
        self.engines.add(result["engine"])
        self.latencies.append(seconds)
        self.floors.append(floor)
        self.round_trips.append(result["finished"]["round_trips"])
        self.paths.append(result["finished"]["paths"])
        self.mismatches += result["paths"] != expected

    def summary(self) -> dict[str, Any]:
        latencies, floors, round_trips, paths = self.latencies, self.floors, self.round_trips, self.paths
        return {
            "runs": len(latencies),
            "p50_ms": statistics.median(latencies) * 1000,
            "p95_ms": percentile(latencies, 0.95) * 1000,
            "reference_p50_ms": statistics.median(floors) * 1000,
            "reference_p95_ms": percentile(floors, 0.95) * 1000,
            "round_trips": statistics.mean(round_trips),
            "paths": statistics.mean(paths),
            "mismatches": self.mismatches,
            "engines": sorted(self.engines),
        }


async def run_concurrent(
    group: str, chosen: list[Exploration], params: ActivationParams, clients: int, engine: str, moment: AsOf
) -> dict[str, Any]:
    errors = 0
    latencies: list[float] = []

    async def client(index: int) -> None:
        nonlocal errors
        for exploration in chosen[index::clients]:
            try:
                seconds, result = await timed_exploration(group, exploration, params, engine, moment)
                latencies.append(seconds)
                errors += result["finished"]["status"] != "completed"
            except Exception:
                errors += 1

    started = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    elapsed = time.perf_counter() - started
    return {
        "clients": clients,
        "explorations": len(latencies),
        "errors": errors,
        "throughput_per_s": len(latencies) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p95_ms": percentile(latencies, 0.95) * 1000,
    }


async def activation_benchmark(
    *,
    group: str,
    reference: ReferenceGraph,
    nodes: int,
    runs: int,
    warmup: int,
    clients: int,
    params: ActivationParams,
    engine: str,
    moments: dict[str, AsOf],
) -> dict[str, Any]:
    adopt_running_loop()  # one shared driver for the whole benchmark, as in a server
    results: dict[str, Any] = {}
    if engine != CYPHER:  # warmed, as a server's view is after its first requests
        results["view"] = await asyncio.to_thread(view_load, group=group)
    for with_tags in (True, False):
        chosen = explorations(group=group, nodes=nodes, count=runs + warmup, with_tags=with_tags, seed=7)
        results["with_tags" if with_tags else "without_tags"] = await run_series(
            group, reference, chosen, params, warmup, engine, moments
        )
    if clients:
        last = [*moments.values()][-1]
        # Untimed first: the driver's pool opens a connection per concurrent client on first use (the first run of
        # 20 clients measured p95 171 ms against 54-56 ms for the next ones), which a server does once, not per request.
        warming = explorations(group=group, nodes=nodes, count=clients, with_tags=True, seed=13)
        await run_concurrent(group, warming, params, clients, engine, last)
        chosen = explorations(group=group, nodes=nodes, count=clients * 5, with_tags=True, seed=11)
        results["concurrent"] = await run_concurrent(group, chosen, params, clients, engine, last)
    return results


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def view_load(*, group: str) -> dict[str, Any]:
    """Load the group's view before the clock starts, as a server does at its first request; its cost reported."""
    resident = _resident_bytes()
    started = time.perf_counter()
    projection, _ = projection_cache().get(group, wait=3600, fresh=True)
    projection.incidence()
    seconds = time.perf_counter() - started
    return {
        "load_seconds": projection.load_seconds,
        "ready_seconds": seconds,
        "memory_bytes": projection.memory_bytes(),
        "resident_growth_bytes": _resident_bytes() - resident,
    }
