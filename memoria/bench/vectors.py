"""`bench vectors`: what one search-view item costs in memory, by part, and how the view's vector search compares
with the exact float32 search it stands for, in the same process, without a graph server.

The items are the facts of `bench search`'s synthetic memory (their texts as a view indexes them); their vectors
are those texts embedded by the configured model, or random unit vectors (`--random-vectors`: the hardest case for
recall, every cosine near zero and the best ones a hair apart). Each part of a facts scope (the items with their
maps, the BM25 index, the vector index) is built alone and its growth of resident memory read, beside the view's
own count of its bytes (what the budget MEMORIA_VIEW_MAX_BYTES is checked against). The reference for search is the
exact search by its definition: every float32 unit row's cosine with the query, the best `limit` by score then key.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from memoria.bench.search import synthetic_memory
from memoria.bench.view import resident_bytes
from memoria.embeddings import embedder
from memoria.evaluation.timing import percentile
from memoria.readmodel.group_view import heap_release
from memoria.readmodel.scopes import FACTS, Item
from memoria.readmodel.text_index import TextIndex
from memoria.readmodel.vector_index import INT8_MAX, VectorIndex, decoded, exact_cosines, quantised

EMBED_BATCH = 1_000
DIMENSIONS_RANDOM = 384
Say = Callable[[str], None]


def _settled_resident() -> int:
    gc.collect()
    heap_release()
    return resident_bytes()


def fact_items(count: int) -> list[Item]:
    """The synthetic memory's facts as a view holds them (`triple` as the server's FACT_TRIPLE writes it)."""
    document = synthetic_memory(group="bench-vectors", facts=count).document
    names = {node["id"]: node["name"] for node in document["nodes"]}
    return [
        Item(
            id=edge["id"],
            name=edge["relation"],
            text=edge["fact"],
            texts={
                "fact": edge["fact"],
                "triple": f"{names[edge['source']]} {edge['relation']} {names[edge['target']]}",
            },
            source=edge["source"],
            target=edge["target"],
            valid_at=edge["valid_at"],
            invalid_at=edge.get("invalid_at"),
        )
        for edge in document["edges"]
    ]


def _vectors(texts: list[str], queries: list[str], *, random_vectors: bool, say: Say) -> tuple[np.ndarray, np.ndarray]:
    if random_vectors:
        rng = np.random.default_rng(17)
        rows = rng.normal(size=(len(texts) + len(queries), DIMENSIONS_RANDOM)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        return rows[: len(texts)], rows[len(texts) :]
    model = embedder()
    say(f"embedding {len(texts)} fact texts and {len(queries)} queries with {model.model_id}")
    parts = [
        np.asarray(model.embed(texts[at : at + EMBED_BATCH]), dtype=np.float32)
        for at in range(0, len(texts), EMBED_BATCH)
    ]
    return np.concatenate(parts), np.asarray(model.embed(queries), dtype=np.float32)


def part_costs(count: int, vectors: np.ndarray) -> dict[str, dict[str, float]]:
    """Each part built alone: its growth of resident memory and, where the view counts it, its own byte count."""
    costs: dict[str, dict[str, float]] = {}
    before = _settled_resident()
    items = fact_items(count)
    held: dict[str, Item] = {item.id: item for item in items}
    by_node: dict[str, set[str]] = {}
    for item in items:
        for node in (item.source, item.target):
            by_node.setdefault(str(node), set()).add(item.id)
    costs["items and their maps"] = {"rss": _settled_resident() - before}
    before = _settled_resident()
    text = TextIndex(FACTS.text_fields)
    text.put((item.id, item.texts) for item in items)
    text.commit()
    costs["BM25 index (tantivy)"] = {"rss": _settled_resident() - before}
    before = _settled_resident()
    index = VectorIndex(vectors.shape[1])
    index.reserve(len(items))
    index.put_rows([item.id for item in items], vectors)
    costs["vector index"] = {"rss": _settled_resident() - before, "counted": index.nbytes}
    costs["float32 matrix alone (reference)"] = {"rss": float(vectors.nbytes), "counted": float(vectors.nbytes)}
    del items, held, by_node, text, index
    return costs


def _exact(matrix: np.ndarray, keys: list[str], query: np.ndarray, limit: int) -> list[str]:
    """The reference: every float32 unit row's cosine (one pair at a time, as the view scores), the best `limit`
    by score then key."""
    scores = exact_cosines(matrix, query / np.linalg.norm(query))
    kth = np.partition(scores, len(scores) - limit)[len(scores) - limit] if len(scores) > limit else -np.inf
    ranked = sorted((-float(scores[row]), keys[row]) for row in np.flatnonzero(scores >= kth))  # ties at the cut too
    return [key for _, key in ranked[:limit]]


def search_comparison(
    keys: list[str], vectors: np.ndarray, queries: np.ndarray, *, limit: int, runs: int, warmup: int
) -> dict[str, Any]:
    """The view's vector search against the exact float32 search, query by query, alternating, timed alike."""
    matrix = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    index = VectorIndex(vectors.shape[1])
    index.put_rows(keys, vectors)
    rows = {key: row for row, key in enumerate(keys)}
    seconds: dict[str, list[float]] = {"exact float32": [], "view": []}
    recalls: list[float] = []
    score_errors: list[float] = []
    for run in range(runs + warmup):
        query = queries[run % len(queries)]
        started = time.perf_counter()
        expected = _exact(matrix, keys, query, limit)
        middle = time.perf_counter()
        found = index.nearest(query, limit=limit)
        ended = time.perf_counter()
        if run >= warmup:
            seconds["exact float32"].append(middle - started)
            seconds["view"].append(ended - middle)
        recalls.append(len(set(expected) & {key for key, _ in found}) / max(len(expected), 1))
        unit = (query / np.linalg.norm(query)).astype(np.float32)
        score_errors.extend(abs(score - float(matrix[rows[key]] @ unit)) for key, score in found)
    timing = {
        name: {"p50_ms": statistics.median(values) * 1000, "p95_ms": percentile(values, 0.95) * 1000}
        for name, values in seconds.items()
    }
    return {
        "timing": timing,
        "recall": statistics.fmean(recalls),
        "recall_min": min(recalls),
        "score_error_max": max(score_errors, default=0.0),
        "queries": len(recalls),
    }


