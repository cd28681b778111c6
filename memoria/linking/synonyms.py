"""Synonymy edges: two entities whose names the embedding model reads as near the same get an inferred fact.

HippoRAG adds an edge between phrase nodes whose name embeddings reach a cosine threshold, so a walk that starts
at "the Beatles" also reaches passages indexed under "Beatles (band)". Here each such pair becomes a RELATES fact
`SYNONYM_OF` (category ATTRIBUTION, which is how PPR's β weigh HippoRAG's synonymy) whose weight is the cosine.

Curators must be able to see and undo what no person or extractor said, so every inferred edge carries its
provenance: the tags `inferred:synonymy`, `model:<vector model id>` and `threshold:<t>`, and a fact sentence
that names both and the similarity. Its id is derived from the group, the pair and the relation, so a second run
with the same model and threshold writes nothing new; a run also removes the inferred edges it no longer finds
(a higher threshold, a renamed entity), and `synonyms_remove` removes them all. Facts written by anyone else
are never touched: the tag is the only thing that marks an edge as ours.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import neo4j
import numpy as np

from memoria.accounts.roles import check_group_name
from memoria.embeddings import embedder
from memoria.errors import InvalidInput
from memoria.graph import driver, kinds
from memoria.graph.rules import derived_edge_id
from memoria.graph.versions import group_version_bump
from memoria.interchange.document import EdgeRecord, GraphDocument
from memoria.interchange.importer import graph_document_import

RELATION = "SYNONYM_OF"
CATEGORY = "ATTRIBUTION"
INFERRED_TAG = "inferred:synonymy"
# Chosen by 5-fold cross-validation on the shared MuSiQue questions (docs/evaluation.md, "Graph fusion").
DEFAULT_THRESHOLD = 0.95
BLOCK_ROWS = 1024  # rows of the similarity matrix computed at once: 1024 × 20k floats is 80 MB

ENTITY_NAMES = f"""
MATCH (n:{kinds.ENTITY} {{group_id: $group}})
WHERE n.name IS NOT NULL AND n.name <> ''
RETURN n.id AS id, n.name AS name
ORDER BY n.id
"""
INFERRED = f"""
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group}})-[r:{kinds.RELATES}]->(b:{kinds.MEMORY_LABEL})
WHERE r.group_id = $group AND $tag IN r.tags
RETURN r.id AS id, a.id AS source, b.id AS target, r.weight AS weight, r.tags AS tags, r.fact AS fact
"""
# Each edge is found from its two ends by their id index, as curation deletes facts: matching the fact id alone
# scans every fact of the group once per id (2,040 ids over 17k facts did not finish in minutes).
DELETE = f"""
UNWIND $rows AS row
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.source}})-[r:{kinds.RELATES}]->
      (b:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.target}})
WHERE r.id = row.id AND $tag IN r.tags
DELETE r
RETURN a.id AS source, b.id AS target
"""


@dataclass(frozen=True)
class SynonymPair:
    source: str  # the smaller id: an undirected relation is stored once
    target: str
    source_name: str
    target_name: str
    similarity: float


@dataclass(frozen=True)
class SynonymReport:
    group: str
    model: str
    threshold: float
    entities: int
    pairs: int  # inferred edges the group holds now
    written: int  # of those, new or changed by this run
    removed: int  # inferred edges no longer found, deleted
    seconds: float

    def as_dict(self) -> dict[str, object]:
        return vars(self) | {"seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class NameVectors:
    """The group's entity names and their unit vectors by one model: what every threshold reads alike."""

    ids: tuple[str, ...]
    names: tuple[str, ...]
    vectors: np.ndarray  # float32, one row per entity
    model: str


def name_vectors(*, group: str) -> NameVectors:
    """Embed every named entity of the group by its name alone (HippoRAG embeds the phrase, not a summary)."""
    rows = driver.read(ENTITY_NAMES, group=group)
    model = embedder()
    names = [row["name"] for row in rows]
    vectors = np.asarray(model.embed(names), dtype=np.float32).reshape(len(names), -1)
    return NameVectors(tuple(row["id"] for row in rows), tuple(names), vectors, model.model_id)


def threshold_check(threshold: float) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0.0 < threshold < 1.0:
        raise InvalidInput(f"threshold: {threshold!r} must be a number strictly between 0 and 1")
    return float(threshold)


