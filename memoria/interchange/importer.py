"""Writing a validated graph document into one group: checked against what is stored, then written atomically.

Nodes and edges are upserted by id in UNWIND batches inside one transaction,
so an import either lands whole or not at all. It keeps the reindex contract
(memoria/reindex.py): a stored item whose embedded text the import
changes loses its vector in that transaction, one whose text stays keeps it;
with `embed=True` the written items lacking a vector are embedded after the commit.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

import neo4j

from memoria.accounts.roles import check_group_name
from memoria.embeddings import TextEmbedder
from memoria.errors import InvalidGraphDocument
from memoria.graph import driver, kinds
from memoria.graph.dialect import graph_dialect
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.graph.versions import group_version_bump
from memoria.interchange.document import EdgeRecord, GraphDocument, NodeRecord
from memoria.reindex import (
    CLEAR_FACT_VECTOR,
    CLEAR_NODE_VECTOR,
    FACT_TEXT,
    NODE_TEXT,
    ReindexOutcome,
    reindex_after_write,
)

DEFAULT_BATCH_SIZE = 2000
T = TypeVar("T")

STORED_NODES = """
UNWIND $ids AS id
MATCH (n:Memory {group_id: $group, id: id})
RETURN n.id AS id, labels(n) AS labels
"""
STORED_EDGES = """
UNWIND $sources AS source
MATCH (a:Memory {group_id: $group, id: source})-[r:RELATES]->(b:Memory)
WHERE r.id IN $ids
RETURN r.id AS id, a.id AS source, b.id AS target
"""
# Texts are compared before and after in the writing transaction itself, so no concurrent write slips between.
UPDATE_NODES = f"""
UNWIND $rows AS row
MATCH (n:Memory {{group_id: $group, id: row.id}})
WITH n, row, {NODE_TEXT} AS text_before, n.name AS name_before
SET n += row.props
WITH n, name_before, {NODE_TEXT} <> text_before AS text_changed
FOREACH (changed IN CASE WHEN text_changed THEN [1] ELSE [] END | {CLEAR_NODE_VECTOR})
RETURN n.id AS id, text_changed, n.name <> name_before AS renamed
"""
# A fact's text names its ends (memoria.graph.searchable): renaming an end changes it.
CLEAR_RENAMED_ENDS_FACTS = f"""
UNWIND $ids AS id
MATCH (:Memory {{group_id: $group, id: id}})-[r:RELATES]-()
{CLEAR_FACT_VECTOR}
RETURN DISTINCT r.id AS id
"""
CREATE_EDGES = """
UNWIND $rows AS row
MATCH (a:Memory {group_id: $group, id: row.source})
MATCH (b:Memory {group_id: $group, id: row.target})
CREATE (a)-[r:RELATES]->(b)
SET r = row.props, r.created_at = $now
"""
UPDATE_EDGES = f"""
UNWIND $rows AS row
MATCH (a:Memory {{group_id: $group, id: row.source}})-[r:RELATES]->(b:Memory {{group_id: $group, id: row.target}})
WHERE r.id = row.id
WITH a, r, b, row, {FACT_TEXT} AS text_before
SET r += row.props
WITH a, r, b, {FACT_TEXT} <> text_before AS text_changed
FOREACH (changed IN CASE WHEN text_changed THEN [1] ELSE [] END | {CLEAR_FACT_VECTOR})
RETURN r.id AS id, text_changed
"""
DELETE_MOVED_EDGES = """
UNWIND $rows AS row
MATCH (a:Memory {group_id: $group, id: row.source})-[r:RELATES]->(:Memory {group_id: $group, id: row.target})
WHERE r.id = row.id
DELETE r
"""
MERGE_LINKS = """
UNWIND $rows AS row
MATCH (a:Memory {{group_id: $group, id: row.source}})
MATCH (b:Memory {{group_id: $group, id: row.target}})
MERGE (a)-[:{rel_type}]->(b)
"""


@dataclass(frozen=True)
class ImportReport:
    group: str
    nodes_created: int
    nodes_updated: int
    edges_created: int
    edges_updated: int
    mentions: int
    memberships: int
    round_trips: int
    seconds: float
    texts_changed: int = 0  # stored nodes and facts whose embedded text changed: their vectors were removed
    # Every node and fact the import wrote or whose text it changed: what `embed` looks at (too long to show).
    touched_ids: tuple[str, ...] = field(default=(), repr=False)
    embedding: ReindexOutcome | None = None  # with embed=True


def batched(items: list[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _now() -> str:
    return datetime.now(UTC).strftime(TIMESTAMP_FORMAT)


def _node_props(node: NodeRecord, group: str) -> dict[str, Any]:
    props: dict[str, Any] = {"group_id": group, "name": node.name}
    if node.kind in (kinds.ENTITY, kinds.COMMUNITY):
        props["summary"] = node.summary
    if node.kind == kinds.ENTITY:
        props["attributes"] = json.dumps(node.attributes, sort_keys=True)
    if node.kind == kinds.EPISODE:
        props.update(
            content=node.content or "",
            source=node.source,
            source_description=node.source_description or "",
            valid_at=node.valid_at,
        )
        if node.attributes:
            props["attributes"] = json.dumps(node.attributes, sort_keys=True)
    return props


def _edge_props(edge: EdgeRecord, group: str) -> dict[str, Any]:
    return {
        "id": edge.id,
        "group_id": group,
        "relation": edge.relation,
        "relation_category": edge.category,
        "fact": edge.fact,
        "weight": edge.weight,
        "tags": list(edge.tags),
        "episodes": list(edge.episodes),
        "valid_at": edge.valid_at,
        "invalid_at": edge.invalid_at,
    }


def _labels_of(stored: dict[str, Any]) -> tuple[str, set[str]]:
    labels = set(stored["labels"])
    kind = next((k for k in kinds.NODE_KINDS if k in labels), kinds.ENTITY)
    return kind, labels - {kinds.MEMORY_LABEL, kind}


def _check_against_store(
    document: GraphDocument, group: str
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Find every conflict with stored data before writing: kind changes and unknown references. Ids are keyed by
    group, so another group's nodes and facts of the same ids are never read, changed or named."""
    problems: list[str] = []
    wanted = document.node_ids() | document.referenced_ids()
    stored = {row["id"]: row for row in driver.read(STORED_NODES, ids=sorted(wanted), group=group)}
    for index, node in enumerate(document.nodes):
        row = stored.get(node.id)
        if row is None:
            continue
        kind, _ = _labels_of(row)
        if kind != node.kind:
            problems.append(f"nodes[{index}]: {node.id!r} is stored as {kind}, not {node.kind}")
    kind_of = {node.id: node.kind for node in document.nodes}
    for row_id, row in stored.items():
        if row_id not in kind_of:
            kind_of[row_id] = _labels_of(row)[0]

    def need(where: str, node_id: str, expected: str | None) -> None:
        if node_id not in kind_of:
            problems.append(f"{where}: node {node_id!r} is neither in the document nor stored in this group")
        elif expected and kind_of[node_id] != expected:
            problems.append(f"{where}: {node_id!r} is a {kind_of[node_id]}, expected {expected}")

    for index, edge in enumerate(document.edges):
        need(f"edges[{index}].source", edge.source, None)
        need(f"edges[{index}].target", edge.target, None)
        for episode in edge.episodes:
            need(f"edges[{index}].episodes", episode, kinds.EPISODE)
    for name, links, ends in (
        ("mentions", document.mentions, (kinds.EPISODE, kinds.ENTITY)),
        ("memberships", document.memberships, (kinds.COMMUNITY, kinds.ENTITY)),
    ):
        for index, link in enumerate(links):
            need(f"{name}[{index}]", link.source, ends[0])
            need(f"{name}[{index}]", link.target, ends[1])

    edge_ids = [edge.id for edge in document.edges]
    stored_edges: dict[str, dict[str, Any]] = {}
    if edge_ids:
        sources = sorted({edge.source for edge in document.edges if edge.source in stored})
        for batch in batched(sources, DEFAULT_BATCH_SIZE):
            for row in driver.read(STORED_EDGES, sources=batch, ids=edge_ids, group=group):
                stored_edges[row["id"]] = row
    if problems:
        raise InvalidGraphDocument(problems)
    return stored, stored_edges


