"""Reading a change's scope from the graph, and the one writer that turns `before` into `after` inside a transaction.

Every change (edit, invalidate, delete, add, merge, undo) ends here, so the conflict check, the
vector rule and the statement order exist once. Edges are found by id through the RELATES.id index
(a bare `()-[r:RELATES]->()` pattern: ArcadeDB ignores that index once the end nodes carry labels)
and rewritten through their end nodes' ids, as the importer does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

import neo4j

from memoria.curation.errors import CurationConflict, StaleEdit
from memoria.curation.state import EdgeState, GraphState, Link, NodeState
from memoria.graph import driver, kinds
from memoria.graph.claims import REVISION, nodes_claim
from memoria.graph.schema import VECTOR_MODEL, VECTOR_TEXT
from memoria.graph.versions import group_version_bump
from memoria.ingest.persist import CREATE_ENTITIES as CREATE_NODES
from memoria.interchange.importer import MERGE_LINKS as CREATE_LINKS
from memoria.reindex import FACT_TEXT, NODE_TEXT

Runner = neo4j.ManagedTransaction

NODES = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})
RETURN n.id AS id, labels(n) AS labels, properties(n) AS props
"""
NAMES = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})
RETURN n.id AS id, n.name AS name
"""
EDGES = f"""
MATCH (a)-[r:{kinds.RELATES}]->(b)
WHERE r.id IN $ids
WITH a, r, b WHERE r.group_id = $group
RETURN r.id AS id, a.id AS source, b.id AS target, a.name AS source_name, b.name AS target_name,
       properties(r) AS props
"""
# {type} comes from state.LINK_TYPES only.
LINKS = """
UNWIND $pairs AS pair
MATCH (s:Memory {{group_id: $group, id: pair.source}})-[:{type}]->(t:Memory {{group_id: $group, id: pair.target}})
RETURN DISTINCT s.id AS source, t.id AS target
"""
INCIDENT = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})-[r]-(m)
RETURN n.id AS node, type(r) AS type, r.id AS edge_id, startNode(r).id AS source, endNode(r).id AS target
"""
# Vectors stay, with their model and text version, when the embedded text stays (the reindex contract,
# memoria.reindex); otherwise they go, and reindex makes new ones after the commit.
# The claim's revision (memoria.graph.claims) stays: it is not part of a node's audited state.
UPDATE_NODES = f"""
UNWIND $rows AS row
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.id}})
WITH n, row, {NODE_TEXT} AS old_text, n.name_embedding AS name_vector, n.embedding AS content_vector,
     n.{VECTOR_MODEL} AS model, n.{VECTOR_TEXT} AS text_version, n.{REVISION} AS revision
SET n = row.props
WITH n, {NODE_TEXT} = old_text AS kept, name_vector, content_vector, model, text_version, revision
SET n.{REVISION} = revision,
    n.name_embedding = CASE WHEN kept THEN name_vector ELSE null END,
    n.embedding = CASE WHEN kept THEN content_vector ELSE null END,
    n.{VECTOR_MODEL} = CASE WHEN kept THEN model ELSE null END,
    n.{VECTOR_TEXT} = CASE WHEN kept THEN text_version ELSE null END
WITH n WHERE n.name_embedding IS NULL AND n.embedding IS NULL
RETURN n.id AS unembedded
"""
DELETE_NODES = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})
DETACH DELETE n
"""
CREATE_EDGES = f"""
UNWIND $rows AS row
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.source}})
MATCH (b:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.target}})
CREATE (a)-[r:{kinds.RELATES}]->(b)
SET r = row.props
"""
UPDATE_EDGES = f"""
UNWIND $rows AS row
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.source}})-[r:{kinds.RELATES}]->
      (b:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.target}})
WHERE r.id = row.id
WITH a, r, b, row, {FACT_TEXT} AS old_text, r.fact_embedding AS vector, r.{VECTOR_MODEL} AS model,
     r.{VECTOR_TEXT} AS text_version
