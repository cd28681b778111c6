"""The Cypher level source: each level of a seed's exploration in one batched round trip over Bolt (seed 000).

This is the specification the view source is held to. The transfer energy is computed in Cypher and only
candidates above MIN_ACTIVATION come back, at most `limit` per parent; pruned parents only say whether they
have an unvisited neighbour. One session per seed; each read is one `execute_read`, retried on transient
failures (memoria/graph/retry.py).

Every read counts only the facts that count at the retrieval's moment (memoria/graph/asof.py): the degree d,
the candidates and the open neighbours alike. For every fact (`include_invalidated`) the queries are today's;
at a recent moment, usually the same queries minus a short list of fact ids (memoria/retrieval/ended_facts.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import neo4j

from memoria.graph.asof import EVERY_FACT, AsOf, counts_cypher
from memoria.graph.driver import database_name, process_bookmarks
from memoria.graph.retry import with_retry_async
from memoria.observability import cypher_round_trip
from memoria.retrieval.ended_facts import EVERY_FACT_FILTER, PREDICATE_FILTER, FactFilter, FilterMode
from memoria.retrieval.levels import LevelQuery, LevelRead, LevelRow, SeedNode
from memoria.retrieval.selection import Candidate

# `{degree_n}`-style holes take the RELATES degree of a node; `{counts_r}` the moment's predicate on r (or nothing).
SEED_FETCH = """
MATCH (n:Memory {group_id: $group, id: $seed_id})
RETURN n.group_id AS group_id, n.name AS name, labels(n) AS labels, {degree_n} AS degree
"""

# The seed's section 6.2, with `:Memory` lookups (indexed), neighbours kept inside the group, and rows slimmed:
# one row per parent with its above-threshold candidates in selection order, cut at $limit. A parent's degree
# comes in its frontier entry (counted when it was shipped the level before), and a neighbour's degree is counted
# only for the rows shipped: at a moment each count reads every incident fact's times (docs/retrieval.md).
EXPAND_LEVEL = """
UNWIND $frontier AS f
MATCH (current:Memory {group_id: $group, id: f.node_id})
WITH current, f, f.degree AS degree
MATCH (current)-[r:RELATES]-(neighbor:Memory)
WHERE NOT neighbor.id IN $visited_ids AND neighbor.group_id = $group{counts_r}
WITH current, f, degree, r, neighbor, coalesce(r.tags, []) AS etags
WITH current, f, degree, r, neighbor, etags, [t IN etags WHERE t IN $query_tags] AS shared
WITH current, f, degree, r, neighbor, shared,
     CASE
         WHEN $query_tags_count = 0 THEN 1.0
         WHEN size(etags) = 0 THEN $tag_sim_floor
         ELSE $tag_sim_floor
              + (1.0 - $tag_sim_floor) * toFloat(size(shared)) / (size(etags) + $query_tags_count - size(shared))
     END AS tag_sim
WITH current, f, degree, r, neighbor, shared, tag_sim,
     (f.activation * coalesce(r.weight, 0.01) / sqrt(toFloat(degree))) * tag_sim AS transfer_energy
ORDER BY transfer_energy DESC, neighbor.id, r.id
WITH f.node_id AS parent_id, degree, count(*) AS candidates,
     collect(CASE WHEN transfer_energy > $min_threshold THEN
         [neighbor, r, startNode(r) = current, tag_sim, shared, transfer_energy]
     END) AS above
WITH parent_id, degree, candidates, size(above) AS above_count, above[0..$limit] AS top
UNWIND CASE WHEN size(top) = 0 THEN [null] ELSE top END AS shipped
WITH parent_id, degree, candidates, above_count, shipped, shipped[0] AS neighbor, shipped[1] AS r
RETURN parent_id, degree, candidates, above_count,
       collect(CASE WHEN shipped IS NOT NULL THEN
           [neighbor.id, r.id, shipped[2], r.relation, r.weight, shipped[3], shipped[4], shipped[5],
            neighbor.name, labels(neighbor), {degree_neighbor}]
       END) AS top
"""

# For frontier nodes that cannot pass the threshold: is there any unvisited neighbour in the group?
OPEN_NEIGHBOURS = """
UNWIND $node_ids AS node_id
MATCH (current:Memory {group_id: $group, id: node_id})
RETURN node_id, EXISTS {
    (current)-[r:RELATES]-(neighbor:Memory)
    WHERE NOT neighbor.id IN $visited_ids AND neighbor.group_id = $group{counts_r}
} AS open
"""


@dataclass(frozen=True)
class LevelQueries:
    """The three queries with a moment's filter written in (its times are parameters)."""

    seed: str
    expand: str
    open_neighbours: str


def _degree(node: str, mode: FilterMode) -> str:
    if mode is FilterMode.PREDICATE:
        return f"COUNT {{ ({node})-[d:RELATES]-() WHERE {counts_cypher('d')} }}"
    return f"COUNT {{ ({node})-[:RELATES]-() }}"  # excluded facts are taken from it in Python


def _level_queries(mode: FilterMode) -> LevelQueries:
    """The queries with the filter written in, or today's text when every fact counts."""
    kept = {
        FilterMode.EVERY_FACT: "",
        FilterMode.EXCLUDED: " AND NOT r.id IN $excluded",
        FilterMode.PREDICATE: f" AND {counts_cypher('r')}",
    }
    holes = {"degree_n": _degree("n", mode), "degree_neighbor": _degree("neighbor", mode), "counts_r": kept[mode]}

    def filled(query: str) -> str:
        for hole, text in holes.items():
            query = query.replace(f"{{{hole}}}", text)
        return query

    return LevelQueries(filled(SEED_FETCH), filled(EXPAND_LEVEL), filled(OPEN_NEIGHBOURS))


