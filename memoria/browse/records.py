"""The shapes the explorer reads: a node card and an edge card, with the Cypher columns that fill them.

Every read of this package returns these, so pages, the JSON API and the graph view agree on one vocabulary.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from memoria.graph import kinds

# Columns of a node card for a node bound to `n`; the community is the first one found (an entity has at most one).
NODE_CARD_COLUMNS = """n.id AS id, n.name AS name, labels(n) AS labels,
COUNT { (n)-[:RELATES]-() } AS degree,
COLLECT { MATCH (c:Community)-[:HAS_MEMBER]->(n) RETURN [c.id, c.name] LIMIT 1 } AS community"""
# Columns of an edge card for a RELATES relationship bound to `r`.
FACT_COLUMNS = """r.id AS id, startNode(r).id AS source, endNode(r).id AS target,
startNode(r).name AS source_name, endNode(r).name AS target_name,
r.relation AS relation, r.relation_category AS category, r.fact AS fact, r.weight AS weight, r.tags AS tags,
r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.expired_at AS expired_at, r.created_at AS created_at,
r.episodes AS episodes"""


def node_kind(labels: list[str]) -> tuple[str, tuple[str, ...]]:
    """A node's kind label and its extra labels (an entity's UserRequest, Event, ...)."""
    kind = next((label for label in kinds.NODE_KINDS if label in labels), kinds.ENTITY)
    extra = tuple(sorted(label for label in labels if label not in (kinds.MEMORY_LABEL, kind)))
    return kind, extra


@dataclass(frozen=True)
class NodeCard:
    """What a list row or a graph node shows of a memory."""

    id: str
    name: str
    kind: str
    labels: tuple[str, ...] = ()
    degree: int = 0
    community: str | None = None
    community_name: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> NodeCard:
        kind, extra = node_kind(row["labels"])
        community = row.get("community") or []
        first = community[0] if community else [None, None]
        return cls(
            id=row["id"],
            name=row["name"] or row["id"],
            kind=kind,
            labels=extra,
            degree=row.get("degree") or 0,
            community=first[0],
            community_name=first[1],
        )

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["labels"] = list(self.labels)
        return data


@dataclass(frozen=True)
class EdgeCard:
    """A fact (kind RELATES, with every field) or a MENTIONS / HAS_MEMBER link (kind, ends and names only)."""

    id: str
    kind: str
    source: str
    target: str
    source_name: str = ""
    target_name: str = ""
    relation: str = ""
    category: str | None = None
    fact: str = ""
    weight: float | None = None
    tags: tuple[str, ...] = ()
    valid_at: str | None = None
    invalid_at: str | None = None
    expired_at: str | None = None
    created_at: str | None = None
    episodes: tuple[str, ...] = field(default=())

    @property
    def invalidated(self) -> bool:
        """No longer holds (invalid_at) or was superseded (expired_at): shown struck through, never hidden."""
        return self.invalid_at is not None or self.expired_at is not None

    @classmethod
    def from_fact_row(cls, row: dict[str, Any]) -> EdgeCard:
        return cls(
            id=row["id"],
            kind=kinds.RELATES,
            source=row["source"],
            target=row["target"],
            source_name=row.get("source_name") or row["source"],
            target_name=row.get("target_name") or row["target"],
            relation=row.get("relation") or "",
            category=row.get("category"),
            fact=row.get("fact") or "",
            weight=row.get("weight"),
            tags=tuple(row.get("tags") or ()),
            valid_at=row.get("valid_at"),
            invalid_at=row.get("invalid_at"),
            expired_at=row.get("expired_at"),
            created_at=row.get("created_at"),
            episodes=tuple(row.get("episodes") or ()),
        )

    @classmethod
    def link(cls, *, kind: str, source: str, target: str, source_name: str = "", target_name: str = "") -> EdgeCard:
        # Links carry no id of their own; this one is stable and cannot collide with a fact's.
        return cls(
            id=f"{kind}:{source}>{target}",
            kind=kind,
            source=source,
            target=target,
            source_name=source_name,
            target_name=target_name,
            relation=kind.lower(),
        )

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tags"] = list(self.tags)
        data["episodes"] = list(self.episodes)
        data["invalidated"] = self.invalidated
        return data
