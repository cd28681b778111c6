"""`bench import`: where a structured import's time goes, on the synthetic memory of `bench search`.

Each run imports the whole memory into an emptied throwaway group as `import_graph` does (one writing transaction,
then the written items embedded after the commit) and splits its time: the document's validation, the writing
transaction, the embedding pass (inside it: the model, the vector writes, the reads of the texts) and the search
view's build (what the group's first search would pay). The reference is the model alone on every item's text,
in the same process right after each run, so a busy spell of the shared machine falls on both alike: the import's
ratio to it is how close the import comes to the model's speed. The group is deleted at the end, also on failure.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from memoria.bench.search import synthetic_memory
from memoria.embeddings import Embedder, embedder
from memoria.evaluation.timing import percentile
from memoria.graph import driver
from memoria.graph.searchable import fact_text, node_text
from memoria.graph.versions import group_stamps_delete
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import, import_size
from memoria.readmodel.cache import view_cache
from memoria.readmodel.scopes import SCOPES

DELETE_GROUP = "MATCH (n:Memory {group_id: $group}) DETACH DELETE n"
# A float over Bolt: a one-byte marker and eight bytes (PackStream has no float32), plus a list header per vector.
BOLT_FLOAT_BYTES = 9
BOLT_LIST_HEADER_BYTES = 3

Say = Callable[[str], None]


class TimedEmbedder:
    """The process's embedder, counting the texts it is asked for and the seconds it spends on them."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.calls = 0
        self.texts = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0  # the process's CPU time (all threads) while the model ran

    def embed(self, texts: list[str]) -> list[list[float]]:
        started, cpu = time.perf_counter(), time.process_time()
        vectors = self.inner.embed(texts)
        self.seconds += time.perf_counter() - started
        self.cpu_seconds += time.process_time() - cpu
        self.calls += 1
        self.texts += len(texts)
        return vectors


def bench_group(facts: int) -> str:
    return f"bench-import-{facts}"


def group_delete(group: str) -> None:
    driver.write(DELETE_GROUP, group=group)
    group_stamps_delete(group=group)
    view_cache().forget(group)


def item_texts(document: dict[str, Any]) -> list[str]:
    """Every node's and fact's searchable text, as the import's embedding pass reads it from the server."""
    names = {node["id"]: node["name"] for node in document["nodes"]}
    texts = [
        node_text(
            is_episode="Episode" in node["labels"],
            name=node["name"],
            content=node.get("content"),
            summary=node.get("summary"),
        )
        for node in document["nodes"]
    ]
    texts += [
        fact_text(
            source_name=names[edge["source"]],
            relation=edge["relation"],
            target_name=names[edge["target"]],
            fact=edge.get("fact"),
        )
        for edge in document["edges"]
    ]
    return texts


def _import_once(group: str, raw: dict[str, Any], model: Embedder) -> dict[str, float]:
    group_delete(group)
    timed = TimedEmbedder(model)
    started = time.perf_counter()
    document = parse_graph_document(raw, group=group)
    parsed = time.perf_counter()
    report = graph_document_import(document=document, group=group, embed=True, model=timed)
    imported = time.perf_counter()
    with view_cache().reading(group, *SCOPES):
        pass
    indexed = time.perf_counter()
    outcome = report.embedding
    if outcome is None or outcome.report is None or outcome.error:
        raise RuntimeError(f"the import's embedding pass failed: {outcome.error if outcome else 'it did not run'}")
    return {
        "parse": parsed - started,
        "write": report.seconds,  # graph_document_import's own clock: the checks and the writing transaction
        "embedding": outcome.seconds,
        "model": timed.seconds,
        "model_cpu": timed.cpu_seconds,
        "store": outcome.report.store_seconds,
        "index": indexed - imported,
        "total": indexed - started,
        "rows": import_size(document),
        "items": outcome.embedded,
        "texts": timed.texts,
        "calls": timed.calls,
    }


def _reference_once(texts: list[str], model: Embedder) -> tuple[float, float]:
    """Wall and CPU seconds of the model alone on the texts: the CPU time is its own cost on a shared machine."""
    started, cpu = time.perf_counter(), time.process_time()
    model.embed(texts)
    return time.perf_counter() - started, time.process_time() - cpu


