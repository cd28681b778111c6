"""PPR benchmark: a synthetic graph on the server, its projection loaded, then our PPR timed beside igraph and networkx.

All three run in this process on the same graph (the loaded projection) with
the same seeds, so the ratios compare algorithms, not data or machines. igraph
(PRPACK, what HippoRAG calls) is also the reference the scores are checked
against; networkx is slow, so it runs a few times only. Both are optional
(requirements/test.txt): a missing one is reported, not faked.
"""

from __future__ import annotations

import importlib
import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memoria.bench.activation import COUNT_EDGES, COUNT_NODES, bench_group, build_graph
from memoria.evaluation.timing import percentile
from memoria.graph import driver
from memoria.graph.asof import AsOf
from memoria.graph.versions import group_version_bump
from memoria.ppr.pagerank import personalized_pagerank
from memoria.ppr.request import PprRequest, SeedWeight
from memoria.ppr.service import ppr_run
from memoria.projection.cache import ProjectionCache
from memoria.projection.projection import Projection, projection_load
from memoria.projection.transition import DEFAULT_DAMPING, TransitionGraph
from memoria.requests.moment import AsOfInput

SEEDS_PER_RUN = 5


@dataclass
class Series:
    """Latencies of one implementation (wall and this process's CPU time), and how far it was from igraph."""

    name: str
    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)
    l1_to_igraph: list[float] = field(default_factory=list)
    iterations: list[int] = field(default_factory=list)

    def add(self, timing: Timing) -> None:
        self.seconds.append(timing.wall)
        self.cpu_seconds.append(timing.cpu)

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "runs": len(self.seconds),
            "p50_ms": statistics.median(self.seconds) * 1000,
            "p95_ms": percentile(self.seconds, 0.95) * 1000,
            "cpu_p50_ms": statistics.median(self.cpu_seconds) * 1000,
            "max_l1_to_igraph": max(self.l1_to_igraph) if self.l1_to_igraph else None,
            "mean_iterations": statistics.mean(self.iterations) if self.iterations else None,
        }


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float  # the process's CPU time: on a loaded machine, what a single-threaded run would take alone
    result: Any


def timed(run: Callable[[], Any]) -> Timing:
    cpu, wall = time.process_time(), time.perf_counter()
    result = run()
    return Timing(time.perf_counter() - wall, time.process_time() - cpu, result)


def optional_module(name: str) -> Any | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def ensure_graph(*, nodes: int, edges: int, say: Callable[[str], None]) -> str:
    """The bench group on the server (built only when it does not hold this graph), its version bumped if built."""
    group = bench_group(nodes, edges)
    stored_nodes = driver.read(COUNT_NODES, group=group)[0]["c"]
    stored_edges = driver.read(COUNT_EDGES, group=group)[0]["c"] if stored_nodes == nodes else -1
    if (stored_nodes, stored_edges) == (nodes, edges):
        say(f"reusing group {group} ({nodes} nodes, {edges} edges)")
        return group
    build_graph(nodes=nodes, edges=edges, say=say)
    driver.write_transaction(lambda tx: group_version_bump(tx, group))  # processes holding it load it again
    return group


def seed_sets(projection: Projection, count: int, seed: int) -> list[dict[int, float]]:
    rng = random.Random(seed)
    return [
        {rng.randrange(projection.size): round(rng.uniform(0.5, 1.0), 3) for _ in range(SEEDS_PER_RUN)}
        for _ in range(count)
    ]


def igraph_runner(walk: TransitionGraph, damping: float) -> Callable[[dict[int, float]], np.ndarray] | None:
    igraph = optional_module("igraph")
    if igraph is None:
        return None
    sources, targets, weights = walk.weighted_edges()
    graph = igraph.Graph(n=walk.size, edges=np.column_stack([sources, targets]).tolist(), directed=walk.directed)
    graph.es["weight"] = weights.tolist()

    def run(seeds: dict[int, float]) -> np.ndarray:
        reset = np.zeros(walk.size)
        reset[list(seeds)] = list(seeds.values())
        scores = graph.personalized_pagerank(
            directed=walk.directed, damping=damping, reset=reset.tolist(), weights="weight", implementation="prpack"
        )
        return np.asarray(scores)

    return run


def networkx_runner(walk: TransitionGraph, damping: float) -> Callable[[dict[int, float]], np.ndarray] | None:
    networkx = optional_module("networkx")
    if networkx is None:
        return None
    sources, targets, weights = walk.weighted_edges()
    graph = networkx.DiGraph() if walk.directed else networkx.Graph()
    graph.add_nodes_from(range(walk.size))
    graph.add_weighted_edges_from(zip(sources.tolist(), targets.tolist(), weights.tolist(), strict=True))

    def run(seeds: dict[int, float]) -> np.ndarray:
        # networkx stops when the L1 change is below size × tol: this asks for an L1 change below 1e-6.
        scores = networkx.pagerank(
            graph, alpha=damping, personalization=seeds, weight="weight", tol=1e-6 / walk.size, max_iter=1000
        )
        return np.fromiter((scores[node] for node in range(walk.size)), dtype=np.float64, count=walk.size)

    return run


