"""Reads behind the entity, episode and community pages and the graph view's node panel (keyword-only selectors).

Every read is scoped to one group: a node of another group is NodeNotFound, exactly like a missing one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memoria.browse.records import FACT_COLUMNS, NODE_CARD_COLUMNS, EdgeCard, NodeCard
from memoria.errors import NodeNotFound
from memoria.graph import driver, kinds
from memoria.requests.scope import MemoryScope

# A page lists at most this many of a node's facts, episodes, members; the totals say how many there are.
MAX_PAGE_FACTS = 500
MAX_PAGE_EPISODES = 100
MAX_PAGE_MEMBERS = 500
MAX_CARDS = 500

NODE_CARDS = f"""
UNWIND $ids AS id
MATCH (n:Memory {{group_id: $group, id: id}})
RETURN {NODE_CARD_COLUMNS}
"""
NODE_DETAIL = f"""
MATCH (n:Memory {{group_id: $group, id: $id}})
RETURN {NODE_CARD_COLUMNS}, n.summary AS summary, n.content AS content, n.attributes AS attributes,
  n.source AS source, n.source_description AS source_description, n.valid_at AS valid_at,
  n.created_at AS created_at
"""
# A fact's time line runs by its start; facts of unknown start come first, as they may have held all along.
NODE_FACTS = f"""
MATCH (n:Memory {{group_id: $group, id: $id}})-[r:RELATES]-()
WITH r ORDER BY coalesce(r.valid_at, '') , r.id
LIMIT $limit
RETURN {FACT_COLUMNS}
"""
NODE_FACT_COUNT = """
MATCH (n:Memory {group_id: $group, id: $id})-[r:RELATES]-()
RETURN count(r) AS total
"""
ENTITY_EPISODES = """
MATCH (ep:Episode)-[:MENTIONS]->(n:Memory {group_id: $group, id: $id})
RETURN ep.id AS id, ep.name AS name, ep.valid_at AS valid_at, ep.content AS content
ORDER BY coalesce(ep.valid_at, '') DESC, ep.id
LIMIT $limit
"""
ENTITY_EPISODE_COUNT = """
MATCH (ep:Episode)-[:MENTIONS]->(n:Memory {group_id: $group, id: $id})
RETURN count(ep) AS total
"""
EPISODE_ENTITIES = f"""
MATCH (ep:Memory {{group_id: $group, id: $id}})-[:MENTIONS]->(n:Entity)
WITH n ORDER BY n.name, n.id
LIMIT $limit
RETURN {NODE_CARD_COLUMNS}
"""
# Facts keep the ids of the episodes they came from (an imported fact need not join entities its episode mentions,
# so the group's facts are read through their group index rather than through the episode's mentions).
EPISODE_FACTS = f"""
MATCH ()-[r:RELATES]->()
WHERE r.group_id = $group AND $id IN r.episodes
WITH r ORDER BY coalesce(r.valid_at, ''), r.id
LIMIT $limit
RETURN {FACT_COLUMNS}
"""
# Newest first as the ingest context reads them (when it happened, then when it was stored); the id breaks ties so
# pages never overlap.
# {where} is MemoryScope.episode_condition's (our own text, every value a parameter).
RECENT_EPISODES = """
MATCH (ep:Episode {{group_id: $group}})
WHERE {where}
RETURN ep.id AS id, ep.name AS name, ep.valid_at AS valid_at, ep.created_at AS created_at, ep.source AS source,
  ep.content AS content, ep.user_id AS user_id, ep.agent_id AS agent_id, ep.session_id AS session_id,
  ep.metadata AS metadata
