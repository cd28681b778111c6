"""The graph index of RFD 0003 over the graph server: typed, weighted edges between a group's memories.

The RFD's in-memory adjacency list is the graph server's RELATES edges here,
so the index is the same data every other part of Memoria reads. An edge is
known by (source, relation, target): adding one that exists updates it in
place (its id is derived from those three). Adding goes through the document
importer, so edges obey the import rules (docs/import-format.md) and bump the
group version there; removals bump it in their own transaction. Traversal is a
breadth-first walk, one parameterised query per depth, that never revisits a
node (cycles end there) and stops at `max_results`; given a moment, it walks only the facts that count then
(memoria/graph/asof.py), and with none every edge, as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import neo4j

from memoria.accounts.roles import check_group_name
from memoria.errors import InvalidInput, NodeNotFound
from memoria.graph import driver
from memoria.graph.asof import EVERY_FACT, AsOf, moment_cypher
from memoria.graph.rules import MAX_RELATION_LENGTH, relation_problem
from memoria.graph.versions import group_version_bump
from memoria.graphindex.request import IndexEdgeInput, IndexEdgesInput
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import ImportReport, graph_document_import
from memoria.requests.vocabulary import input_parse

# The RFD's standard relation types; any relation the import rules accept may be used beside them.
RELATED_TO = "related_to"
REFERENCES = "references"
FOLLOWS = "follows"
CAUSED_BY = "caused_by"
PART_OF = "part_of"
SAME_AS = "same_as"
STANDARD_RELATIONS: tuple[str, ...] = (RELATED_TO, REFERENCES, FOLLOWS, CAUSED_BY, PART_OF, SAME_AS)

Direction = Literal["out", "in", "both"]
DIRECTIONS: tuple[str, ...] = ("out", "in", "both")
MAX_DEPTH = 10
MAX_RESULTS = 10_000

EDGE_FIELDS = """
a.id AS source, b.id AS target, r.relation AS relation, r.weight AS weight, r.fact AS fact,
r.relation_category AS category, r.tags AS tags, r.valid_at AS valid_at, r.invalid_at AS invalid_at,
r.created_at AS created_at
"""
OUTGOING = f"""
MATCH (a:Memory {{group_id: $group, id: $id}})-[r:RELATES]->(b:Memory)
WHERE r.group_id = $group AND {moment_cypher("r")}
RETURN {EDGE_FIELDS}
ORDER BY target, relation
"""
INCOMING = f"""
MATCH (b:Memory {{group_id: $group, id: $id}})<-[r:RELATES]-(a:Memory)
WHERE r.group_id = $group AND {moment_cypher("r")}
RETURN {EDGE_FIELDS}
ORDER BY source, relation
"""
# (group_id, id) is the node's key: the pattern names both so the composite unique index answers it.
NODE_EXISTS = "MATCH (n:Memory {group_id: $group, id: $id}) RETURN count(n) AS c"
# One hop from a frontier; the direction is chosen among fixed texts, never built from input.
HOP = {
    "out": "MATCH (a:Memory {group_id: $group, id: id})-[r:RELATES]->(b:Memory)",
    "in": "MATCH (a:Memory {group_id: $group, id: id})<-[r:RELATES]-(b:Memory)",
    "both": "MATCH (a:Memory {group_id: $group, id: id})-[r:RELATES]-(b:Memory)",
}
HOP_RETURN = (
    """
UNWIND $frontier AS id
{match}
WHERE r.group_id = $group AND r.weight >= $min_weight AND (size($relations) = 0 OR r.relation IN $relations)
AND """
    + moment_cypher("r")
    + """
