"""Reads that curation needs: an edge as the inspector shows it, and an item's current state and version."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from memoria.curation.errors import ItemNotFound
from memoria.curation.state import EdgeState, NodeState
from memoria.curation.store import Scope, state_read
from memoria.graph import driver, kinds
from memoria.graph.models import Episode

EDGE_DETAIL = f"""
MATCH (a)-[r:{kinds.RELATES}]->(b)
WHERE r.id = $id
WITH a, r, b WHERE r.group_id = $group
RETURN properties(r) AS props, r.fact_embedding IS NOT NULL AS embedded,
       a.id AS source_id, a.name AS source_name, labels(a) AS source_labels,
       b.id AS target_id, b.name AS target_name, labels(b) AS target_labels
"""


def edge_state_get(*, group: str, edge_id: str) -> EdgeState:
    edge = state_read(group=group, scope=Scope(edges=frozenset({edge_id}))).edges[edge_id]
    if edge is None:
        raise ItemNotFound(f"no fact {edge_id!r} in group {group!r}")
    return edge


def edge_versions(*, group: str, edge_ids: Collection[str]) -> dict[str, str]:
    """The current version of each of these edges still in the group (by id), in one read: what a list of facts
    carries so that an edit made from it can name the version it saw."""
    if not edge_ids:
        return {}
    edges = state_read(group=group, scope=Scope(edges=frozenset(edge_ids))).edges
    return {key: edge.version() for key, edge in edges.items() if edge is not None}


def entity_state_get(*, group: str, entity_id: str) -> NodeState | None:
    """The entity's state, or None when there is no entity of that id in the group."""
    node = state_read(group=group, scope=Scope(nodes=frozenset({entity_id}))).nodes[entity_id]
    if node is None or node.props.get("group_id") != group or node.kind != kinds.ENTITY:
        return None
    return node


def _episodes(*, group: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The provenance episodes still in the group, through the Episode model: an admin read, not a hot path.

    The group filter is part of the query, so an id from another group is simply not found."""
    if not ids:
        return {}
    valid_at = Episode.defined_properties(aliases=False, rels=False)["valid_at"]

    def episodes() -> list[Episode]:
        return list(Episode.nodes.filter(group_id=group, uid__in=ids))

    return {
        episode.uid: {
            "id": episode.uid,
            "name": episode.name,
            "valid_at": valid_at.deflate(episode.valid_at) if episode.valid_at is not None else None,
            "source": episode.source,
        }
        for episode in driver.model_read(episodes)
    }


def _end(node_id: str, name: str | None, labels: list[str]) -> dict[str, Any]:
    return {"id": node_id, "name": name or "", "labels": sorted(set(labels) - {kinds.MEMORY_LABEL})}


def edge_detail(*, group: str, edge_id: str) -> dict[str, Any]:
    """Everything the edge inspector shows: the fact, its weight, tags and validity, its ends and the episodes
    it came from (by name), and the version to send back with an edit."""
    rows = driver.read(EDGE_DETAIL, id=edge_id, group=group)
    if not rows:
        raise ItemNotFound(f"no fact {edge_id!r} in group {group!r}")
    row = rows[0]
    state = EdgeState.of(row["source_id"], row["target_id"], row["props"])
    props = state.props
    episode_ids = list(props.get("episodes") or [])
    found = _episodes(group=group, ids=episode_ids)
    return {
        "id": edge_id,
        "group": group,
        "source": _end(row["source_id"], row["source_name"], row["source_labels"]),
        "target": _end(row["target_id"], row["target_name"], row["target_labels"]),
        "relation": props.get("relation"),
        "category": props.get("relation_category"),
        "fact": props.get("fact") or "",
        "weight": props.get("weight"),
        "tags": list(props.get("tags") or []),
        "valid_at": props.get("valid_at"),
        "invalid_at": props.get("invalid_at"),
        "expired_at": props.get("expired_at"),
        "created_at": props.get("created_at"),
        # An episode deleted since is still listed, with found: false, so the provenance is never silently shortened.
        "episodes": [
            {
                "id": episode_id,
                "found": episode_id in found,
                "name": found.get(episode_id, {}).get("name"),
                "valid_at": found.get(episode_id, {}).get("valid_at"),
                "source": found.get(episode_id, {}).get("source"),
            }
            for episode_id in episode_ids
        ],
        "embedded": row["embedded"],
        "version": state.version(),
    }
