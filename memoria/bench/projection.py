"""`bench projection`: after a small write, a group's projection brought up to date incrementally versus loaded
whole again (issue 12), on the activation benchmark's synthetic graph; every update is checked against the load.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from memoria.graph import driver
from memoria.graph.versions import group_version_bump
from memoria.graphindex.service import edges_add
from memoria.projection.projection import Projection, projection_load
from memoria.projection.update import projection_update

RELATION_PREFIX = "bench_projection_"
REMOVE_FACTS = f"""
MATCH (:Memory {{group_id: $group}})-[r:RELATES]->()
WHERE r.relation STARTS WITH '{RELATION_PREFIX}'
DELETE r
RETURN count(r) AS removed
"""
# The arrays PPR and activation read; an update that differs from the load in any of them is a mismatch.
COMPARED = ("indptr", "targets", "weights", "categories", "links", "relates_degrees", "label_codes", "unnamed")


def facts_write(*, group: str, projection: Projection, count: int, run: int, rng: random.Random) -> None:
    """`count` new facts between random nodes of the group, written as any client's would be (one import)."""
    ends = [rng.sample(range(projection.size), 2) for _ in range(count)]
    edges_add(
        group=group,
        edges=[
            {
                "source": projection.ids[source],
                "target": projection.ids[target],
                "relation": f"{RELATION_PREFIX}{run}_{index}",
                "weight": round(rng.uniform(0.25, 1.0), 3),
                "metadata": {"tags": ["bench"]},
            }
            for index, (source, target) in enumerate(ends)
        ],
    )


def facts_remove(*, group: str) -> int:
    """The facts this benchmark wrote, removed, so that the group is the activation bench's graph again."""

    def remove(tx: Any) -> int:
        removed = tx.run(REMOVE_FACTS, group=group).single()["removed"]
        if removed:
            group_version_bump(tx, group)
        return removed

    return driver.write_transaction(remove)


def projection_mismatches(updated: Projection, loaded: Projection) -> list[str]:
    """The fields in which an incrementally updated projection differs from a full load of the same version."""
    differ = [name for name in COMPARED if not np.array_equal(getattr(updated, name), getattr(loaded, name))]
    if updated.ids != loaded.ids or updated.version != loaded.version:
        differ.append("ids/version")
    facts = updated.facts, loaded.facts
    if facts[0].ids != facts[1].ids or not np.array_equal(facts[0].id_ranks, facts[1].id_ranks):
        differ.append("fact ids")
    return differ


def projection_benchmark(*, group: str, runs: int, facts: int, say: Callable[[str], None]) -> dict[str, Any]:
    """`runs` rounds of: write `facts` facts, update the previous projection, load the group whole; timed apart."""
    rng = random.Random(12)
    projection = projection_load(group=group)
    say(f"first load: {projection.size} nodes, {projection.edge_count} edges in {projection.load_seconds:.2f} s")
    full: list[float] = []
    incremental: list[float] = []
    mismatches: list[str] = []
    loaded = projection
    for run in range(runs):
        facts_write(group=group, projection=projection, count=facts, run=run, rng=rng)
        started = time.perf_counter()
        updated = projection_update(projection)
        incremental.append(time.perf_counter() - started)
        if updated is None:
            raise RuntimeError("the write's stamp did not name what it touched: no incremental update")
        started = time.perf_counter()
        loaded = projection_load(group=group)
        full.append(time.perf_counter() - started)
        mismatches.extend(f"run {run}: {name}" for name in projection_mismatches(updated, loaded))
        say(f"  run {run + 1}/{runs}: incremental {incremental[-1]:.3f} s, full {full[-1]:.2f} s")
        projection = updated
    return {
        "nodes": projection.size,
        "edges": projection.edge_count,
        "facts": facts,
        "runs": runs,
        "full_seconds": statistics.median(full),
        "incremental_seconds": statistics.median(incremental),
        "ratio": statistics.median(full) / statistics.median(incremental),
        "full_bytes": loaded.memory_bytes(),
        "incremental_bytes": projection.memory_bytes(),
        "keys_bytes": projection.keys.nbytes,
        "mismatches": mismatches,
    }


def projection_report(results: dict[str, Any]) -> list[str]:
    mib = 1024 * 1024
    return [
        f"projection, {results['nodes']} nodes / {results['edges']} edges, {results['facts']} facts written per run, "
        f"median of {results['runs']}:",
        f"  full reload        {results['full_seconds']:8.3f} s",
        f"  incremental update {results['incremental_seconds']:8.3f} s   ({results['ratio']:.1f}× faster)",
        f"  memory: {results['incremental_bytes'] / mib:.1f} MiB updated, {results['full_bytes'] / mib:.1f} MiB loaded "
        f"(the internal ids kept for updates: {results['keys_bytes'] / mib:.2f} MiB)",
        f"  mismatches with the full load: {len(results['mismatches'])}",
    ]