def import_benchmark(*, facts: int, runs: int, say: Say) -> dict[str, Any]:
    """Import the `facts`-fact memory `runs` times, each followed by the model alone on the same texts."""
    group = bench_group(facts)
    raw = synthetic_memory(group=group, facts=facts).document
    texts = item_texts(raw)
    model = embedder()
    model.embed(texts[:64])  # a first call's warm-up (OpenVINO's first inference) is charged to neither side
    say(f"{len(raw['nodes'])} nodes, {len(raw['edges'])} facts, {len(texts)} texts ({len(set(texts))} distinct)")
    runs_made: list[dict[str, float]] = []
    references: list[float] = []
    reference_cpus: list[float] = []
    try:
        for index in range(runs):
            figures = _import_once(group, raw, model)
            runs_made.append(figures)
            wall, cpu = _reference_once(texts, model)
            references.append(wall)
            reference_cpus.append(cpu)
            say(
                f"  run {index + 1}: total {figures['total']:.1f} s, embedding {figures['embedding']:.1f} s, "
                f"reference {references[-1]:.1f} s"
            )
    finally:
        group_delete(group)
    return {
        "facts": facts,
        "runs": runs_made,
        "references": references,
        "reference_cpus": reference_cpus,
        "texts": len(texts),
        "distinct_texts": len(set(texts)),
        "document_bytes": len(json.dumps(raw).encode()),
        "dimensions": model.dimensions,
    }


def _spread(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:7.2f} s"
    return f"{statistics.median(values):7.2f} s (p95 {percentile(values, 0.95):.2f} s)"


def import_report(results: dict[str, Any], *, load: str) -> list[str]:
    runs = results["runs"]

    def median(key: str) -> float:
        return statistics.median(run[key] for run in runs)

    def series(key: str) -> list[float]:
        return [run[key] for run in runs]

    items, texts, dimensions = median("items"), median("texts"), results["dimensions"]
    reference = statistics.median(results["references"])
    reference_rate = results["texts"] / reference
    embedding = median("embedding")
    vector_bytes = items * (dimensions * BOLT_FLOAT_BYTES + BOLT_LIST_HEADER_BYTES)
    reads = [run["embedding"] - run["model"] - run["store"] for run in runs]
    ratios = [
        run["items"] / run["embedding"] / (results["texts"] / ref)
        for run, ref in zip(runs, results["references"], strict=True)
    ]
    return [
        f"import: the {results['facts']}-fact synthetic memory into an emptied group, {len(runs)} run(s), "
        f"medians ({load})",
        f"  document: {median('rows'):.0f} rows, {results['document_bytes'] / 2**20:.1f} MiB of JSON; "
        f"{results['texts']} texts, {results['distinct_texts']} distinct",
        f"  validate the document           {_spread(series('parse'))}",
        f"  write (checks + transaction)    {_spread(series('write'))}  {median('rows') / median('write'):8.0f} rows/s",
        f"  embedding pass                  {_spread(series('embedding'))}  {items / embedding:8.0f} items/s "
        f"({items:.0f} items, {texts:.0f} texts sent to the model in {median('calls'):.0f} calls)",
        f"    in the model                  {_spread(series('model'))}  {texts / median('model'):8.0f} texts/s",
        f"    writing vectors               {_spread(series('store'))}  "
        f"{vector_bytes / median('store') / 2**20:8.1f} MiB/s over Bolt ({vector_bytes / 2**20:.1f} MiB)",
        f"    reading texts and counting    {_spread(reads)}",
        f"  index (the search view's build) {_spread(series('index'))}",
        f"  total                           {_spread(series('total'))}",
        f"  reference: the model alone on all {results['texts']} texts {_spread(results['references'])}  "
        f"{reference_rate:8.0f} texts/s",
        f"  the import's embedding pass against it: {statistics.median(ratios):.2f}× "
        f"(items/s of the pass ÷ texts/s of the model alone; each run against its own reference)",
        f"  CPU per text in the model: {median('model_cpu') / texts * 1000:.1f} ms in the import, "
        f"{statistics.median(results['reference_cpus']) / results['texts'] * 1000:.1f} ms alone",
    ]
