"""Backing up one group (every node, relationship and property, vectors included, and its curation audit trail)
and restoring it into an empty group, all of it or nothing.

The graph document of memoria.interchange is for exchange: it carries what a person writes, not the vectors,
creation times and version stamps a store adds. A backup carries the stored properties as they are.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import neo4j
from django.db import transaction

from memoria.accounts.roles import check_group_name
from memoria.backup.archive import Archive, archive_read, archive_write, property_value
from memoria.curation.models import ACTIONS, AuditEntry, AuditItem
from memoria.errors import BackupInvalid, GroupNotEmpty, InvalidInput, WriteConflict
from memoria.graph import driver, kinds
from memoria.graph.dialect import graph_dialect
from memoria.graph.selectors import group_version_counted
from memoria.graph.versions import group_version_bump
from memoria.interchange.exporter import GROUP_NODES
from memoria.interchange.importer import batched

RELATIONSHIP_TYPES = (kinds.RELATES, kinds.MENTIONS, kinds.HAS_MEMBER)
BATCH_SIZE = 1000
CONSISTENT_READ_ATTEMPTS = 3  # a group written to during the read is read again, then the backup gives up
NODE_ID = re.compile(r"^[A-Za-z0-9._:/@#-]{1,200}$")

GROUP_RELATIONSHIPS = """
MATCH (a:Memory {group_id: $group})-[r]->(b:Memory {group_id: $group})
RETURN type(r) AS type, a.id AS source, b.id AS target, properties(r) AS props
"""
GROUP_SIZE = "MATCH (n:Memory {group_id: $group}) RETURN count(n) AS nodes"
DELETE_GROUP = "MATCH (n:Memory {group_id: $group}) DETACH DELETE n"
CREATE_NODES = "UNWIND $rows AS row CREATE (n:{labels}) SET n = row.props"
CREATE_RELATIONSHIPS = """
UNWIND $rows AS row
MATCH (a:Memory {{group_id: $group, id: row.source}})
MATCH (b:Memory {{group_id: $group, id: row.target}})
CREATE (a)-[r:{rel_type}]->(b)
SET r = row.props
"""


@dataclass(frozen=True)
class BackupReport:
    group: str
    path: str
    nodes: int
    edges: int
    audit_entries: int
    graph_version: int
    bytes: int
    sha256: str
    seconds: float


@dataclass(frozen=True)
class RestoreReport:
    group: str
    source_group: str
    nodes: int
    edges: int
    audit_entries: int
    replaced: bool
    seconds: float


# -- backup -----------------------------------------------------------------------


def _graph_records(group: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nodes = [
        {
            "record": "node",
            "id": row["id"],
            "labels": sorted(row["labels"]),
            "props": {key: property_value(value, f"node {row['id']}.{key}") for key, value in row["props"].items()},
        }
        for row in driver.read(GROUP_NODES, group=group)
    ]
    edges = []
    for row in driver.read(GROUP_RELATIONSHIPS, group=group):
        where = f"{row['type']} {row['source']}->{row['target']}"
        if row["type"] not in RELATIONSHIP_TYPES:
            raise InvalidInput(f"{where}: relationship type {row['type']!r} is not one Memoria knows; not backed up")
        props = {key: property_value(value, f"{where}.{key}") for key, value in row["props"].items()}
        edges.append(
            {"record": "edge", "type": row["type"], "source": row["source"], "target": row["target"], "props": props}
        )
    edges.sort(key=lambda edge: (edge["type"], edge["source"], edge["target"], str(edge["props"].get("id", ""))))
    return nodes, edges


def _audit_records(group: str) -> list[dict[str, Any]]:
    entries = AuditEntry.objects.filter(group=group).order_by("id").prefetch_related("items")
    return [
        {
            "record": "audit",
            "entry": {
                "id": entry.pk,
                "created_at": entry.created_at.isoformat(),
                "actor": entry.actor,
                "action": entry.action,
                "item_kind": entry.item_kind,
                "item_id": entry.item_id,
                "before": entry.before,
                "after": entry.after,
                "undoes": entry.undoes_id,
                "undone_by": entry.undone_by_id,
            },
            "items": sorted([item.kind, item.item_id] for item in entry.items.all()),
        }
        for entry in entries
    ]


def group_backup(*, group: str, out: Path) -> BackupReport:
    """Write the group to `out`. The group is read between two looks at its version: a write in between
    (any bumping writer) means the read may mix before and after, so it is read again."""
    check_group_name(group)
    started = time.perf_counter()
    for _ in range(CONSISTENT_READ_ATTEMPTS):
        version = group_version_counted(group=group)
        nodes, edges = _graph_records(group)
        audit = _audit_records(group)
        if group_version_counted(group=group) == version:
            break
    else:
        raise WriteConflict(f"group {group!r} kept changing while it was read; back it up when writes pause")
    header = {
        "group": group,
        "created_at": datetime.now().astimezone().isoformat(),
        "graph_version": version,
        "dialect": graph_dialect().name,
    }
    size, digest = archive_write(out, header, [*nodes, *edges, *audit])
    return BackupReport(
        group, str(out), len(nodes), len(edges), len(audit), version, size, digest, time.perf_counter() - started
    )


# -- restore: check everything, then write ------------------------------------------


def _allowed_labels() -> set[str]:
    return {kinds.MEMORY_LABEL, *kinds.NODE_KINDS, *kinds.entity_labels()}


def _check_graph(archive: Archive) -> list[str]:
    """Problems with the archive's nodes and edges, each naming the record; labels and types from the allow-lists."""
    problems: list[str] = []
    allowed = _allowed_labels()
    ids: set[str] = set()
    for number, node in enumerate(archive.nodes):
        where = f"node {number} ({node.get('id')!r})"
        labels, props = node.get("labels"), node.get("props")
        if not isinstance(node.get("id"), str) or not NODE_ID.match(node["id"]) or node["id"] in ids:
            problems.append(f"{where}: id must be a unique node id")
        elif not isinstance(labels, list) or not set(labels) <= allowed or kinds.MEMORY_LABEL not in labels:
            problems.append(f"{where}: labels {labels!r} must be Memory plus labels from the allow-list")
        elif len(set(labels) & set(kinds.NODE_KINDS)) != 1:
            problems.append(f"{where}: labels {labels!r} must hold exactly one of {', '.join(kinds.NODE_KINDS)}")
        elif not isinstance(props, dict) or props.get("id") != node["id"] or props.get("group_id") != archive.group:
            problems.append(f"{where}: props must hold its id and the backup's group")
        else:
            problems += _props_problems(props, where)
        ids.add(node.get("id"))
    for number, edge in enumerate(archive.edges):
        where = f"edge {number}"
        if edge.get("type") not in RELATIONSHIP_TYPES:
            problems.append(f"{where}: type {edge.get('type')!r} is not one of {', '.join(RELATIONSHIP_TYPES)}")
        elif edge.get("source") not in ids or edge.get("target") not in ids:
            problems.append(f"{where}: source and target must be nodes of the backup")
        elif not isinstance(edge.get("props"), dict):
            problems.append(f"{where}: props must be an object")
        else:
            problems += _props_problems(edge["props"], where)
    return problems