def ppr_benchmark(
    *,
    group: str,
    runs: int,
    warmup: int,
    reference_runs: int,
    directed: bool,
    say: Callable[[str], None],
    damping: float = DEFAULT_DAMPING,
    moments: dict[str, AsOf] | None = None,
) -> dict[str, Any]:
    """Time every contender on the same seed sets, interleaved so they share the machine's ups and downs."""
    load = timed(lambda: projection_load(group=group))
    projection: Projection = load.result
    built = timed(lambda: projection.walk(directed=directed, mentions=True))
    walk: TransitionGraph = built.result
    say(f"projection loaded in {load.wall:.1f} s, walk built in {built.wall:.2f} s")
    chosen = seed_sets(projection, runs + warmup, seed=7)
    igraph_run = igraph_runner(walk, damping)
    networkx_run = networkx_runner(walk, damping)
    thread_counts = (1, 2) if (os.cpu_count() or 1) >= 2 else (1,)
    ours = {threads: Series(f"ours, {threads} thread{'s' if threads > 1 else ''}") for threads in thread_counts}
    igraph_series, networkx_series = Series("igraph PRPACK"), Series("networkx pagerank")
    method = ""
    for index, seeds in enumerate(chosen):
        runs_of_ours = {
            threads: timed(lambda s=seeds, t=threads: personalized_pagerank(walk, s, damping=damping, threads=t))
            for threads in thread_counts
        }
        reference = timed(lambda s=seeds: igraph_run(s)) if igraph_run is not None else None
        if index < warmup:
            continue
        for threads, timing in runs_of_ours.items():
            method = timing.result.method
            ours[threads].add(timing)
            ours[threads].iterations.append(timing.result.iterations)
            if reference is not None:
                ours[threads].l1_to_igraph.append(float(np.abs(timing.result.scores - reference.result).sum()))
        if reference is not None:
            igraph_series.add(reference)
        if networkx_run is not None and len(networkx_series.seconds) < reference_runs:
            theirs = timed(lambda s=seeds: networkx_run(s))
            networkx_series.add(theirs)
            if reference is not None:
                networkx_series.l1_to_igraph.append(float(np.abs(theirs.result - reference.result).sum()))
    return {
        "load_seconds": load.wall,
        "walk_seconds": built.wall,
        "nodes": projection.size,
        "edges": projection.edge_count,
        "method": method,
        "ours": [series.summary() for series in ours.values()],
        "igraph": igraph_series.summary() if igraph_series.seconds else None,
        "networkx": networkx_series.summary() if networkx_series.seconds else None,
        "service": service_series(
            group=group,
            projection=projection,
            chosen=chosen[warmup:],
            directed=directed,
            moments=moments or {"now": AsOfInput().resolved()},
        ),
    }


def service_series(
    *, group: str, projection: Projection, chosen: list[dict[int, float]], directed: bool, moments: dict[str, AsOf]
) -> dict[str, dict[str, Any]]:
    """Whole ppr_run calls, as the REST view makes them: version read, seed checks, time mask, PPR, top 20; each
    seed set at every moment in turn, so the time filter's cost is measured under the same load."""
    cache = ProjectionCache(loader=lambda **_: projection)
    named = len(moments) > 1  # one moment: the line keeps its name
    series = {name: Series(f"ppr_run, whole call{f', {name}' if named else ''}") for name in moments}
    for seeds in chosen:
        for name, moment in moments.items():
            request = PprRequest(
                group=group,
                seeds=tuple(SeedWeight(projection.ids[position], weight) for position, weight in seeds.items()),
                directed=directed,
                moment=moment,
            )
            series[name].add(timed(lambda r=request: ppr_run(r, cache=cache, wait=60)))
    return {name: one.summary() for name, one in series.items()}


def _latency(series: dict[str, Any]) -> str:
    head = f"  {series['name']} ({series['runs']} runs)".ljust(34)
    return (
        head + f"p50 {series['p50_ms']:8.2f} ms  p95 {series['p95_ms']:8.2f} ms  cpu p50 {series['cpu_p50_ms']:8.2f} ms"
    )


def ppr_report(results: dict[str, Any], *, runs: int, directed: bool) -> list[str]:
    """The printed figures: one line per contender, ratios against ours on one thread."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"ppr, {results['nodes']} nodes / {results['edges']} edges, {'directed' if directed else 'undirected'}, "
        f"damping 0.5, 5 seeds per run, {runs} timed runs; projection load {results['load_seconds']:.1f} s, "
        f"walk {results['walk_seconds']:.2f} s; load average {load:.1f}"
    ]
    baseline = results["ours"][0]
    for series in [*results["ours"], results["igraph"], results["networkx"]]:
        if series is None:
            continue
        line = _latency(series)
        if series["mean_iterations"] is not None:
            line += f" | {results['method']}, {series['mean_iterations']:.1f} multiplies"
        else:
            ratios = (f"{key} {series[f'{key}_ms'] / baseline[f'{key}_ms']:5.1f}x" for key in ("p50", "p95", "cpu_p50"))
            line += " | ours faster: " + " ".join(ratios)
        if series["max_l1_to_igraph"] is not None:
            line += f" | max L1 to igraph {series['max_l1_to_igraph']:.1e}"
        lines.append(line)
    lines.extend(_latency(series) for series in results["service"].values())
    return lines