ORDER BY coalesce(ep.valid_at, '') DESC, coalesce(ep.created_at, '') DESC, ep.id DESC
SKIP $offset LIMIT $limit
"""
EPISODE_COUNT = """
MATCH (ep:Episode {{group_id: $group}})
WHERE {where}
RETURN count(ep) AS total
"""
COMMUNITY_MEMBERS = f"""
MATCH (c:Memory {{group_id: $group, id: $id}})-[:HAS_MEMBER]->(n:Entity)
WITH n ORDER BY COUNT {{ (n)-[:RELATES]-() }} DESC, n.name, n.id
LIMIT $limit
RETURN {NODE_CARD_COLUMNS}
"""
COMMUNITY_MEMBER_COUNT = """
MATCH (c:Memory {group_id: $group, id: $id})-[:HAS_MEMBER]->(n:Entity)
RETURN count(n) AS total
"""
# A group's first view: its entities with the most facts, so the graph view never opens on an empty canvas.
MOST_CONNECTED = f"""
MATCH (n:{kinds.ENTITY} {{group_id: $group}})
WITH n, COUNT {{ (n)-[:RELATES]-() }} AS facts
WHERE facts > 0
WITH n ORDER BY facts DESC, n.name, n.id
LIMIT $limit
RETURN {NODE_CARD_COLUMNS}
"""
# Edges between known ends, found from their source node so the unique id index is used.
FACTS_BY_ENDS = f"""
UNWIND $rows AS row
MATCH (:Memory {{group_id: $group, id: row.source}})-[r:RELATES]->(:Memory {{group_id: $group, id: row.target}})
WHERE r.id = row.id AND r.group_id = $group
RETURN {FACT_COLUMNS}
"""


@dataclass(frozen=True)
class NodeDetail:
    """A node's card plus what its page and the graph view's panel show."""

    card: NodeCard
    summary: str = ""
    content: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    source_description: str | None = None
    valid_at: str | None = None
    created_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.card.as_dict(),
            "summary": self.summary,
            "content": self.content,
            "attributes": self.attributes,
            "source": self.source,
            "source_description": self.source_description,
            "valid_at": self.valid_at,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class EpisodeRef:
    id: str
    name: str
    valid_at: str | None
    excerpt: str


@dataclass(frozen=True)
class EntityPage:
    detail: NodeDetail
    facts: tuple[EdgeCard, ...]
    fact_total: int
    episodes: tuple[EpisodeRef, ...]
    episode_total: int


@dataclass(frozen=True)
class EpisodePage:
    detail: NodeDetail
    entities: tuple[NodeCard, ...]
    facts: tuple[EdgeCard, ...]


@dataclass(frozen=True)
class EpisodeListItem:
    id: str
    name: str
    valid_at: str | None
    created_at: str | None
    source: str | None
    content: str
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True)
class EpisodeList:
    """One page of a group's episodes, newest first; `more` counts those after it."""

    episodes: tuple[EpisodeListItem, ...]
    total: int
    more: int


@dataclass(frozen=True)
class CommunityPage:
    detail: NodeDetail
    members: tuple[NodeCard, ...]
    member_total: int


def _attributes(raw: Any) -> dict[str, Any]:
    # Stored as JSON text by the importer (a flat object); anything else is shown as nothing rather than failing.
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw:
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def node_cards(*, group: str, ids: Sequence[str]) -> list[NodeCard]:
    """Cards of the ids that are in the group, in the order asked; others are left out."""
    wanted = list(dict.fromkeys(ids))[:MAX_CARDS]
    found = {row["id"]: NodeCard.from_row(row) for row in driver.read(NODE_CARDS, ids=wanted, group=group)}
    return [found[node_id] for node_id in wanted if node_id in found]


def most_connected(*, group: str, limit: int) -> list[NodeCard]:
    """The group's entities with the most facts, most first (ties by name); none without a fact. One read that
    counts every entity's facts: the graph view asks it once, when a group opens with nothing to show."""
    return [NodeCard.from_row(row) for row in driver.read(MOST_CONNECTED, group=group, limit=limit)]


def node_detail(*, group: str, node_id: str, kind: str | None = None) -> NodeDetail:
    """The node, or NodeNotFound when it is missing, in another group, or not of the asked kind."""
    rows = driver.read(NODE_DETAIL, id=node_id, group=group)
    card = NodeCard.from_row(rows[0]) if rows else None
    if card is None or (kind is not None and card.kind != kind):
        raise NodeNotFound(f"no {(kind or 'memory').lower()} {node_id!r} in group {group!r}")
    row = rows[0]
    return NodeDetail(
        card=card,
        summary=row["summary"] or "",
        content=row["content"] or "",
        attributes=_attributes(row["attributes"]),
        source=row["source"],
        source_description=row["source_description"],
        valid_at=row["valid_at"],
        created_at=row["created_at"],
    )