def synonym_pairs(
    ids: Sequence[str], names: Sequence[str], vectors: np.ndarray, *, threshold: float
) -> list[SynonymPair]:
    """Every pair of distinct entities whose unit name vectors reach `threshold` in cosine, each pair once."""
    found: list[SynonymPair] = []
    matrix = np.asarray(vectors, dtype=np.float32)
    for start in range(0, len(ids), BLOCK_ROWS):
        block = matrix[start : start + BLOCK_ROWS] @ matrix.T
        rows, columns = np.nonzero(block >= threshold)
        for row, column in zip(rows.tolist(), columns.tolist(), strict=True):
            first = start + row
            if first >= column:  # the diagonal, and the lower triangle seen from the other end
                continue
            a, b = (first, column) if ids[first] < ids[column] else (column, first)
            found.append(SynonymPair(ids[a], ids[b], names[a], names[b], float(block[row, column])))
    return sorted(found, key=lambda pair: (pair.source, pair.target))


def _record(group: str, pair: SynonymPair, *, model: str, threshold: float) -> EdgeRecord:
    similarity = min(pair.similarity, 1.0)
    return EdgeRecord(
        id=derived_edge_id(group, pair.source, RELATION, pair.target),
        source=pair.source,
        target=pair.target,
        relation=RELATION,
        weight=round(similarity, 4),
        tags=(INFERRED_TAG, f"model:{model}".lower(), f"threshold:{threshold:g}"),
        fact=(
            f"{pair.source_name} and {pair.target_name} may name the same thing "
            f"(inferred: name embeddings {similarity:.3f} ≥ {threshold:g}, {model})"
        ),
        category=CATEGORY,
    )


@dataclass(frozen=True)
class _Stored:
    source: str
    target: str
    weight: float
    tags: frozenset[str]
    fact: str


def _inferred(group: str) -> dict[str, _Stored]:
    """The group's inferred synonymy edges by id: what a rerun compares against, and where to delete them."""
    return {
        row["id"]: _Stored(
            row["source"], row["target"], float(row["weight"] or 0.0), frozenset(row["tags"] or ()), row["fact"] or ""
        )
        for row in driver.read(INFERRED, group=group, tag=INFERRED_TAG)
    }


def _delete(group: str, stored: dict[str, _Stored], ids: Sequence[str]) -> int:
    if not ids:
        return 0
    rows = [{"id": fact_id, "source": stored[fact_id].source, "target": stored[fact_id].target} for fact_id in ids]

    def work(tx: neo4j.ManagedTransaction) -> int:
        deleted = list(tx.run(DELETE, rows=rows, group=group, tag=INFERRED_TAG))
        touched = {row["source"] for row in deleted} | {row["target"] for row in deleted}
        group_version_bump(tx, group, touched=touched)
        return len(deleted)

    return driver.write_transaction(work)


def inferred_count(group: str) -> int:
    """How many inferred synonymy edges the group holds (what a graph walk over it crosses besides stated facts)."""
    return len(_inferred(group))


def synonyms_remove(*, group: str) -> int:
    """Delete every inferred synonymy edge of the group (no other fact); how many were deleted."""
    check_group_name(group)
    stored = _inferred(group)
    return _delete(group, stored, sorted(stored))


def synonyms_infer(
    *, group: str, threshold: float = DEFAULT_THRESHOLD, names: NameVectors | None = None
) -> SynonymReport:
    """Embed the group's entity names (or take `names`, embedded just before), store a synonymy edge for each
    pair at or above `threshold`, and delete the inferred edges this run did not find. Running it twice changes
    nothing the second time."""
    check_group_name(group)
    threshold = threshold_check(threshold)
    started = time.perf_counter()
    found = names or name_vectors(group=group)
    pairs = synonym_pairs(found.ids, found.names, found.vectors, threshold=threshold)
    records = [_record(group, pair, model=found.model, threshold=threshold) for pair in pairs]
    before = _inferred(group)
    changed = [
        record
        for record in records
        if before.get(record.id)
        != _Stored(record.source, record.target, record.weight, frozenset(record.tags), record.fact)
    ]
    if changed:
        # Upserts by id, only what is new or differs (another model or threshold): a rerun writes nothing and
        # leaves the group's version, and so every projection and view of it, as it was.
        graph_document_import(document=GraphDocument(nodes=(), edges=tuple(changed)), group=group)
    removed = _delete(group, before, sorted(set(before) - {record.id for record in records}))
    return SynonymReport(
        group=group,
        model=found.model,
        threshold=threshold,
        entities=len(found.ids),
        pairs=len(records),
        written=len(changed),
        removed=removed,
        seconds=time.perf_counter() - started,
    )
