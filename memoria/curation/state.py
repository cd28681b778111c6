"""The state of the part of the graph a change touches: what an audit entry stores as `before` and `after`.

A change is a pair of states over one scope (some nodes, some edges, some links): the writer checks
the graph still holds `before` and makes it hold `after`; undo swaps the two. Vectors are left out:
they are derived from texts, so they are re-embedded rather than audited, and reindexing never
makes an item look changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memoria.graph import kinds
from memoria.graph.claims import REVISION
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.graph.schema import VECTOR_PROPERTIES

# Links a change may move: (type, source kind, target kind).
LINK_TYPES: tuple[str, ...] = (kinds.MENTIONS, kinds.HAS_MEMBER)
# VECTOR_PROPERTIES hold embeddings, their model and their text version, and REVISION a writer's claim
# (memoria.graph.claims): never audited, never compared.
UNAUDITED = VECTOR_PROPERTIES | {REVISION}


def timestamp_now() -> str:
    """Now, in the stored timestamp form (fixed-width UTC, so Cypher compares it in time order)."""
    return datetime.now(UTC).strftime(TIMESTAMP_FORMAT)


def _plain(props: Mapping[str, Any]) -> dict[str, Any]:
    """Stored properties as compared and audited: no vectors, and no nulls (Cypher stores a null as absence)."""
    return {key: value for key, value in props.items() if key not in UNAUDITED and value is not None}


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class NodeState:
    labels: tuple[str, ...]
    props: Mapping[str, Any]

    @classmethod
    def of(cls, labels: list[str] | tuple[str, ...], props: Mapping[str, Any]) -> NodeState:
        return cls(tuple(sorted(labels)), _plain(props))

    @property
    def name(self) -> str:
        return self.props.get("name") or ""

    @property
    def kind(self) -> str | None:
        return next((kind for kind in kinds.NODE_KINDS if kind in self.labels), None)

    def as_json(self) -> dict[str, Any]:
        return {"labels": list(self.labels), "props": dict(self.props)}

    def version(self) -> str:
        return _digest(self.as_json())


@dataclass(frozen=True)
class EdgeState:
    source: str
    target: str
    props: Mapping[str, Any]

    @classmethod
    def of(cls, source: str, target: str, props: Mapping[str, Any]) -> EdgeState:
        return cls(source, target, _plain(props))

    def with_props(self, **changes: Any) -> EdgeState:
        return EdgeState.of(self.source, self.target, {**self.props, **changes})

    def as_json(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "props": dict(self.props)}

    def version(self) -> str:
        return _digest(self.as_json())


@dataclass(frozen=True)
class Link:
    """A MENTIONS (episode → entity) or HAS_MEMBER (community → entity) relationship."""

    type: str
    source: str
    target: str

    def __post_init__(self) -> None:
        if self.type not in LINK_TYPES:  # spliced into Cypher: only the allow-list passes
            raise ValueError(f"link type {self.type!r} is not one of {LINK_TYPES}")


@dataclass(frozen=True)
class GraphState:
    """Nodes and edges by id (None: absent) and links (False: absent), over one scope."""

    nodes: Mapping[str, NodeState | None] = field(default_factory=dict)
    edges: Mapping[str, EdgeState | None] = field(default_factory=dict)
    links: Mapping[Link, bool] = field(default_factory=dict)

    def same_scope(self, other: GraphState) -> bool:
        return (
            set(self.nodes) == set(other.nodes)
            and set(self.edges) == set(other.edges)
            and set(self.links) == set(other.links)
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "nodes": {key: (node.as_json() if node else None) for key, node in sorted(self.nodes.items())},
            "edges": {key: (edge.as_json() if edge else None) for key, edge in sorted(self.edges.items())},
            "links": [
                {"type": link.type, "source": link.source, "target": link.target, "present": present}
                for link, present in sorted(
                    self.links.items(), key=lambda item: (item[0].type, item[0].source, item[0].target)
                )
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GraphState:
        return cls(
            nodes={
                key: (NodeState.of(node["labels"], node["props"]) if node else None)
                for key, node in data.get("nodes", {}).items()
            },
            edges={
                key: (EdgeState.of(edge["source"], edge["target"], edge["props"]) if edge else None)
                for key, edge in data.get("edges", {}).items()
            },
            links={
                Link(item["type"], item["source"], item["target"]): bool(item["present"])
                for item in data.get("links", [])
            },
        )


def state_changes(before: GraphState, after: GraphState) -> list[dict[str, Any]]:
    """What differs between two states of one scope, item by item and field by field (for people reading the audit)."""
    changes: list[dict[str, Any]] = []
    for kind, old_items, new_items in (("node", before.nodes, after.nodes), ("edge", before.edges, after.edges)):
        for key in sorted(set(old_items) | set(new_items)):
            old, new = old_items.get(key), new_items.get(key)
            if old == new:
                continue
            if old is None or new is None:
                changes.append({"kind": kind, "id": key, "change": "created" if old is None else "deleted"})
                continue
            old_json, new_json = old.as_json(), new.as_json()
            fields = {**old_json.pop("props"), **{k: v for k, v in old_json.items() if k != "labels"}}
            new_fields = {**new_json.pop("props"), **{k: v for k, v in new_json.items() if k != "labels"}}
            for name in sorted(set(fields) | set(new_fields)):
                if fields.get(name) != new_fields.get(name):
                    changes.append(
                        {
                            "kind": kind,
                            "id": key,
                            "change": "updated",
                            "field": name,
                            "before": fields.get(name),
                            "after": new_fields.get(name),
                        }
                    )
    for link in sorted(set(before.links) | set(after.links), key=lambda item: (item.type, item.source, item.target)):
        was, now = before.links.get(link, False), after.links.get(link, False)
        if was != now:
            changes.append(
                {
                    "kind": link.type.lower(),
                    "id": f"{link.source}->{link.target}",
                    "change": "created" if now else "deleted",
                }
            )
    return changes