SET r = row.props
WITH a, r, b, {FACT_TEXT} = old_text AS kept, vector, model, text_version
SET r.fact_embedding = CASE WHEN kept THEN vector ELSE null END,
    r.{VECTOR_MODEL} = CASE WHEN kept THEN model ELSE null END,
    r.{VECTOR_TEXT} = CASE WHEN kept THEN text_version ELSE null END
WITH r WHERE r.fact_embedding IS NULL
RETURN r.id AS unembedded
"""
# A relationship cannot change ends: it is created anew (same id and properties) and the old one deleted.
# The vector moves along when the text reads the same from the new ends (a fact's text names its ends).
MOVE_EDGES = f"""
UNWIND $rows AS row
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.old_source}})-[r:{kinds.RELATES}]->
      (b:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.old_target}})
WHERE r.id = row.id
WITH row, r AS old, {FACT_TEXT} AS old_text, r.fact_embedding AS vector, r.{VECTOR_MODEL} AS model,
     r.{VECTOR_TEXT} AS text_version
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.source}})
MATCH (b:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.target}})
CREATE (a)-[r:{kinds.RELATES}]->(b)
SET r = row.props
WITH old, a, r, b, {FACT_TEXT} = old_text AS kept, vector, model, text_version
SET r.fact_embedding = CASE WHEN kept THEN vector ELSE null END,
    r.{VECTOR_MODEL} = CASE WHEN kept THEN model ELSE null END,
    r.{VECTOR_TEXT} = CASE WHEN kept THEN text_version ELSE null END
DELETE old
WITH r WHERE r.fact_embedding IS NULL
RETURN r.id AS unembedded
"""
DELETE_EDGES = f"""
UNWIND $rows AS row
MATCH (:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.source}})-[r:{kinds.RELATES}]->
      (:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.target}})
WHERE r.id = row.id
DELETE r
"""
DELETE_LINKS = """
UNWIND $rows AS row
MATCH (:Memory {{group_id: $group, id: row.source}})-[x:{type}]->(:Memory {{group_id: $group, id: row.target}})
DELETE x
"""


@dataclass(frozen=True)
class Scope:
    nodes: frozenset[str] = frozenset()
    edges: frozenset[str] = frozenset()
    links: frozenset[Link] = frozenset()

    @classmethod
    def of(cls, state: GraphState) -> Scope:
        return cls(frozenset(state.nodes), frozenset(state.edges), frozenset(state.links))


@dataclass(frozen=True)
class AppliedChange:
    """The nodes and edges a write left without a vector (created, or their text changed): reindex embeds them
    after the commit. A write that changed no text leaves none, and costs no embedding."""

    unembedded: tuple[str, ...]


def state_read(*, group: str, scope: Scope, runner: Runner | None = None) -> GraphState:
    """The graph's current state over `scope` (inside `runner`'s transaction when given), read under the group's
    keys: another group's node of the same id is another node."""
    nodes: dict[str, NodeState | None] = dict.fromkeys(scope.nodes)
    if scope.nodes:
        for row in driver.rows(runner, NODES, ids=sorted(scope.nodes), group=group):
            nodes[row["id"]] = NodeState.of(row["labels"], row["props"])
    edges: dict[str, EdgeState | None] = dict.fromkeys(scope.edges)
    if scope.edges:
        for row in driver.rows(runner, EDGES, ids=sorted(scope.edges), group=group):
            if edges.get(row["id"]) is not None:
                raise StaleEdit(f"fact id {row['id']!r} is held by two facts; it cannot be curated")
            edges[row["id"]] = EdgeState.of(row["source"], row["target"], row["props"])
    links: dict[Link, bool] = dict.fromkeys(scope.links, False)
    by_type: dict[str, list[Link]] = defaultdict(list)
    for link in scope.links:
        by_type[link.type].append(link)
    for link_type, wanted in sorted(by_type.items()):
        pairs = [{"source": link.source, "target": link.target} for link in wanted]
        for row in driver.rows(runner, LINKS.format(type=link_type), pairs=pairs, group=group):
            links[Link(link_type, row["source"], row["target"])] = True
    return GraphState(nodes, edges, links)


