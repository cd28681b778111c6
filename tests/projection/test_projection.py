"""A projection loaded from the real server holds exactly the stored graph, whatever the paging."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from memoria.graph import driver, kinds
from memoria.projection.projection import (
    CATEGORIES,
    MENTIONS_LINK,
    NO_CATEGORY,
    RELATES_LINK,
    Projection,
    projection_load,
)
from tests.projection.graphs import random_memory, store, stored_edges


def projected_edges(projection: Projection) -> Counter:
    link_names = {RELATES_LINK: kinds.RELATES, MENTIONS_LINK: kinds.MENTIONS}
    return Counter(
        (
            projection.ids[source],
            projection.ids[target],
            link_names[int(link)],
            float(weight),
            CATEGORIES[category] if category != NO_CATEGORY else None,
        )
        for source, target, weight, category, link in zip(
            projection.sources,
            projection.targets,
            projection.weights,
            projection.categories,
            projection.links,
            strict=True,
        )
    )


@pytest.fixture
def memory(group: str) -> str:
    store(group, random_memory(group, entities=80, episodes=12, facts=300, seed=5))
    return group


def test_the_projection_is_the_stored_graph(memory: str) -> None:
    projection = projection_load(group=memory)
    stored_ids = sorted(row["id"] for row in driver.read("MATCH (n:Memory {group_id: $g}) RETURN n.id AS id", g=memory))
    assert list(projection.ids) == stored_ids
    assert projected_edges(projection) == stored_edges(memory)
    assert projection.edge_count == 300 + 12 * 3
    for position, node_id in enumerate(projection.ids):
        assert projection.position(node_id) == position
        assert projection.kind(position) == (kinds.EPISODE if "-p" in node_id else kinds.ENTITY)
    assert projection.names[projection.position(f"{memory}-e3")] == "entity 3"
    # CSR by source: each node's edges are contiguous and sorted by target.
    assert projection.indptr[0] == 0 and projection.indptr[-1] == projection.edge_count
    for node in range(projection.size):
        row = projection.targets[projection.indptr[node] : projection.indptr[node + 1]]
        assert np.all(np.diff(row) >= 0)


@pytest.mark.parametrize(("page_nodes", "workers"), [(1, 1), (7, 2), (10_000, 2)])
def test_paging_never_changes_the_projection(memory: str, page_nodes: int, workers: int) -> None:
    reference = projection_load(group=memory)
    progress: list[tuple[int, int]] = []
    paged = projection_load(
        group=memory, page_nodes=page_nodes, workers=workers, progress=lambda d, t: progress.append((d, t))
    )
    assert paged.ids == reference.ids
    for name in ("indptr", "targets", "weights", "categories", "links"):
        assert np.array_equal(getattr(paged, name), getattr(reference, name)), name
    pages = -(-reference.size // page_nodes)
    assert progress == [(done, pages) for done in range(1, pages + 1)]


def test_odd_stored_weights_and_foreign_ends(group: str, memory: str) -> None:
    # Written behind the importer's back: a fact without weight, one with a negative weight, one into another group.
    driver.write(
        "CREATE (:Memory:Entity {id: $id, group_id: $g, name: 'elsewhere'})", id=f"{group}-foreign", g=f"{group}-x"
    )
    driver.write(
        """
        MATCH (a:Memory {id: $a}), (b:Memory {id: $b}), (c:Memory {id: $c})
        CREATE (a)-[:RELATES {id: $a + '-odd1', group_id: $g, relation: 'x'}]->(b)
        CREATE (a)-[:RELATES {id: $a + '-odd2', group_id: $g, relation: 'y', weight: -2.0}]->(b)
        CREATE (a)-[:RELATES {id: $a + '-odd3', group_id: $g, relation: 'z', weight: 0.5}]->(c)
        """,
        a=f"{memory}-e1",
        b=f"{memory}-e2",
        c=f"{group}-foreign",
        g=memory,
    )
    try:
        projection = projection_load(group=memory)
    finally:
        driver.write("MATCH (n:Memory {id: $id}) DETACH DELETE n", id=f"{group}-foreign")
    source, target = projection.position(f"{memory}-e1"), projection.position(f"{memory}-e2")
    row = slice(projection.indptr[source], projection.indptr[source + 1])
    to_target = projection.targets[row] == target
    odd = sorted(projection.weights[row][to_target & (projection.categories[row] == NO_CATEGORY)].tolist())
    assert 0.0 in odd and 1.0 in odd  # negative: never walked; missing: an ordinary weight of 1
    assert projection.edge_count == 300 + 12 * 3 + 2  # the edge into another group is left out


def test_an_empty_group_loads_as_an_empty_projection(group: str) -> None:
    projection = projection_load(group=group)
    assert projection.size == 0 and projection.edge_count == 0 and projection.indptr.tolist() == [0]
    assert projection.walk(directed=False, mentions=True).size == 0


def test_walks_are_built_once_and_can_leave_mentions_out(memory: str) -> None:
    projection = projection_load(group=memory)
    everything = projection.walk(directed=False, mentions=True)
    assert projection.walk(directed=False, mentions=True) is everything
    facts_only = projection.walk(directed=True, mentions=False)
    episodes = [projection.position(f"{memory}-p{index}") for index in range(12)]
    assert all(facts_only.forward[facts_only.slot[episode]].nnz == 0 for episode in episodes)
    assert all(everything.forward[everything.slot[episode]].nnz == 3 for episode in episodes)


def test_mention_roles_and_synonymy_get_their_categories(memory: str) -> None:
    episode, entity, other = f"{memory}-p0", f"{memory}-e70", f"{memory}-e71"
    driver.write(
        """
        MATCH (p:Memory {id: $p}), (e:Memory {id: $e}), (o:Memory {id: $o})
        CREATE (p)-[:MENTIONS {role: 'PRIMARY'}]->(e)
        CREATE (e)-[:RELATES {id: $e + '-syn', group_id: $g, relation: 'same_as', relation_category: 'SYNONYMY',
                              weight: 0.9}]->(o)
        """,
        p=episode,
        e=entity,
        o=other,
        g=memory,
    )
    projection = projection_load(group=memory)
    source, target = projection.position(episode), projection.position(entity)
    row = slice(projection.indptr[source], projection.indptr[source + 1])
    roles = projection.categories[row][projection.targets[row] == target]
    assert CATEGORIES.index("PRIMARY") in roles.tolist()
    source, target = projection.position(entity), projection.position(other)
    row = slice(projection.indptr[source], projection.indptr[source + 1])
    synonym = (projection.targets[row] == target) & (projection.weights[row] == 0.9)
    assert projection.categories[row][synonym].tolist() == [CATEGORIES.index("ATTRIBUTION")]


STORED_FACTS = """
MATCH (a:Memory {group_id: $g})-[r:RELATES]->(b:Memory {group_id: $g})
RETURN a.id AS source, b.id AS target, r.id AS id, r.relation AS relation, r.weight AS weight, r.tags AS tags,
       r.relation_category AS category, r.valid_at AS valid_at, r.invalid_at AS invalid_at,
       r.created_at AS created_at, r.expired_at AS expired_at