RETURN a.id AS source, b.id AS target, r.relation AS relation, r.weight AS weight
"""
)
HAS_EDGE = """
MATCH (a:Memory {group_id: $group, id: $source})-[r:RELATES]->(b:Memory {group_id: $group, id: $target})
WHERE r.group_id = $group AND ($relation = '' OR r.relation = $relation)
RETURN count(r) AS c
"""
REMOVE_EDGE = """
MATCH (a:Memory {group_id: $group, id: $source})-[r:RELATES]->(b:Memory {group_id: $group, id: $target})
WHERE r.group_id = $group AND r.relation = $relation
DELETE r
RETURN count(*) AS removed
"""
# The other ends are returned: their facts changed too, so the version stamp names them.
REMOVE_NODE_EDGES = """
MATCH (a:Memory {group_id: $group, id: $id})-[r:RELATES]-(b:Memory)
WHERE r.group_id = $group
WITH r, b.id AS end
DELETE r
RETURN count(*) AS removed, collect(DISTINCT end) AS ends
"""
SIZE = "MATCH (:Memory {group_id: $group})-[r:RELATES]->(:Memory) WHERE r.group_id = $group RETURN count(r) AS c"
NODE_COUNT = """
MATCH (n:Memory {group_id: $group})-[r:RELATES]-(:Memory)
WHERE r.group_id = $group
RETURN count(DISTINCT n) AS c
"""


@dataclass(frozen=True)
class IndexEdge:
    source: str
    target: str
    relation: str
    weight: float
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TraversalOptions:
    relations: tuple[str, ...] = ()  # empty: every relation
    direction: Direction = "out"
    max_depth: int = 1
    max_results: int = 100
    min_weight: float = 0.0
    moment: AsOf = EVERY_FACT  # which facts are walked: every one unless a moment is asked for


@dataclass(frozen=True)
class TraversalResult:
    id: str
    depth: int
    relation: str
    weight: float
    path: tuple[str, ...]  # from the start node to this one, both included

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "path": list(self.path)}


def _relation(value: Any, where: str) -> str:
    """A relation asked about is held to the rule of a stored one (memoria.graph.rules.relation_problem)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{where}: must be a non-empty string")
    if len(value) > MAX_RELATION_LENGTH:
        raise InvalidInput(f"{where}: is longer than {MAX_RELATION_LENGTH} characters")
    if problem := relation_problem(value.strip()):
        raise InvalidInput(f"{where}: {problem}")
    return value.strip()


