"""A node's neighbourhood a page at a time, and the subgraph among chosen nodes: what the graph view draws.

Hubs have hundreds of links, so a neighbourhood comes in pages (strongest facts first, then episode mentions,
then community links) with the total, and the view offers the rest as "more".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoria.browse.filters import FACT_PASSES, EdgeFilter
from memoria.browse.records import FACT_COLUMNS, EdgeCard, NodeCard
from memoria.browse.selectors import MAX_CARDS, node_cards
from memoria.errors import InvalidInput, NodeNotFound
from memoria.graph import driver, kinds

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_OFFSET = 100_000
# Facts among the nodes of one answer: enough for any drawable page, bounded so a clique cannot flood the view.
MAX_CONNECTING_FACTS = 5000
# The nodes one fact away from any of $ids (either direction, through facts the filter passes), strongest first.
HOP_NEIGHBOURS = f"""
UNWIND $ids AS node_id
MATCH (n:Memory {{group_id: $group, id: node_id}})-[r:RELATES]-(m:Memory)
WHERE NOT m.id IN $seen AND {FACT_PASSES}
WITH m.id AS id, max(r.weight) AS strongest
ORDER BY strongest DESC, id
LIMIT $limit
RETURN id
"""
# The order pages walk through a node's links.
LINK_KINDS: tuple[str, ...] = (kinds.RELATES, kinds.MENTIONS, kinds.HAS_MEMBER)

NEIGHBOUR_FACTS = f"""
MATCH (n:Memory {{group_id: $group, id: $id}})-[r:RELATES]-(m:Memory)
WHERE {FACT_PASSES}
WITH r, m ORDER BY r.weight DESC, r.id
SKIP $offset LIMIT $limit
RETURN {FACT_COLUMNS}, m.id AS neighbour
"""
NEIGHBOUR_FACT_COUNT = f"""
MATCH (n:Memory {{group_id: $group, id: $id}})-[r:RELATES]-(m:Memory)
WHERE {FACT_PASSES}
RETURN count(r) AS total
"""
# {rel_type} is MENTIONS or HAS_MEMBER, from kinds (a type cannot be a parameter).
NEIGHBOUR_LINKS = """
MATCH (n:Memory {{group_id: $group, id: $id}})-[l:{rel_type}]-(m:Memory)
WITH l, m ORDER BY coalesce(m.valid_at, '') DESC, m.name, m.id
SKIP $offset LIMIT $limit
RETURN startNode(l).id AS source, endNode(l).id AS target, startNode(l).name AS source_name,
  endNode(l).name AS target_name, m.id AS neighbour
"""
NEIGHBOUR_LINK_COUNT = """
MATCH (n:Memory {{group_id: $group, id: $id}})-[l:{rel_type}]-(m:Memory)
RETURN count(l) AS total
"""
CONNECTING_FACTS = f"""
UNWIND $ids AS id
MATCH (a:Memory {{group_id: $group, id: id}})-[r:RELATES]->(b:Memory)
WHERE r.group_id = $group AND b.id IN $ids AND {FACT_PASSES}
RETURN {FACT_COLUMNS}
LIMIT $limit
"""


@dataclass(frozen=True)
class Subgraph:
    nodes: tuple[NodeCard, ...]
    edges: tuple[EdgeCard, ...]
    truncated: bool = False  # the hops reached more than MAX_CARDS nodes: the strongest-linked were kept

    def as_dict(self) -> dict[str, Any]:
        nodes, edges = [n.as_dict() for n in self.nodes], [e.as_dict() for e in self.edges]
        return {"nodes": nodes, "edges": edges, "truncated": self.truncated}


@dataclass(frozen=True)
class Neighbourhood:
    """One page of a node's links: `links` of them from `offset`, out of `total`; edges also join the neighbours."""

    center: NodeCard
    nodes: tuple[NodeCard, ...]
    edges: tuple[EdgeCard, ...]
    links: int
    offset: int
    limit: int
    total: int

    @property
    def more(self) -> int:
        """Links after this page."""
        return max(self.total - self.offset - self.links, 0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "center": self.center.as_dict(),
            "nodes": [n.as_dict() for n in self.nodes],
            "edges": [e.as_dict() for e in self.edges],
            "links": self.links,
            "offset": self.offset,
            "limit": self.limit,
            "total": self.total,
            "more": self.more,
        }


def _checked_kinds(links: Sequence[str]) -> tuple[str, ...]:
    unknown = [kind for kind in links if kind not in LINK_KINDS]
    if unknown or not links:
        raise InvalidInput(f"links: give some of {', '.join(LINK_KINDS)}")
    return tuple(kind for kind in LINK_KINDS if kind in links)


def _link_total(kind: str, *, group: str, node_id: str, edge_filter: EdgeFilter) -> int:
    if kind == kinds.RELATES:
        rows = driver.read(NEIGHBOUR_FACT_COUNT, id=node_id, group=group, **edge_filter.parameters())
    else:
        rows = driver.read(NEIGHBOUR_LINK_COUNT.format(rel_type=kind), id=node_id, group=group)
    return rows[0]["total"]