def _describe_difference(expected: GraphState, current: GraphState) -> str:
    for kind, wanted, found in (("node", expected.nodes, current.nodes), ("fact", expected.edges, current.edges)):
        for key in sorted(wanted):
            if wanted[key] != found.get(key):
                if found.get(key) is None:
                    return f"{kind} {key!r} no longer exists"
                if wanted[key] is None:
                    return f"{kind} {key!r} exists now"
                return f"{kind} {key!r} changed (version {wanted[key].version()} expected, {found[key].version()} now)"
    for link, present in sorted(expected.links.items(), key=lambda item: (item[0].type, item[0].source)):
        if current.links.get(link) != present:
            return f"{link.type} {link.source} → {link.target} was {'removed' if present else 'added'}"
    return "the items changed"


def _labels_text(labels: Iterable[str]) -> str:
    allowed = {kinds.MEMORY_LABEL, *kinds.NODE_KINDS, *kinds.entity_labels()}
    refused = sorted(set(labels) - allowed)
    if refused:
        raise StaleEdit(f"labels {refused} are not allowed here; the node cannot be restored")
    return ":".join(sorted(set(labels) | {kinds.MEMORY_LABEL}))


def _check_detached(runner: Runner, group: str, doomed: Collection[str], scope: Scope) -> None:
    """A node the change deletes must have no relationship the scope does not account for (one added meanwhile)."""
    if not doomed:
        return
    for row in runner.run(INCIDENT, ids=sorted(doomed), group=group):
        known = (
            row["edge_id"] in scope.edges
            if row["type"] == kinds.RELATES
            else (
                row["type"] in (kinds.MENTIONS, kinds.HAS_MEMBER)
                and Link(row["type"], row["source"], row["target"]) in scope.links
            )
        )
        if not known:
            raise CurationConflict(f"{row['node']!r} gained a {row['type']} relationship meanwhile; reload and retry")


def _existing(runner: Runner, group: str, ids: Collection[str]) -> set[str]:
    return {row["id"] for row in runner.run(NAMES, ids=sorted(ids), group=group)} if ids else set()


def _node_statements(expected: GraphState, target: GraphState) -> tuple[list, list]:
    """Statements creating nodes (run first, so edges can reach them) and updating them (run after the edges)."""
    created: dict[str, list[dict[str, Any]]] = defaultdict(list)
    updated: list[dict[str, Any]] = []
    for key, node in sorted(target.nodes.items()):
        old = expected.nodes[key]
        if node is None or node == old:
            continue
        if old is None:
            created[_labels_text(node.labels)].append({"props": dict(node.props)})
        elif old.labels != node.labels or old.name != node.name:
            # A rename would change the text of the node's facts outside the scope: not a curation change.
            raise ValueError(f"node {key!r}: curation changes neither labels nor names")
        else:
            updated.append({"id": key, "props": dict(node.props)})
    creating = [(CREATE_NODES.format(labels=labels), {"rows": rows}) for labels, rows in sorted(created.items())]
    return creating, ([(UPDATE_NODES, {"rows": updated})] if updated else [])