def node_facts(*, group: str, node_id: str, limit: int = MAX_PAGE_FACTS) -> list[EdgeCard]:
    return [EdgeCard.from_fact_row(row) for row in driver.read(NODE_FACTS, id=node_id, group=group, limit=limit)]


def _total(query: str, *, group: str, node_id: str) -> int:
    return driver.read(query, id=node_id, group=group)[0]["total"]


def entity_page(*, group: str, entity_id: str) -> EntityPage:
    detail = node_detail(group=group, node_id=entity_id, kind=kinds.ENTITY)
    episodes = driver.read(ENTITY_EPISODES, id=entity_id, group=group, limit=MAX_PAGE_EPISODES)
    return EntityPage(
        detail=detail,
        facts=tuple(node_facts(group=group, node_id=entity_id)),
        fact_total=_total(NODE_FACT_COUNT, group=group, node_id=entity_id),
        episodes=tuple(
            EpisodeRef(id=row["id"], name=row["name"] or row["id"], valid_at=row["valid_at"], excerpt=row["content"])
            for row in episodes
        ),
        episode_total=_total(ENTITY_EPISODE_COUNT, group=group, node_id=entity_id),
    )


def episode_page(*, group: str, episode_id: str) -> EpisodePage:
    detail = node_detail(group=group, node_id=episode_id, kind=kinds.EPISODE)
    entities = driver.read(EPISODE_ENTITIES, id=episode_id, group=group, limit=MAX_CARDS)
    facts = driver.read(EPISODE_FACTS, id=episode_id, group=group, limit=MAX_PAGE_FACTS)
    return EpisodePage(
        detail=detail,
        entities=tuple(NodeCard.from_row(row) for row in entities),
        facts=tuple(EdgeCard.from_fact_row(row) for row in facts),
    )


def episodes_recent(*, group: str, offset: int, limit: int, scope: MemoryScope | None = None) -> EpisodeList:
    """A page of the group's episodes of the scope (all without one), newest first; a group the caller may not see
    was refused before this."""
    where, parameters = (scope or MemoryScope()).episode_condition("ep")
    rows = driver.read(RECENT_EPISODES.format(where=where), group=group, offset=offset, limit=limit, **parameters)
    total = driver.read(EPISODE_COUNT.format(where=where), group=group, **parameters)[0]["total"]
    episodes = tuple(
        EpisodeListItem(
            id=row["id"],
            name=row["name"] or row["id"],
            valid_at=row["valid_at"],
            created_at=row["created_at"],
            source=row["source"],
            content=row["content"] or "",
            user_id=row["user_id"],
            agent_id=row["agent_id"],
            session_id=row["session_id"],
            metadata=json.loads(row["metadata"]) if row["metadata"] else None,
        )
        for row in rows
    )
    return EpisodeList(episodes=episodes, total=total, more=max(0, total - offset - len(episodes)))


def community_page(*, group: str, community_id: str) -> CommunityPage:
    detail = node_detail(group=group, node_id=community_id, kind=kinds.COMMUNITY)
    members = driver.read(COMMUNITY_MEMBERS, id=community_id, group=group, limit=MAX_PAGE_MEMBERS)
    return CommunityPage(
        detail=detail,
        members=tuple(NodeCard.from_row(row) for row in members),
        member_total=_total(COMMUNITY_MEMBER_COUNT, group=group, node_id=community_id),
    )


def facts_by_ends(*, group: str, ends: Sequence[tuple[str, str, str]]) -> list[EdgeCard]:
    """Cards of facts known by (id, source, target), in the order given; those not found are left out."""
    rows = [{"id": edge_id, "source": source, "target": target} for edge_id, source, target in ends]
    found = {row["id"]: EdgeCard.from_fact_row(row) for row in driver.read(FACTS_BY_ENDS, rows=rows, group=group)}
    return [found[edge_id] for edge_id, _, _ in ends if edge_id in found]
