"""Reading one group back out as a graph document (docs/import-format.md) that import_graph accepts unchanged."""

from __future__ import annotations

import json
from typing import Any

from memoria.accounts.roles import check_group_name
from memoria.graph import driver, kinds

GROUP_NODES = """
MATCH (n:Memory {group_id: $group})
RETURN n.id AS id, labels(n) AS labels, properties(n) AS props
ORDER BY id
"""
GROUP_EDGES = """
MATCH (a:Memory {group_id: $group})-[r:RELATES]->(b:Memory)
WHERE r.group_id = $group
RETURN a.id AS source, b.id AS target, properties(r) AS props
ORDER BY props.id
"""
GROUP_LINKS = """
MATCH (a:Memory {{group_id: $group}})-[:{rel_type}]->(b:Memory)
RETURN a.id AS source, b.id AS target
ORDER BY source, target
"""


def _node(row: dict[str, Any]) -> dict[str, Any]:
    props = row["props"]
    labels = set(row["labels"]) - {kinds.MEMORY_LABEL}
    kind = next((k for k in kinds.NODE_KINDS if k in labels), kinds.ENTITY)
    node: dict[str, Any] = {"id": row["id"], "name": props.get("name", ""), "labels": [kind, *sorted(labels - {kind})]}
    if kind in (kinds.ENTITY, kinds.COMMUNITY) and props.get("summary"):
        node["summary"] = props["summary"]
    attributes = json.loads(props["attributes"]) if props.get("attributes") else {}
    if attributes:
        node["properties"] = attributes
    if kind == kinds.EPISODE:
        for key in ("content", "source", "source_description", "valid_at"):
            if props.get(key) is not None:
                node[key] = props[key]
    return node


def _edge(row: dict[str, Any]) -> dict[str, Any]:
    props = row["props"]
    edge: dict[str, Any] = {
        "id": props["id"],
        "source": row["source"],
        "target": row["target"],
        "relation": props["relation"],
        "weight": props["weight"],
        "tags": list(props.get("tags") or []),
    }
    optional = {
        "fact": props.get("fact") or None,
        "category": props.get("relation_category"),
        "valid_at": props.get("valid_at"),
        "invalid_at": props.get("invalid_at"),
        "episodes": list(props.get("episodes") or []) or None,
    }
    edge.update({key: value for key, value in optional.items() if value is not None})
    return edge


def graph_document_export(*, group: str) -> dict[str, Any]:
    """The whole group as a document; node and edge order is stable (by id) so exports diff cleanly."""
    check_group_name(group)
    return {
        "nodes": [_node(row) for row in driver.read(GROUP_NODES, group=group)],
        "edges": [_edge(row) for row in driver.read(GROUP_EDGES, group=group)],
        "mentions": [
            {"episode": row["source"], "entity": row["target"]}
            for row in driver.read(GROUP_LINKS.format(rel_type=kinds.MENTIONS), group=group)
        ],
        "memberships": [
            {"community": row["source"], "entity": row["target"]}
            for row in driver.read(GROUP_LINKS.format(rel_type=kinds.HAS_MEMBER), group=group)
        ],
    }