def _edge_statements(expected: GraphState, target: GraphState) -> list[tuple[str, dict[str, Any]]]:
    created, updated, moved, deleted = [], [], [], []
    for key, edge in sorted(target.edges.items()):
        old = expected.edges[key]
        if edge == old:
            continue
        if edge is None:
            deleted.append({"id": key, "source": old.source, "target": old.target})
            continue
        row = {"id": key, "source": edge.source, "target": edge.target, "props": {"id": key, **edge.props}}
        if old is None:
            created.append(row)
        elif (old.source, old.target) == (edge.source, edge.target):
            updated.append(row)
        else:
            moved.append({**row, "old_source": old.source, "old_target": old.target})
    batches = ((DELETE_EDGES, deleted), (MOVE_EDGES, moved), (UPDATE_EDGES, updated), (CREATE_EDGES, created))
    return [(query, {"rows": rows}) for query, rows in batches if rows]


def _link_statements(expected: GraphState, target: GraphState) -> list[tuple[str, dict[str, Any]]]:
    statements = []
    for link_type in sorted({link.type for link in target.links}):
        wanted = [link for link in target.links if link.type == link_type]
        add = [{"source": x.source, "target": x.target} for x in wanted if target.links[x] and not expected.links[x]]
        drop = [{"source": x.source, "target": x.target} for x in wanted if expected.links[x] and not target.links[x]]
        if drop:
            statements.append((DELETE_LINKS.format(type=link_type), {"rows": drop}))
        if add:
            statements.append((CREATE_LINKS.format(rel_type=link_type), {"rows": add}))
    return statements


def _claimed(expected: GraphState, target: GraphState) -> set[str]:
    """Every node the change reads or writes: its nodes, the ends of its edges and of its links."""
    nodes = set(expected.nodes) | set(target.nodes)
    for edges in (expected.edges, target.edges):
        nodes.update(end for edge in edges.values() if edge for end in (edge.source, edge.target))
    nodes.update(end for link in expected.links for end in (link.source, link.target))
    return nodes


def state_apply(runner: Runner, *, group: str, expected: GraphState, target: GraphState) -> AppliedChange:
    """Inside one transaction: raise CurationConflict unless the graph holds `expected`, then write `target`."""
    if not expected.same_scope(target):
        raise ValueError("before and after of a change must cover the same items")
    scope = Scope.of(expected)
    nodes_claim(runner, group=group, ids=_claimed(expected, target))  # before reading: concurrent writers take turns
    current = state_read(group=group, scope=scope, runner=runner)
    if current != expected:
        raise CurationConflict(_describe_difference(expected, current))
    doomed = sorted(key for key, node in target.nodes.items() if node is None and expected.nodes[key] is not None)
    _check_detached(runner, group, doomed, scope)
    ends = {end for edge in target.edges.values() if edge for end in (edge.source, edge.target)}
    kept = {key for key, node in target.nodes.items() if node is not None}
    missing = sorted(ends - kept - _existing(runner, group, ends - set(target.nodes)))
    if missing:
        raise CurationConflict(f"node(s) {', '.join(missing)} no longer exist")

    creating, updating = _node_statements(expected, target)
    statements = [*creating, *_edge_statements(expected, target), *updating, *_link_statements(expected, target)]
    if doomed:
        statements.append((DELETE_NODES, {"ids": doomed}))
    unembedded = {key for key, node in target.nodes.items() if node is not None and expected.nodes[key] is None}
    unembedded |= {key for key, edge in target.edges.items() if edge is not None and expected.edges[key] is None}
    for query, parameters in statements:
        written = runner.run(query, {**parameters, "group": group})
        unembedded.update(record["unembedded"] for record in written)  # writes return none
    # In-memory copies of the group see it changed, exactly when it did, and re-read the nodes it touched.
    touched = set(expected.nodes) | set(target.nodes)
    for edges in (expected.edges, target.edges):
        touched.update(end for edge in edges.values() if edge for end in (edge.source, edge.target))
    # A moved mention changes its episode's edges too: graph projections re-read both ends of every link.
    moved = [link for link, present in target.links.items() if present != expected.links[link]]
    touched.update(end for link in moved for end in (link.source, link.target))
    group_version_bump(runner, group, touched=touched)
    return AppliedChange(tuple(sorted(unembedded)))