def _props_problems(props: dict[str, Any], where: str) -> list[str]:
    """Values a graph property can hold (scalars, lists of them): caught here rather than by the graph server
    halfway through the write."""
    problems = []
    for key, value in props.items():
        try:
            property_value(value, f"{where}.{key}")
        except InvalidInput as error:
            problems.append(str(error))
    return problems


def _check_audit(archive: Archive) -> list[str]:
    """Problems with the audit records: what the audit tables would refuse, found before anything is written."""
    problems: list[str] = []
    limits = {"actor": 150, "item_kind": 16, "item_id": 200}
    for number, record in enumerate(archive.audit):
        where = f"audit entry {number}"
        entry, items = record.get("entry"), record.get("items")
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), int):
            problems.append(f"{where}: an entry with an integer id is required")
            continue
        if entry.get("action") not in ACTIONS:
            problems.append(f"{where}: action {entry.get('action')!r} is not one of {', '.join(ACTIONS)}")
        for key, limit in limits.items():
            if not isinstance(entry.get(key), str) or not 0 < len(entry[key]) <= limit:
                problems.append(f"{where}: {key} must be 1–{limit} characters")
        try:
            datetime.fromisoformat(entry.get("created_at"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            problems.append(f"{where}: created_at must be an ISO 8601 date-time")
        if any(not isinstance(entry.get(key), int | None) for key in ("undoes", "undone_by")):
            problems.append(f"{where}: undoes and undone_by must be entry ids or null")
        if not isinstance(items, list) or any(
            not (isinstance(item, list) and len(item) == 2 and all(isinstance(part, str) for part in item))
            for item in items
        ):
            problems.append(f"{where}: items must be [kind, item_id] pairs")
        elif len({tuple(item) for item in items}) != len(items):
            problems.append(f"{where}: an item is listed twice")
    return problems


def _renamed(value: Any, old: str, new: str) -> Any:
    """Audit states hold stored properties: a `group_id` of the old group becomes the new one."""
    if isinstance(value, dict):
        return {
            key: new if key == "group_id" and item == old else _renamed(item, old, new) for key, item in value.items()
        }
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    return value


def _check_target(archive: Archive, group: str, *, replace: bool) -> None:
    stored = driver.read(GROUP_SIZE, group=group)[0]["nodes"]
    entries = AuditEntry.objects.filter(group=group).count()
    if (stored or entries) and not replace:
        raise GroupNotEmpty(
            f"group {group!r} holds {stored} nodes and {entries} audit entries; restore into an empty group, "
            f"or pass --replace to delete them first"
        )


def _graph_statements(archive: Archive, group: str) -> Iterator[tuple[str, dict[str, Any]]]:
    by_labels: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for node in archive.nodes:
        labels = (kinds.MEMORY_LABEL, *sorted(set(node["labels"]) - {kinds.MEMORY_LABEL}))
        by_labels[labels].append({"props": {**node["props"], "group_id": group}})
    for labels, rows in by_labels.items():
        for batch in batched(rows, BATCH_SIZE):
            yield CREATE_NODES.format(labels=":".join(labels)), {"rows": batch}
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for edge in archive.edges:
        props = edge["props"]
        if "group_id" in props:
            props = {**props, "group_id": group}
        by_type[edge["type"]].append({"source": edge["source"], "target": edge["target"], "props": props})
    for rel_type, rows in by_type.items():
        for batch in batched(rows, BATCH_SIZE):
            yield CREATE_RELATIONSHIPS.format(rel_type=rel_type), {"rows": batch}


def _audit_restore(archive: Archive, group: str) -> None:
    created: dict[int, AuditEntry] = {}
    records = sorted(archive.audit, key=lambda record: record["entry"]["id"])  # ids keep their order: newest last
    for record in records:
        entry = record["entry"]
        created[entry["id"]] = AuditEntry.objects.create(
            group=group,
            created_at=datetime.fromisoformat(entry["created_at"]),
            actor=entry["actor"],
            action=entry["action"],
            item_kind=entry["item_kind"],
            item_id=entry["item_id"],
            before=_renamed(entry["before"], archive.group, group),
            after=_renamed(entry["after"], archive.group, group),
        )
    for record in records:
        entry = record["entry"]
        restored = created[entry["id"]]
        restored.undoes = created.get(entry["undoes"]) if entry["undoes"] is not None else None
        restored.undone_by = created.get(entry["undone_by"]) if entry["undone_by"] is not None else None
        if restored.undoes or restored.undone_by:
            restored.save(update_fields=["undoes", "undone_by"])
    AuditItem.objects.bulk_create(
        AuditItem(entry=created[record["entry"]["id"]], group=group, kind=kind, item_id=item_id)
        for record in records
        for kind, item_id in record["items"]
    )


def group_restore(*, group: str, source: Path, replace: bool = False) -> RestoreReport:
    """Restore a backup into `group` (its own name or another). The file is checked whole first; the audit
    rows and the graph are then written in one SQL transaction around one graph transaction, so a failure
    in either leaves both as they were."""
    check_group_name(group)
    started = time.perf_counter()
    archive = archive_read(source)
    problems = _check_graph(archive) + _check_audit(archive)
    if problems:
        raise BackupInvalid([f"{source}: {problem}" for problem in problems])
    _check_target(archive, group, replace=replace)
    statements = list(_graph_statements(archive, group))

    def write(tx: neo4j.ManagedTransaction) -> None:
        if replace:
            tx.run(DELETE_GROUP, group=group).consume()
        for query, parameters in statements:
            tx.run(query, {**parameters, "group": group}).consume()
        group_version_bump(tx, group)  # restored data is new to every cache, whatever version it had

    with transaction.atomic():
        if replace:
            AuditEntry.objects.filter(group=group).delete()
        _audit_restore(archive, group)
        driver.write_transaction(write)  # last: if it fails, the audit rows roll back with the SQL transaction
    return RestoreReport(
        group,
        archive.group,
        len(archive.nodes),
        len(archive.edges),
        len(archive.audit),
        replace,
        time.perf_counter() - started,
    )