def traversal_options(
    *,
    relations: Iterable[str] = (),
    direction: str = "out",
    max_depth: int = 1,
    max_results: int = 100,
    min_weight: float = 0.0,
    moment: AsOf = EVERY_FACT,
) -> TraversalOptions:
    """Checked options: a bad value is an InvalidInput naming it, never a silent default."""
    checked = tuple(dict.fromkeys(_relation(r, "relation") for r in relations))
    if direction not in DIRECTIONS:
        raise InvalidInput(f"direction: must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    if isinstance(max_depth, bool) or not isinstance(max_depth, int) or not 1 <= max_depth <= MAX_DEPTH:
        raise InvalidInput(f"max_depth: must be an integer from 1 to {MAX_DEPTH}")
    if isinstance(max_results, bool) or not isinstance(max_results, int) or not 1 <= max_results <= MAX_RESULTS:
        raise InvalidInput(f"max_results: must be an integer from 1 to {MAX_RESULTS}")
    if isinstance(min_weight, bool) or not isinstance(min_weight, int | float) or not 0.0 <= min_weight <= 1.0:
        raise InvalidInput("min_weight: must be a number from 0 to 1")
    return TraversalOptions(checked, direction, max_depth, max_results, float(min_weight), moment)  # type: ignore[arg-type]


def _check_node(group: str, node_id: str) -> None:
    check_group_name(group)
    if not isinstance(node_id, str) or driver.read(NODE_EXISTS, group=group, id=node_id)[0]["c"] == 0:
        raise NodeNotFound(f"node {node_id!r} is not in group {group!r}")


def _edge(row: dict[str, Any]) -> IndexEdge:
    metadata = {
        "fact": row["fact"] or None,
        "category": row["category"],
        "tags": list(row["tags"] or []) or None,
        "valid_at": row["valid_at"],
        "invalid_at": row["invalid_at"],
    }
    return IndexEdge(
        source=row["source"],
        target=row["target"],
        relation=row["relation"],
        weight=row["weight"],
        metadata={key: value for key, value in metadata.items() if value is not None},
        created_at=row["created_at"],
    )


# ---------------------------------------------------------------- writes


def _edge_item(edge: IndexEdgeInput) -> dict[str, Any]:
    """An index edge as the import format writes one: its metadata beside the ends (values still unchecked)."""
    item = {key: getattr(edge, key) for key in ("source", "target", "relation", "weight")}
    metadata = edge.metadata.model_dump(exclude_unset=True) if edge.metadata is not None else {}
    item["tags"] = metadata.pop("tags", [])
    item.update(metadata)
    return item


def edges_add(*, group: str, edges: list[Any]) -> ImportReport:
    """Add or update edges (all or nothing); their ends must be stored in the group. Raises InvalidInput."""
    check_group_name(group)
    batch = input_parse(IndexEdgesInput, {"edges": edges})
    items = [_edge_item(edge) for edge in batch.edges]
    document = parse_graph_document({"nodes": [], "edges": items}, group=group)
    return graph_document_import(document=document, group=group)


def edge_add(
    *, group: str, source: str, target: str, relation: str, weight: float, metadata: dict[str, Any] | None = None
) -> ImportReport:
    edge = {"source": source, "target": target, "relation": relation, "weight": weight, "metadata": metadata}
    return edges_add(group=group, edges=[edge])


def _removal(query: str, group: str, *, touched: set[str], **parameters: Any) -> int:
    def work(tx: neo4j.ManagedTransaction) -> int:
        record = tx.run(query, group=group, **parameters).single(strict=True)
        removed = record["removed"]
        if removed:
            ends = record.get("ends") or []  # a node's removal names every node it was joined to
            group_version_bump(tx, group, touched=touched | set(ends))
        return removed

    return driver.write_transaction(work)


def edge_remove(*, group: str, source: str, target: str, relation: str) -> int:
    """Remove the edge (source, relation, target); the count removed (0 or 1) says whether it existed."""
    check_group_name(group)
    relation = _relation(relation, "relation")
    return _removal(REMOVE_EDGE, group, touched={source, target}, source=source, target=target, relation=relation)


def node_remove(*, group: str, node_id: str) -> int:
    """Remove every edge to or from the node (the memory itself stays); how many were removed."""
    _check_node(group, node_id)
    return _removal(REMOVE_NODE_EDGES, group, touched={node_id}, id=node_id)


# ---------------------------------------------------------------- reads


def outgoing(*, group: str, node_id: str, moment: AsOf = EVERY_FACT) -> list[IndexEdge]:
    """The node's edges out that count at `moment` (every one by default, for callers that audit)."""
    _check_node(group, node_id)
    return [_edge(row) for row in driver.read(OUTGOING, id=node_id, group=group, **moment.nullable_parameters())]


def incoming(*, group: str, node_id: str, moment: AsOf = EVERY_FACT) -> list[IndexEdge]:
    """The node's edges in that count at `moment` (every one by default, for callers that audit)."""
    _check_node(group, node_id)
    return [_edge(row) for row in driver.read(INCOMING, id=node_id, group=group, **moment.nullable_parameters())]


def _hops(group: str, frontier: list[str], options: TraversalOptions) -> list[tuple[str, str, str, float]]:
    """(from, to, relation, weight) of every edge leaving the frontier in the chosen direction(s)."""
    rows = driver.read(
        HOP_RETURN.format(match=HOP[options.direction]),
        frontier=frontier,
        group=group,
        min_weight=options.min_weight,
        relations=list(options.relations),
        **options.moment.nullable_parameters(),
    )
    hops = [(row["source"], row["target"], row["relation"], row["weight"]) for row in rows]
    # Heaviest first, then by id: which node is kept when max_results cuts a level is stable.
    hops.sort(key=lambda hop: (-hop[3], hop[1], hop[2], hop[0]))
    return hops


def traverse(*, group: str, start: str, options: TraversalOptions) -> list[TraversalResult]:
    """Breadth-first from `start`: each node once, at its smallest depth, by the heaviest edge reaching it."""
    _check_node(group, start)
    paths: dict[str, tuple[str, ...]] = {start: (start,)}
    results: list[TraversalResult] = []
    frontier = [start]
    for depth in range(1, options.max_depth + 1):
        if not frontier:
            break
        reached: list[str] = []
        for source, target, relation, weight in _hops(group, frontier, options):
            if target in paths:
                continue
            paths[target] = (*paths[source], target)
            results.append(TraversalResult(target, depth, relation, weight, paths[target]))
            reached.append(target)
            if len(results) >= options.max_results:
                return results
        frontier = reached
    return results


def related(*, group: str, node_id: str, options: TraversalOptions) -> list[TraversalResult]:
    """The direct neighbours (depth 1) under the options' relation, direction, weight and count limits."""
    one_hop = replace(options, max_depth=1)
    return traverse(group=group, start=node_id, options=one_hop)


def has_edge(*, group: str, source: str, target: str, relation: str = "") -> bool:
    """Whether source → target exists with that relation (any relation when it is empty)."""
    check_group_name(group)
    if relation:
        relation = _relation(relation, "relation")
    return driver.read(HAS_EDGE, source=source, target=target, relation=relation, group=group)[0]["c"] > 0


def size(*, group: str) -> int:
    """The number of edges in the group's index."""
    check_group_name(group)
    return driver.read(SIZE, group=group)[0]["c"]


def node_count(*, group: str) -> int:
    """The number of the group's nodes that have at least one edge."""
    check_group_name(group)
    return driver.read(NODE_COUNT, group=group)[0]["c"]
