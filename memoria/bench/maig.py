"""MAIG benchmark: a synthetic group saved and loaded, the codec timed apart from the graph server's share.

The RFD's target (save/load of 10k edges < 100 ms) is about the format, so
encoding and decoding are timed on bytes in memory; reading the group out of
the server, turning the file into a validated document and importing it are
timed separately because they are bounded by the server, not the format.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from memoria.graph import driver
from memoria.graphindex.maig import (
    EDGE_CREATED,
    maig_decode,
    maig_document,
    maig_edges_from_document,
    maig_encode,
    maig_export,
)
from memoria.interchange.document import parse_graph_document
from memoria.interchange.exporter import graph_document_export
from memoria.interchange.importer import graph_document_import

RELATIONS = ("related_to", "references", "follows", "caused_by", "part_of", "same_as")
DELETE_GROUP = "MATCH (n:Memory {group_id: $group}) DETACH DELETE n"


def synthetic_graph(*, group: str, edges: int, seed: int = 3) -> dict[str, Any]:
    """A graph document with a node per three edges and edges carrying tags and a fact, as saved groups do."""
    rng = random.Random(seed)
    count = max(2, edges // 3)
    nodes = [{"id": f"{group}-n{i}", "name": f"memory {i}", "labels": ["Entity"]} for i in range(count)]
    items = []
    for index in range(edges):
        source = rng.randrange(count)
        target = (source + 1 + rng.randrange(count - 1)) % count
        items.append(
            {
                "id": f"{group}-r{index}",
                "source": f"{group}-n{source}",
                "target": f"{group}-n{target}",
                "relation": rng.choice(RELATIONS),
                "weight": round(rng.uniform(0.25, 1.0), 3),
                "tags": [f"t{rng.randrange(20)}"],
                "fact": f"memory {source} {rng.choice(RELATIONS)} memory {target}",
            }
        )
    return {"nodes": nodes, "edges": items}


def _median_ms(run: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds: on a shared machine the CPU time is the codec's own cost."""
    walls, cpus = [], []
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def _once_ms(run: Callable[[], object]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = run()
    return (time.perf_counter() - started) * 1000, result


def maig_benchmark(*, edges: int, runs: int, say: Callable[[str], None]) -> dict[str, Any]:
    """Write a synthetic group, then time each step of saving it as MAIG and loading it back."""
    group = f"bench-maig-{edges}"
    driver.write(DELETE_GROUP, group=group)
    data = synthetic_graph(group=group, edges=edges)
    graph_document_import(document=parse_graph_document(data, group=group), group=group)
    say(f"wrote group {group}: {len(data['nodes'])} nodes, {edges} edges")

    export_ms, (blob, _) = _once_ms(lambda: maig_export(group=group))
    document = graph_document_export(group=group)
    created = {row["id"]: row["created_at"] for row in driver.read(EDGE_CREATED, group=group)}
    maig_edges = maig_edges_from_document(document, created)
    encode_ms = _median_ms(lambda: maig_encode(maig_edges), runs)
    decode_ms = _median_ms(lambda: maig_decode(blob), runs)
    # The RFD's own edges: the four fields and created_at, no metadata.
    bare = [replace(edge, metadata={}) for edge in maig_edges]
    bare_blob = maig_encode(bare)
    bare_encode_ms = _median_ms(lambda: maig_encode(bare), runs)
    bare_decode_ms = _median_ms(lambda: maig_decode(bare_blob), runs)
    decoded = maig_decode(blob)
    to_document_ms, _ = _once_ms(lambda: maig_document(decoded, group=group))
    driver.write(DELETE_GROUP, group=group)
    fresh = maig_document(decoded, group=group)
    import_ms, _ = _once_ms(lambda: graph_document_import(document=fresh, group=group))
    again_ms, _ = _once_ms(lambda: graph_document_import(document=maig_document(decoded, group=group), group=group))
    return {
        "edges": edges,
        "bytes": len(blob),
        "encode_ms": encode_ms,
        "decode_ms": decode_ms,
        "bare_bytes": len(bare_blob),
        "bare_encode_ms": bare_encode_ms,
        "bare_decode_ms": bare_decode_ms,
        "export_ms": export_ms,
        "to_document_ms": to_document_ms,
        "import_empty_ms": import_ms,
        "import_again_ms": again_ms,
        "runs": runs,
    }


def maig_report(result: dict[str, Any]) -> list[str]:
    def codec(name: str, key: str) -> str:
        wall, cpu = result[key]
        return f"  {name:43s}{wall:8.1f} ms (CPU {cpu:.1f} ms)"

    return [
        f"MAIG, {result['edges']} edges; codec medians of {result['runs']} runs",
        f"  with Memoria's metadata (ids, tags, facts, end names): {result['bytes']:,} bytes",
        codec("encode (bytes from edges in memory)", "encode_ms"),
        codec("decode (strict reader, bytes to edges)", "decode_ms"),
        f"  the RFD's fields only (no metadata): {result['bare_bytes']:,} bytes",
        codec("encode", "bare_encode_ms"),
        codec("decode", "bare_decode_ms"),
        f"  export_graph --format maig (server + encode) {result['export_ms']:6.1f} ms",
        f"  decoded edges to a validated document      {result['to_document_ms']:8.1f} ms",
        f"  import into the emptied group              {result['import_empty_ms']:8.1f} ms",
        f"  import again (every edge updated in place) {result['import_again_ms']:8.1f} ms",
    ]
