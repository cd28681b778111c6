"""Validation of graph documents: every rule of docs/import-format.md, each problem named by its item."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from memoria.errors import InvalidGraphDocument
from memoria.graph.rules import derived_edge_id
from memoria.interchange.document import load_graph_document, parse_graph_document


def document(**overrides: object) -> dict:
    base = {
        "nodes": [
            {"id": "a", "name": "Alpha", "labels": ["Entity", "DataSource"]},
            {"id": "b", "name": "Beta"},
            {
                "id": "ep",
                "name": "msg",
                "labels": ["Episode"],
                "content": "hi",
                "valid_at": "2025-01-02T03:04:05+02:00",
            },
        ],
        "edges": [{"source": "a", "target": "b", "relation": "feeds", "weight": 0.5, "tags": ["Stock Out", "x"]}],
        "mentions": [{"episode": "ep", "entity": "a"}],
    }
    base.update(overrides)
    return base


def problems_of(data: object) -> list[str]:
    with pytest.raises(InvalidGraphDocument) as caught:
        parse_graph_document(data, group="g")
    return caught.value.problems


def test_valid_document_is_normalised() -> None:
    parsed = parse_graph_document(document(), group="g")
    alpha, beta, episode = parsed.nodes
    assert (alpha.kind, alpha.extra_labels) == ("Entity", ("DataSource",))
    assert beta.kind == "Entity"
    assert episode.kind == "Episode" and episode.valid_at == "2025-01-02T01:04:05Z"
    (edge,) = parsed.edges
    assert edge.tags == ("stock_out", "x")
    assert edge.id == derived_edge_id("g", "a", "feeds", "b")
    assert parsed.mentions[0].source == "ep"


def test_derived_edge_ids_differ_by_group() -> None:
    assert derived_edge_id("g1", "a", "r", "b") != derived_edge_id("g2", "a", "r", "b")


@pytest.mark.parametrize(
    ("edge_change", "expected"),
    [
        ({"weight": 1.5}, "edges[0].weight: 1.5 is outside [0.25, 1.0]"),
        ({"weight": 0.1}, "edges[0].weight: 0.1 is outside [0.25, 1.0]"),
        ({"weight": "heavy"}, "edges[0].weight: must be a number in [0.25, 1.0]"),
        ({"weight": True}, "edges[0].weight: must be a number in [0.25, 1.0]"),
        ({"relation": ""}, "edges[0].relation: must not be empty"),
        ({"tags": "x"}, "edges[0].tags: must be a list of strings"),
        ({"tags": ["t"] * 33}, "edges[0].tags: has 33 tags; at most 32 are allowed"),
        ({"category": "MAGIC"}, "edges[0].category: must be one of"),
        ({"valid_at": "yesterday"}, "edges[0].valid_at: 'yesterday' is not a usable ISO 8601 date-time"),
        ({"valid_at": "2025-01-01T00:00:00"}, "has no time zone"),
        ({"valid_at": "2025-02-01T00:00:00Z", "invalid_at": "2025-01-01T00:00:00Z"}, "edges[0].invalid_at: is before"),
        ({"colour": "red"}, "edges[0]: unknown key(s) 'colour'"),
        ({"source": "a b"}, "edges[0].source: 'a b' may hold only"),
        ({"target": "a"}, "edges[0].target: must differ from source"),
    ],
)
def test_bad_edges_are_named(edge_change: dict, expected: str) -> None:
    edge = {"source": "a", "target": "b", "relation": "feeds", "weight": 0.5, "tags": []} | edge_change
    problems = problems_of(document(edges=[edge]))
    assert any(expected in problem for problem in problems), problems


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        ({"id": "c", "name": "C", "labels": ["Villain"]}, "nodes[3].labels: label 'Villain' is not allowed"),
        ({"id": "c", "name": "C", "labels": ["Person) DETACH DELETE (n"]}, "is not allowed"),
        ({"id": "c", "name": "C", "labels": ["Episode", "Entity"]}, "has more than one kind label"),
        ({"id": "c", "name": "C", "labels": ["Episode", "Event"]}, "label 'Event' is only allowed on entities"),
        ({"id": "c", "name": "C", "content": "x"}, "nodes[3].content: is only allowed on episodes"),
        ({"id": "c", "name": ""}, "nodes[3].name: must not be empty"),
        ({"id": "c"}, "nodes[3].name: is required"),
        ({"id": "a", "name": "again"}, "nodes[3].id: 'a' appears twice"),
        ({"id": "c", "name": "C", "properties": {"Bad Key": 1}}, "key 'Bad Key' must match"),
        ({"id": "c", "name": "C", "properties": {"k": {"nested": 1}}}, "nodes[3].properties.k: must be a string"),
        ({"id": "c", "name": "C", "labels": ["Episode"], "source": "fax"}, "nodes[3].source: must be one of"),
        ("just a string", "nodes[3]: must be an object, not str"),
    ],
)
def test_bad_nodes_are_named(node: object, expected: str) -> None:
    base = document()
    problems = problems_of(document(nodes=[*base["nodes"], node]))
    assert any(expected in problem for problem in problems), problems


def test_links_must_join_the_right_kinds() -> None:
    problems = problems_of(document(mentions=[{"episode": "a", "entity": "b"}]))
    assert any("mentions[0]" in p and "'a' is a Entity, expected Episode" in p for p in problems), problems


def test_top_level_shape() -> None:
    assert problems_of([]) == ["document: must be a JSON object, not list"]
    assert "nodes: is required and must be a list" in problems_of({"edges": []})
    assert any("unknown key(s) 'extra'" in p for p in problems_of({"nodes": [], "edges": [], "extra": 1}))


def test_every_problem_is_reported_at_once() -> None:
    bad_edge = {"source": "a", "target": "b", "relation": "r", "weight": 9, "tags": []}
    problems = problems_of(document(edges=[bad_edge, bad_edge | {"weight": -1}]))
    assert [p.split(":")[0] for p in problems] == ["edges[0].weight", "edges[1].weight"]


def test_malformed_and_deep_json() -> None:
    with pytest.raises(InvalidGraphDocument, match="malformed JSON"):
        load_graph_document('{"nodes": [', group="g")
    with pytest.raises(InvalidGraphDocument, match=r"malformed JSON|nested too deeply"):
        load_graph_document("[" * 100_000 + "]" * 100_000, group="g")
    assert load_graph_document(json.dumps(document()), group="g").nodes


@override_settings(MEMORIA_EXTRA_ENTITY_LABELS=["Supplier"])
def test_configured_extra_labels_are_allowed() -> None:
    data = document(nodes=[{"id": "s", "name": "ACME", "labels": ["Supplier"]}], edges=[], mentions=[])
    assert parse_graph_document(data, group="g").nodes[0].extra_labels == ("Supplier",)


def test_a_bad_key_is_named_once_and_never_quoted_as_a_path() -> None:
    properties = {"Bad: key\x01": {"nested": 1}, "good": {"x": 1}}
    base = {"nodes": [{"id": "a", "name": "A", "properties": properties}], "edges": []}
    found = problems_of(base)
    assert any("key 'Bad: key\\x01' must match" in problem for problem in found), found
    assert "nodes[0].properties.good: must be a string" in " ".join(found)
    assert not [problem for problem in found if problem.startswith("nodes[0].properties.Bad")], found
