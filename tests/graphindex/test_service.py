"""The graph index service on the real graph server: edges by (source, relation, target), removals that bump the
group version, and breadth-first traversal with every option."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from memoria.errors import InvalidGraphDocument, InvalidInput, NodeNotFound
from memoria.graph import driver
from memoria.graph.versions import group_version
from memoria.graphindex import service as index
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import


def nodes(group: str, names: str) -> dict[str, str]:
    """Entities named by single letters; returns letter → id."""
    ids = {name: f"{group}-{name}" for name in names}
    document = {"nodes": [{"id": i, "name": n} for n, i in ids.items()], "edges": []}
    graph_document_import(document=parse_graph_document(document, group=group), group=group)
    return ids


def chain(group: str) -> dict[str, str]:
    """a -caused_by-> b -caused_by-> c -caused_by-> d, a -references-> e (0.3), e -follows-> a, f alone."""
    ids = nodes(group, "abcdef")
    edges = [
        ("a", "b", "caused_by", 1.0),
        ("b", "c", "caused_by", 0.9),
        ("c", "d", "caused_by", 0.8),
        ("a", "e", "references", 0.3),
        ("e", "a", "follows", 0.5),
    ]
    index.edges_add(
        group=group,
        edges=[{"source": ids[s], "target": ids[t], "relation": r, "weight": w} for s, t, r, w in edges],
    )
    return ids


def test_add_edge_with_metadata_then_read_it_both_ways(group: str) -> None:
    ids = nodes(group, "ab")
    metadata = {"fact": "b was caused by a", "category": "CAUSALITY", "tags": ["Q3 plan"]}
    index.edge_add(group=group, source=ids["a"], target=ids["b"], relation="caused_by", weight=0.7, metadata=metadata)
    [out] = index.outgoing(group=group, node_id=ids["a"])
    assert (out.source, out.target, out.relation, out.weight) == (ids["a"], ids["b"], "caused_by", 0.7)
    assert out.metadata == {"fact": "b was caused by a", "category": "CAUSALITY", "tags": ["q3_plan"]}
    assert out.created_at
    assert index.incoming(group=group, node_id=ids["b"]) == [out]
    assert index.outgoing(group=group, node_id=ids["b"]) == []
    # The same (source, relation, target) again updates in place.
    index.edge_add(group=group, source=ids["a"], target=ids["b"], relation="caused_by", weight=0.4)
    assert index.size(group=group) == 1 and index.outgoing(group=group, node_id=ids["a"])[0].weight == 0.4


def test_has_edge_size_and_node_count(group: str) -> None:
    ids = chain(group)
    assert index.has_edge(group=group, source=ids["a"], target=ids["b"], relation="caused_by")
    assert index.has_edge(group=group, source=ids["a"], target=ids["b"])
    assert not index.has_edge(group=group, source=ids["a"], target=ids["b"], relation="follows")
    assert not index.has_edge(group=group, source=ids["b"], target=ids["a"])
    assert index.size(group=group) == 5
    assert index.node_count(group=group) == 5  # f has no edge


def test_removals_bump_the_group_version_and_report_what_went(group: str) -> None:
    ids = chain(group)
    before = group_version(group=group).version
    assert index.edge_remove(group=group, source=ids["a"], target=ids["b"], relation="caused_by") == 1
    assert group_version(group=group).version == before + 1
    assert not index.has_edge(group=group, source=ids["a"], target=ids["b"])
    assert index.edge_remove(group=group, source=ids["a"], target=ids["b"], relation="caused_by") == 0
    assert group_version(group=group).version == before + 1  # nothing removed, nothing bumped
    assert index.node_remove(group=group, node_id=ids["a"]) == 2  # a→e and e→a
    assert index.size(group=group) == 2
    assert index.outgoing(group=group, node_id=ids["a"]) == []  # the memory itself stays


def test_adding_bumps_the_version_and_bad_edges_write_nothing(group: str) -> None:
    ids = nodes(group, "ab")
    before = group_version(group=group).version
    index.edge_add(group=group, source=ids["a"], target=ids["b"], relation="follows", weight=0.5)
    assert group_version(group=group).version > before
    good = {"source": ids["b"], "target": ids["a"], "relation": "follows", "weight": 0.5}
    with pytest.raises(InvalidGraphDocument, match=r"edges\[1\].weight: 0.1 is outside"):
        index.edges_add(group=group, edges=[good, {**good, "relation": "x", "weight": 0.1}])
    with pytest.raises(InvalidGraphDocument, match="is neither in the document nor stored"):
        index.edges_add(group=group, edges=[{**good, "target": f"{group}-nope"}])
    with pytest.raises(InvalidInput, match=r"edges\[0\]\.metadata: unknown field\(s\) colour"):
        index.edges_add(group=group, edges=[{**good, "metadata": {"colour": "red"}}])
    assert index.size(group=group) == 1


def test_traverse_follows_the_chain_with_depth_relation_weight_and_path(group: str) -> None:
    ids = chain(group)
    options = index.traversal_options(relations=["caused_by"], max_depth=5)
    results = index.traverse(group=group, start=ids["a"], options=options)
    assert [(r.id, r.depth, r.relation, r.weight) for r in results] == [
        (ids["b"], 1, "caused_by", 1.0),
        (ids["c"], 2, "caused_by", 0.9),
        (ids["d"], 3, "caused_by", 0.8),
    ]
    assert results[-1].path == (ids["a"], ids["b"], ids["c"], ids["d"])


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"max_depth": 1}, ["b", "e"]),
        ({"max_depth": 2}, ["b", "e", "c"]),
        ({"max_depth": 3, "min_weight": 0.85}, ["b", "c"]),
        ({"max_depth": 5, "max_results": 2}, ["b", "e"]),
        ({"max_depth": 2, "direction": "in"}, ["e"]),
        ({"max_depth": 1, "direction": "both"}, ["b", "e"]),  # e reached twice (a→e, e→a), listed once
        ({"max_depth": 3, "relations": ["references", "follows"]}, ["e"]),
    ],
)
def test_traverse_options(group: str, options: dict, expected: list[str]) -> None:
    ids = chain(group)
    results = index.traverse(group=group, start=ids["a"], options=index.traversal_options(**options))
    assert [r.id for r in results] == [ids[name] for name in expected]
    assert all(r.path[0] == ids["a"] and r.path[-1] == r.id and len(r.path) == r.depth + 1 for r in results)


def test_cycles_end_the_walk(group: str) -> None:
    ids = chain(group)
    results = index.traverse(group=group, start=ids["e"], options=index.traversal_options(max_depth=10))
    assert [r.id for r in results] == [ids[n] for n in "abcd"]  # a→e leads back to e: not listed again


def test_related_is_one_hop_with_filters(group: str) -> None:
    ids = chain(group)
    options = index.traversal_options(relations=["follows"], direction="in", max_depth=4)
    [result] = index.related(group=group, node_id=ids["a"], options=options)
    assert (result.id, result.depth, result.relation, result.weight) == (ids["e"], 1, "follows", 0.5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"direction": "sideways"}, "direction: must be one of"),
        ({"max_depth": 0}, "max_depth"),
        ({"max_depth": 11}, "max_depth"),
        ({"max_results": 0}, "max_results"),
        ({"min_weight": 1.5}, "min_weight"),
        ({"relations": [""]}, "relation: must be a non-empty string"),
    ],
)
def test_bad_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        index.traversal_options(**options)


def test_nodes_of_other_groups_are_not_found(group: str) -> None:
    ids = chain(group)
    with pytest.raises(NodeNotFound):
        index.outgoing(group="another-group", node_id=ids["a"])
    with pytest.raises(NodeNotFound):
        index.traverse(group="another-group", start=ids["a"], options=index.traversal_options())


def test_bench_index_times_every_operation() -> None:
    out = io.StringIO()
    try:
        call_command("bench", "index", "--edges", "300", "--runs", "3", stdout=out)
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group="bench-index-300")
    text = out.getvalue()
    for operation in ("batches of 1000", "one per call", "remove edge", "outgoing", "related", "traverse", "has edge"):
        assert operation in text
    # 100 nodes and 3,300 edges after the batches: three hops reach every node but the start.
    assert "(99 results on average)" in text