"""
STORED_NODES = """
MATCH (n:Memory {group_id: $g})
RETURN n.id AS id, n.name AS name, labels(n) AS labels, COUNT { (n)-[:RELATES]-() } AS degree
"""


def test_facts_and_nodes_hold_what_activation_reads(group: str, memory: str) -> None:
    driver.write(
        """
        MATCH (a:Memory {id: $a}), (b:Memory {id: $b})
        CREATE (a)-[:RELATES {id: $a + '-bare', group_id: $g}]->(b)
        CREATE (a)-[:RELATES {id: $a + '-dated', group_id: $g, relation: 'r', weight: 0.5, tags: ['x', 'y', 'x'],
                              valid_at: '2024-01-01T00:00:00Z', expired_at: '2024-02-01T00:00:00Z'}]->(b)
        CREATE (:Memory:Entity {id: $g + '-unnamed', group_id: $g})
        """,
        a=f"{memory}-e1",
        b=f"{memory}-e2",
        g=memory,
    )
    projection = projection_load(group=memory)
    facts = projection.facts
    relates = np.flatnonzero(projection.links == RELATES_LINK)
    sources = projection.sources
    projected = Counter(
        (
            projection.ids[sources[edge]],
            projection.ids[projection.targets[edge]],
            facts.ids[edge],
            facts.relation(edge),
            facts.weight(edge),
            facts.tags(edge),
            CATEGORIES[projection.categories[edge]] if projection.categories[edge] != NO_CATEGORY else None,
            *(facts.validity[name].value(edge) for name in ("valid_at", "invalid_at", "created_at", "expired_at")),
        )
        for edge in relates.tolist()
    )
    stored = Counter(
        (
            row["source"],
            row["target"],
            row["id"],
            row["relation"],
            row["weight"],
            tuple(row["tags"] or ()),
            row["category"],
            row["valid_at"],
            row["invalid_at"],
            row["created_at"],
            row["expired_at"],
        )
        for row in driver.read(STORED_FACTS, g=memory)
    )
    assert projected == stored
    assert facts.weight(facts.ids.index(f"{memory}-e1-bare")) is None
    assert facts.tags(facts.ids.index(f"{memory}-e1-dated")) == ("x", "y", "x")
    ranks = facts.id_ranks[relates]
    assert [facts.ids[edge] for edge in relates[np.argsort(ranks)]] == sorted(facts.ids[edge] for edge in relates)
    for row in driver.read(STORED_NODES, g=memory):
        position = projection.position(row["id"])
        assert projection.name(position) == row["name"]
        assert projection.labels(position) == tuple(row["labels"])
        assert projection.relates_degrees[position] == row["degree"]
    assert projection.name(projection.position(f"{memory}-unnamed")) is None
    assert projection.memory_bytes() > 0


def test_incidence_lists_each_fact_from_both_ends(memory: str) -> None:
    projection = projection_load(group=memory)
    incidence = projection.incidence()
    assert projection.incidence() is incidence
    seen = Counter()
    for node in range(projection.size):
        entries = slice(incidence.indptr[node], incidence.indptr[node + 1])
        for neighbour, edge, outgoing in zip(
            incidence.neighbours[entries], incidence.edges[entries], incidence.outgoing[entries], strict=True
        ):
            source, target = (node, neighbour) if outgoing else (neighbour, node)
            assert (projection.sources[edge], projection.targets[edge]) == (source, target)
            assert projection.links[edge] == RELATES_LINK
            seen[int(edge)] += 1
    assert seen == Counter({int(edge): 2 for edge in np.flatnonzero(projection.links == RELATES_LINK)})
    # With no fact into another group, a node's RELATES degree is its incidence.
    assert np.array_equal(np.diff(incidence.indptr), projection.relates_degrees)