def _link_page(
    kind: str, *, group: str, node_id: str, edge_filter: EdgeFilter, offset: int, limit: int
) -> list[tuple[EdgeCard, str]]:
    """(edge, neighbour id) pairs of one kind, in the page's order."""
    if kind == kinds.RELATES:
        rows = driver.read(
            NEIGHBOUR_FACTS, id=node_id, group=group, offset=offset, limit=limit, **edge_filter.parameters()
        )
        return [(EdgeCard.from_fact_row(row), row["neighbour"]) for row in rows]
    rows = driver.read(NEIGHBOUR_LINKS.format(rel_type=kind), id=node_id, group=group, offset=offset, limit=limit)
    return [
        (
            EdgeCard.link(
                kind=kind,
                source=row["source"],
                target=row["target"],
                source_name=row["source_name"] or "",
                target_name=row["target_name"] or "",
            ),
            row["neighbour"],
        )
        for row in rows
    ]


def connecting_facts(*, group: str, ids: Sequence[str], edge_filter: EdgeFilter) -> list[EdgeCard]:
    """The facts whose two ends are both among `ids`."""
    rows = driver.read(
        CONNECTING_FACTS, ids=list(ids), group=group, limit=MAX_CONNECTING_FACTS, **edge_filter.parameters()
    )
    return [EdgeCard.from_fact_row(row) for row in rows]


def neighbourhood(
    *,
    group: str,
    node_id: str,
    links: Sequence[str] = (kinds.RELATES,),
    edge_filter: EdgeFilter | None = None,
    offset: int = 0,
    limit: int = DEFAULT_LIMIT,
) -> Neighbourhood:
    """Links `offset`..`offset + limit` of the node, kinds in LINK_KINDS order, with the facts among the neighbours."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit: must be 1–{MAX_LIMIT}")
    if not 0 <= offset <= MAX_OFFSET:
        raise InvalidInput(f"offset: must be 0–{MAX_OFFSET}")
    wanted_kinds = _checked_kinds(links)
    edge_filter = edge_filter or EdgeFilter()
    found = node_cards(group=group, ids=[node_id])
    if not found:
        raise NodeNotFound(f"no memory {node_id!r} in group {group!r}")
    pairs: list[tuple[EdgeCard, str]] = []
    total = 0
    for kind in wanted_kinds:
        kind_total = _link_total(kind, group=group, node_id=node_id, edge_filter=edge_filter)
        # The page is a window over the kinds laid end to end: this kind covers [total, total + kind_total).
        start = max(offset - total, 0)
        room = limit - len(pairs)
        if room > 0 and start < kind_total:
            pairs.extend(
                _link_page(
                    kind,
                    group=group,
                    node_id=node_id,
                    edge_filter=edge_filter,
                    offset=start,
                    limit=min(room, MAX_LIMIT),
                )
            )
        total += kind_total
    neighbour_ids = list(dict.fromkeys(neighbour for _, neighbour in pairs if neighbour != node_id))
    edges = {edge.id: edge for edge, _ in pairs}
    if kinds.RELATES in wanted_kinds and neighbour_ids:
        for edge in connecting_facts(group=group, ids=[node_id, *neighbour_ids], edge_filter=edge_filter):
            edges.setdefault(edge.id, edge)
    return Neighbourhood(
        center=found[0],
        nodes=tuple(node_cards(group=group, ids=neighbour_ids)),
        edges=tuple(edges.values()),
        links=len(pairs),
        offset=offset,
        limit=limit,
        total=total,
    )


def subgraph(*, group: str, ids: Sequence[str], edge_filter: EdgeFilter | None = None, hops: int = 0) -> Subgraph:
    """The group's nodes among `ids` and, with `hops`, every node up to that many facts away from them (seed 001's
    subgraph around seeds: one query per hop), at most MAX_CARDS in all, and the facts between them."""
    if len(set(ids)) > MAX_CARDS:
        raise InvalidInput(f"ids: at most {MAX_CARDS}")
    edge_filter = edge_filter or EdgeFilter()
    around = list(dict.fromkeys(ids))
    frontier, truncated = around, False
    for _ in range(hops):
        room = MAX_CARDS - len(around)
        if not frontier or room <= 0:
            break
        rows = driver.read(
            HOP_NEIGHBOURS, ids=frontier, seen=around, group=group, limit=room + 1, **edge_filter.parameters()
        )
        frontier = [row["id"] for row in rows][:room]
        truncated = truncated or len(rows) > room
        around.extend(frontier)
    cards = node_cards(group=group, ids=around)
    edges = connecting_facts(group=group, ids=[card.id for card in cards], edge_filter=edge_filter)
    return Subgraph(nodes=tuple(cards), edges=tuple(edges), truncated=truncated)