QUERIES = {mode: _level_queries(mode) for mode in FilterMode}


def _row_to_level(row: list[Any], neighbour_degrees: dict[str, int], facts: FactFilter) -> LevelRow:
    """A row of EXPAND_LEVEL: parent_id, degree, candidates, above_count, top (neighbours' degrees noted aside)."""
    parent, degree, candidates, above_count, top_rows = row
    # Collected again after an UNWIND, which Cypher does not promise keeps the order: put back the selection order.
    top_rows.sort(key=lambda item: (-item[7], item[0], item[1]))
    for item in top_rows:
        neighbour_degrees[item[0]] = facts.degree(item[0], item[10])
    top = tuple(
        Candidate(
            parent_id=parent,
            neighbor_id=item[0],
            edge_id=item[1],
            outgoing=bool(item[2]),
            relation=item[3],
            weight=item[4],
            degree=degree,
            tag_similarity=item[5],
            shared_tags=tuple(item[6]),
            transfer_energy=item[7],
            neighbor_name=item[8],
            neighbor_labels=tuple(label for label in item[9] if label != "Memory"),
        )
        for item in top_rows
    )
    return LevelRow(parent, degree, candidates, above_count, top)


async def _read_with_retry(session: neo4j.AsyncSession, *statements: tuple[str, dict[str, Any]]) -> list[list[list]]:
    """Statements in one execute_read, retried on transient failures with the seed's backoff (memoria.graph.retry).

    Permanent errors surface at once; a server still away after the last try is GraphUnavailable. Rows come
    back as plain value lists: `record.data()` would walk every nested list again.
    """

    async def work(tx: neo4j.AsyncManagedTransaction) -> list[list[list]]:
        with cypher_round_trip(statements[0][0], kind="read") as trip:  # one round trip, logged by its first query
            results = [await (await tx.run(query, parameters)).values() for query, parameters in statements]
            trip.rows = sum(len(rows) for rows in results)
        return results

    return await with_retry_async(lambda: session.execute_read(work), what="activation read", read=True)


class CypherLevelSource:
    """A seed's levels read over one Bolt session."""

    in_memory = False

    def __init__(
        self,
        session: neo4j.AsyncSession,
        *,
        group: str,
        query_tags: Sequence[str],
        tag_sim_floor: float,
        moment: AsOf = EVERY_FACT,
        facts: FactFilter | None = None,
    ) -> None:
        self.session = session
        self.group = group
        self.facts = facts or (EVERY_FACT_FILTER if moment.every_fact else PREDICATE_FILTER)
        self.queries = QUERIES[self.facts.mode]
        # What the filter's text names: the moment's times for the predicate, the fact ids for an exclusion.
        self.filter_parameters: dict[str, Any] = {
            FilterMode.EVERY_FACT: {},
            FilterMode.EXCLUDED: {"excluded": list(self.facts.excluded)},
            FilterMode.PREDICATE: moment.parameters(),
        }[self.facts.mode]
        self.query_tags = list(query_tags)
        self.tag_sim_floor = tag_sim_floor
        self.round_trips = 0

    async def seed(self, seed_id: str) -> SeedNode | None:
        (rows,) = await _read_with_retry(
            self.session, (self.queries.seed, {"seed_id": seed_id, "group": self.group, **self.filter_parameters})
        )
        self.round_trips += 1
        if not rows or rows[0][0] != self.group:
            return None
        _, name, labels, degree = rows[0]
        return SeedNode(name, tuple(labels), self.facts.degree(seed_id, degree))

    async def read_level(self, query: LevelQuery) -> LevelRead:
        visited_ids = sorted(query.visited)
        statements = []
        if query.expand:
            frontier = [
                {"node_id": node_id, "activation": activation, "degree": degree}
                for node_id, activation, degree in query.expand
            ]
            parameters = {
                "frontier": frontier,
                "visited_ids": visited_ids,
                "group": self.group,
                "query_tags": self.query_tags,
                "query_tags_count": len(self.query_tags),
                "tag_sim_floor": self.tag_sim_floor,
                "min_threshold": query.min_threshold,
                "limit": query.limit,
                **self.filter_parameters,
            }
            statements.append((self.queries.expand, parameters))
        if query.pruned:
            parameters = {"node_ids": list(query.pruned), "visited_ids": visited_ids, "group": self.group}
            statements.append((self.queries.open_neighbours, {**parameters, **self.filter_parameters}))
        results = await _read_with_retry(self.session, *statements)
        self.round_trips += 1
        neighbour_degrees: dict[str, int] = {}
        rows = tuple(_row_to_level(row, neighbour_degrees, self.facts) for row in (results[0] if query.expand else []))
        open_neighbours = {node_id: bool(has_open) for node_id, has_open in (results[-1] if query.pruned else [])}
        return LevelRead(rows, open_neighbours, neighbour_degrees)


@asynccontextmanager
async def cypher_level_source(
    driver: neo4j.AsyncDriver,
    *,
    group: str,
    query_tags: Sequence[str],
    tag_sim_floor: float,
    moment: AsOf,
    facts: FactFilter | None = None,
) -> AsyncIterator[CypherLevelSource]:
    """A source on a session of its own: sessions are not safe to share between concurrent seeds."""
    async with driver.session(
        database=database_name(), default_access_mode=neo4j.READ_ACCESS, bookmark_manager=process_bookmarks()
    ) as session:
        yield CypherLevelSource(
            session, group=group, query_tags=query_tags, tag_sim_floor=tag_sim_floor, moment=moment, facts=facts
        )