def stored_forms(vectors: np.ndarray, queries: np.ndarray, *, limit: int) -> dict[str, dict[str, float]]:
    """Each form a view could score its rows in, every row scored: recall@limit against exact float32, the largest
    score error, and the bytes a row takes with the coarse codes the scan reads (what chose the view's form)."""
    matrix = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    peaks, codes, fine, _residuals = quantised(matrix)
    forms = {
        "int8 codes alone": (codes.astype(np.float32) * (peaks / INT8_MAX)[:, None], 384 + 4),
        "float16 copy beside the int8 codes": (matrix.astype(np.float16).astype(np.float32), 768 + 384 + 4),
        "two levels of int8 codes (the view)": (decoded(peaks, codes, fine), 384 + 384 + 4),
    }
    keys = [f"{row:07d}" for row in range(len(matrix))]
    found: dict[str, dict[str, float]] = {}
    for name, (rows, row_bytes) in forms.items():
        recalls, errors = [], []
        for query in queries:
            unit = query / np.linalg.norm(query)
            expected = set(_exact(matrix, keys, query, limit))
            recalls.append(len(expected & set(_exact(rows, keys, query, limit))) / max(len(expected), 1))
            errors.append(float(np.abs(exact_cosines(rows, unit) - exact_cosines(matrix, unit)).max()))
        found[name] = {"recall": statistics.fmean(recalls), "error": max(errors), "bytes": row_bytes}
    return found


def vectors_benchmark(
    *, items: int, runs: int, warmup: int, limit: int, random_vectors: bool, say: Say
) -> dict[str, Any]:
    facts = fact_items(items)
    query_texts = list(synthetic_memory(group="bench-vectors", facts=items).queries)
    vectors, query_vectors = _vectors(
        [item.text for item in facts], query_texts, random_vectors=random_vectors, say=say
    )
    say(f"measuring the parts of a {items}-fact scope")
    costs = part_costs(items, vectors)
    say(f"searching {runs} times, top {limit}, beside the exact float32 search")
    search = search_comparison(
        [item.id for item in facts], vectors, query_vectors, limit=limit, runs=runs, warmup=warmup
    )
    say(f"scoring every row in each stored form, {len(query_vectors)} queries")
    forms = stored_forms(vectors, query_vectors, limit=limit)
    return {
        "costs": costs,
        "search": search,
        "forms": forms,
        "vectors": "random unit" if random_vectors else "embedded",
    }


def vectors_report(results: dict[str, Any], *, items: int, limit: int, load: str) -> list[str]:
    lines = [f"vectors: {items} facts, {results['vectors']} vectors ({load})", "  bytes per item, by part:"]
    for name, cost in results["costs"].items():
        counted = f", view's own count {cost['counted'] / items:7.0f}" if "counted" in cost else ""
        lines.append(f"    {name:34s} RSS {cost['rss'] / items:7.0f}{counted}")
    search = results["search"]
    reference = search["timing"]["exact float32"]
    for name, timing in search["timing"].items():
        lines.append(
            f"  {name:13s} top {limit}: p50 {timing['p50_ms']:6.2f} ms  p95 {timing['p95_ms']:6.2f} ms  "
            f"ratio p50 {timing['p50_ms'] / max(reference['p50_ms'], 1e-9):4.2f}×  "
            f"p95 {timing['p95_ms'] / max(reference['p95_ms'], 1e-9):4.2f}×"
        )
    lines.append(
        f"  recall@{limit} of the view against exact float32: mean {search['recall']:.4f}, "
        f"lowest {search['recall_min']:.2f} over {search['queries']} queries; "
        f"largest score error {search['score_error_max']:.2e}"
    )
    lines.append("  stored forms, every row scored, each of the memory's queries once:")
    for name, form in results["forms"].items():
        lines.append(
            f"    {name:36s} {form['bytes']:5.0f} B a row  recall@{limit} {form['recall']:.4f}  "
            f"largest score error {form['error']:.1e}"
        )
    return lines
