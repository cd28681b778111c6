"""Graph index benchmark: the RFD 0003 operations timed against its targets on a synthetic group.

Every operation is a round trip to the graph server (the index is the
server's RELATES edges), so these figures are the server's latency plus ours;
the RFD's targets assumed an in-process adjacency list.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from memoria.bench.maig import DELETE_GROUP, synthetic_graph
from memoria.evaluation.timing import percentile
from memoria.graph import driver
from memoria.graphindex import service as index
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.requests.moment import AsOfInput

BATCH = 1000


def _timed(run: Callable[[int], object], runs: int) -> dict[str, float]:
    seconds = []
    for attempt in range(runs):
        started = time.perf_counter()
        run(attempt)
        seconds.append(time.perf_counter() - started)
    return {"p50_ms": statistics.median(seconds) * 1000, "p95_ms": percentile(seconds, 0.95) * 1000}


def graph_index_benchmark(*, edges: int, runs: int, say: Callable[[str], None]) -> dict[str, Any]:
    group = f"bench-index-{edges}"
    driver.write(DELETE_GROUP, group=group)
    data = synthetic_graph(group=group, edges=edges)
    graph_document_import(document=parse_graph_document(data, group=group), group=group)
    ids = [node["id"] for node in data["nodes"]]
    say(f"wrote group {group}: {len(ids)} nodes, {edges} edges")
    rng = random.Random(7)
    picks = [rng.choice(ids) for _ in range(runs)]

    def new_edges(count: int, tag: int) -> list[dict[str, Any]]:
        pairs: dict[tuple[str, str], None] = {}  # one edge per pair: the same (source, relation, target) is one edge
        while len(pairs) < count:
            pairs[tuple(rng.sample(ids, 2))] = None
        return [{"source": s, "target": t, "relation": f"added_{tag}", "weight": 0.5} for s, t in pairs]

    three_hops = index.traversal_options(direction="both", max_depth=3, max_results=100)
    one_hop = index.traversal_options(direction="both")
    # The same walks at a moment (now): what asking for the facts that count costs (the synthetic facts all do).
    three_hops_now = replace(three_hops, moment=AsOfInput().resolved())
    for node in rng.sample(ids, 10):  # warm the server's caches and query plans, untimed
        index.outgoing(group=group, node_id=node)
        index.traverse(group=group, start=node, options=three_hops)
    batches = [new_edges(BATCH, attempt) for attempt in range(3)]
    batch = _timed(lambda attempt: index.edges_add(group=group, edges=batches[attempt]), 3)
    singles = [new_edges(1, 100 + attempt) for attempt in range(runs)]
    single = _timed(lambda attempt: index.edges_add(group=group, edges=singles[attempt]), runs)
    counts: list[int] = []
    results = {
        "edges": edges,
        "runs": runs,
        "add_batch_per_edge_ms": batch["p50_ms"] / BATCH,
        "add_single": single,
        "outgoing": _timed(lambda attempt: index.outgoing(group=group, node_id=picks[attempt]), runs),
        "related": _timed(lambda attempt: index.related(group=group, node_id=picks[attempt], options=one_hop), runs),
        "traverse_3": _timed(
            lambda attempt: counts.append(len(index.traverse(group=group, start=picks[attempt], options=three_hops))),
            runs,
        ),
        "traverse_3_now": _timed(
            lambda attempt: index.traverse(group=group, start=picks[attempt], options=three_hops_now), runs
        ),
        "has_edge": _timed(
            lambda attempt: index.has_edge(group=group, source=picks[attempt], target=picks[-attempt - 1]), runs
        ),
        "remove_edge": _timed(
            lambda attempt: index.edge_remove(
                group=group,
                source=singles[attempt][0]["source"],
                target=singles[attempt][0]["target"],
                relation=singles[attempt][0]["relation"],
            ),
            runs,
        ),
    }
    results["traverse_3_mean_results"] = statistics.mean(counts)
    return results


def graph_index_report(result: dict[str, Any]) -> list[str]:
    def line(name: str, key: str, target: str) -> str:
        r = result[key]
        return f"  {name:34s} p50 {r['p50_ms']:7.2f} ms  p95 {r['p95_ms']:7.2f} ms   (RFD target {target})"

    return [
        f"graph index, {result['edges']} edges, {result['runs']} timed calls per operation",
        f"  add edge, batches of {BATCH}             {result['add_batch_per_edge_ms']:7.3f} ms per edge   "
        "(RFD target < 1 ms)",
        line("add edge, one per call", "add_single", "< 1 ms"),
        line("remove edge", "remove_edge", "< 1 ms"),
        line("outgoing", "outgoing", "< 1 ms"),
        line("related (one hop, both ways)", "related", "< 5 ms"),
        line("traverse 3 hops, ≤ 100 results", "traverse_3", "< 50 ms"),
        f"    ({result['traverse_3_mean_results']:.0f} results on average)",
        line("the same at a moment (as_of now)", "traverse_3_now", "< 50 ms"),
        line("has edge", "has_edge", "-"),
    ]