def graph_document_check(*, document: GraphDocument, group: str) -> None:
    """The import's checks against the stored group (kinds that would change, references to nodes neither in the
    document nor stored in the group), raised as the import raises them: an import job's body is held to them
    before it is queued, so a body the synchronous import refuses with 400 is refused the same way, not queued."""
    check_group_name(group)
    _check_against_store(document, group)


def graph_document_import(
    *,
    document: GraphDocument,
    group: str,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Callable[[int], None] | None = None,
    embed: bool = False,
    embed_progress: Callable[[int], None] | None = None,
    checkpoint: Callable[[], None] | None = None,
    model: TextEmbedder | None = None,
) -> ImportReport:
    """Upsert the document into `group`; raises InvalidGraphDocument (nothing written) on any conflict.

    `checkpoint()` is called inside the (first) writing transaction before each statement: an exception it raises
    (a cancelled job) rolls the whole import back, so nothing of it is stored.

    With `embed`, the written items that lack a vector are embedded once the import has committed; a failure there
    undoes nothing and is reported in `embedding` (the rest is left for `manage.py reindex`). `model` replaces the
    process's embedder (a benchmark's timed wrapper).
    """
    check_group_name(group)
    started = time.perf_counter()
    stored_nodes, stored_edges = _check_against_store(document, group)
    now = _now()

    new_by_labels: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    updates: list[dict[str, Any]] = []
    relabels: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = defaultdict(list)
    for node in document.nodes:
        props = _node_props(node, group)
        if node.id in stored_nodes:
            updates.append({"id": node.id, "props": props})
            _, old_extra = _labels_of(stored_nodes[node.id])
            add, remove = set(node.extra_labels) - old_extra, old_extra - set(node.extra_labels)
            if add or remove:
                relabels[(tuple(sorted(add)), tuple(sorted(remove & set(kinds.entity_labels()))))].append(node.id)
        else:
            labels = (kinds.MEMORY_LABEL, node.kind, *sorted(node.extra_labels))
            new_by_labels[labels].append({"id": node.id, "props": {"id": node.id, "created_at": now, **props}})

    new_edges, changed_edges, moved_edges = [], [], []
    for edge in document.edges:
        row = {"id": edge.id, "source": edge.source, "target": edge.target, "props": _edge_props(edge, group)}
        old = stored_edges.get(edge.id)
        if old is None:
            new_edges.append(row)
        elif (old["source"], old["target"]) == (edge.source, edge.target):
            changed_edges.append(row)
        else:
            moved_edges.append({"id": edge.id, "source": old["source"], "target": old["target"]})
            new_edges.append(row)

    statements: list[tuple[str, dict[str, Any], int]] = []

    def add(query: str, rows: list[dict[str, Any]], **extra: Any) -> None:
        for batch in batched(rows, batch_size):
            statements.append((query, {"rows": batch, **extra}, len(batch)))

    for labels, rows in new_by_labels.items():
        # Labels come from kinds' allow-list (validated in the document), never from raw input.
        label_text = ":".join(labels)
        add(f"UNWIND $rows AS row CREATE (n:{label_text}) SET n = row.props", rows)
    add(UPDATE_NODES, updates)
    # A label change moves the node's record on ArcadeDB, which allows one move per node per transaction:
    # there, removals for nodes that also gain labels wait for a follow-up transaction.
    single_move = graph_dialect().one_label_change_per_transaction
    deferred: list[tuple[str, dict[str, Any], int]] = []
    for (added, removed), ids in relabels.items():
        rows = [{"id": node_id} for node_id in ids]
        match = "UNWIND $rows AS row MATCH (n:Memory {group_id: $group, id: row.id}) "
        if added:
            add(match + "SET n:" + ":".join(added), rows)
        if removed:
            removal = match + "REMOVE n:" + ":".join(removed)
            if added and single_move:
                deferred.extend((removal, {"rows": batch}, 0) for batch in batched(rows, batch_size))
            else:
                add(removal, rows)
    add(DELETE_MOVED_EDGES, moved_edges)
    add(CREATE_EDGES, new_edges, now=now)
    add(UPDATE_EDGES, changed_edges)
    add(
        MERGE_LINKS.format(rel_type=kinds.MENTIONS),
        [{"source": m.source, "target": m.target} for m in document.mentions],
    )
    add(
        MERGE_LINKS.format(rel_type=kinds.HAS_MEMBER),
        [{"source": m.source, "target": m.target} for m in document.memberships],
    )

    round_trips = len(statements) + len(deferred)

    def transaction(
        todo: list[tuple[str, dict[str, Any], int]], check: Callable[[], None] | None = None
    ) -> Callable[[neo4j.ManagedTransaction], set[str]]:
        """The statements as one unit of work, answering the ids whose embedded text changed."""

        def work(tx: neo4j.ManagedTransaction) -> set[str]:
            group_version_bump(tx, group, touched=document.node_ids() | document.referenced_ids())
            changed: set[str] = set()
            renamed: list[str] = []
            for query, parameters, size in todo:
                if check:
                    check()
                for record in tx.run(query, {**parameters, "group": group}):
                    if record.get("text_changed"):
                        changed.add(record["id"])
                    if record.get("renamed"):
                        renamed.append(record["id"])
                if progress:
                    progress(size)
            # Last, so the facts' final texts decide which are fact-less.
            for batch in batched(renamed, batch_size):
                changed.update(
                    record["id"] for record in tx.run(CLEAR_RENAMED_ENDS_FACTS, {"ids": batch, "group": group})
                )
            return changed

        return work

    changed = driver.write_transaction(transaction(statements, checkpoint)) if statements else set()
    if deferred:
        driver.write_transaction(transaction(deferred))
    created = {row["id"] for rows in new_by_labels.values() for row in rows} | {row["id"] for row in new_edges}
    touched = [node.id for node in document.nodes] + [edge.id for edge in document.edges]
    touched += sorted(changed.difference(touched))
    report = ImportReport(
        group=group,
        nodes_created=sum(len(rows) for rows in new_by_labels.values()),
        nodes_updated=len(updates),
        edges_created=len(new_edges) - len(moved_edges),
        edges_updated=len(changed_edges) + len(moved_edges),
        mentions=len(document.mentions),
        memberships=len(document.memberships),
        round_trips=round_trips,
        seconds=time.perf_counter() - started,
        texts_changed=len(changed - created),
        touched_ids=tuple(touched),
    )
    if embed:
        outcome = reindex_after_write(group=group, ids=touched, progress=embed_progress, model=model)
        report = replace(report, embedding=outcome)
    return report


def import_size(document: GraphDocument) -> int:
    """How many rows an import writes, for progress bars."""
    return len(document.nodes) + len(document.edges) + len(document.mentions) + len(document.memberships)
