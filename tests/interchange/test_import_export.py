"""Import and export against the real graph server: round trip, upsert in place, and all-or-nothing rejection."""

from __future__ import annotations

import copy

import pytest

from memoria.errors import InvalidGraphDocument
from memoria.graph import driver
from memoria.interchange.document import parse_graph_document
from memoria.interchange.exporter import graph_document_export
from memoria.interchange.importer import graph_document_import
from tests.conftest import count_group


def sample(prefix: str) -> dict:
    return {
        "nodes": [
            {
                "id": f"{prefix}-req",
                "name": "Forecast Q3 demand",
                "labels": ["Entity", "UserRequest"],
                "summary": "A planner asked for a forecast",
                "properties": {"priority": 2, "sku": "SKU-1"},
            },
            {"id": f"{prefix}-ds", "name": "ERP orders", "labels": ["Entity", "DataSource"]},
            {"id": f"{prefix}-ev", "name": "Supplier delay", "labels": ["Entity", "Event"]},
            {
                "id": f"{prefix}-ep",
                "name": "message 1",
                "labels": ["Episode"],
                "content": "Forecast Q3 please",
                "source": "message",
                "source_description": "chat",
                "valid_at": "2025-03-01T09:30:00Z",
            },
            {"id": f"{prefix}-c", "name": "Forecasting", "labels": ["Community"], "summary": "forecast things"},
        ],
        "edges": [
            {
                "source": f"{prefix}-req",
                "target": f"{prefix}-ds",
                "relation": "uses_data",
                "weight": 0.8,
                "tags": ["demand_forecasting", "erp"],
                "fact": "The forecast uses ERP orders",
                "category": "CAUSALITY",
                "valid_at": "2025-03-01T00:00:00Z",
                "episodes": [f"{prefix}-ep"],
            },
            {
                "source": f"{prefix}-ev",
                "target": f"{prefix}-req",
                "relation": "affects",
                "weight": 0.25,
                "tags": [],
                "invalid_at": "2025-04-01T00:00:00Z",
            },
        ],
        "mentions": [{"episode": f"{prefix}-ep", "entity": f"{prefix}-req"}],
        "memberships": [{"community": f"{prefix}-c", "entity": f"{prefix}-req"}],
    }


def do_import(data: dict, group: str):
    return graph_document_import(document=parse_graph_document(data, group=group), group=group)


def without_edge_ids(document: dict) -> dict:
    clone = copy.deepcopy(document)
    for edge in clone["edges"]:
        edge.pop("id", None)
    return clone


def test_round_trip_reproduces_the_document(group: str) -> None:
    data = sample(group)
    report = do_import(data, group)
    assert (report.nodes_created, report.edges_created, report.mentions, report.memberships) == (5, 2, 1, 1)
    exported = graph_document_export(group=group)
    expected = parse_graph_document(data, group=group)
    actual = parse_graph_document(exported, group=group)
    for part in ("nodes", "edges", "mentions", "memberships"):  # export orders by id
        assert sorted(map(repr, getattr(actual, part))) == sorted(map(repr, getattr(expected, part)))
    # Export names the derived edge ids, and re-importing the export changes nothing.
    assert all(edge["id"].startswith("rel-") for edge in exported["edges"])
    again = do_import(exported, group)
    assert (again.nodes_created, again.edges_created, again.nodes_updated, again.edges_updated) == (0, 0, 5, 2)
    assert graph_document_export(group=group) == exported


def test_reimport_updates_in_place_without_duplicates(group: str) -> None:
    data = sample(group)
    do_import(data, group)
    before = count_group(group)
    data["edges"][0]["weight"] = 0.4
    data["nodes"][0]["name"] = "Forecast Q4 demand"
    data["nodes"][1]["labels"] = ["Entity", "Event"]  # relabel DataSource → Event
    do_import(data, group)
    assert count_group(group) == before
    stored = driver.read(
        "MATCH (a:Memory {id: $id})-[r:RELATES]->() RETURN a.name AS name, r.weight AS weight", id=f"{group}-req"
    )
    assert stored == [{"name": "Forecast Q4 demand", "weight": 0.4}]
    labels = driver.read("MATCH (n:Memory {id: $id}) RETURN labels(n) AS labels", id=f"{group}-ds")[0]["labels"]
    assert set(labels) == {"Memory", "Entity", "Event"}


def test_stored_nodes_can_be_referenced_by_later_imports(group: str) -> None:
    do_import(sample(group), group)
    extra = {
        "nodes": [],
        "edges": [
            {
                "source": f"{group}-ds",
                "target": f"{group}-ev",
                "relation": "reports",
                "weight": 0.6,
                "tags": ["lead_time"],
            }
        ],
    }
    assert do_import(extra, group).edges_created == 1


def test_moving_an_edge_id_to_new_endpoints(group: str) -> None:
    data = sample(group)
    data["edges"][0]["id"] = f"{group}-edge"
    do_import(data, group)
    data["edges"][0]["target"] = f"{group}-ev"
    do_import(data, group)
    rows = driver.read("MATCH (a)-[r:RELATES]->(b) WHERE r.id = $id RETURN b.id AS target", id=f"{group}-edge")
    assert rows == [{"target": f"{group}-ev"}]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda d, g: d["edges"].append(
                {"source": f"{g}-req", "target": "ghost", "relation": "r", "weight": 0.5, "tags": []}
            ),
            "edges[2].target: node 'ghost' is neither in the document",
        ),
        (lambda d, g: d["mentions"].append({"episode": f"{g}-ep", "entity": "nobody"}), "mentions[1]"),
        (lambda d, g: d["edges"][0]["episodes"].append(f"{g}-req"), "edges[0].episodes"),
    ],
)
def test_unknown_references_write_nothing(group: str, mutate, expected: str) -> None:
    data = sample(group)
    mutate(data, group)
    with pytest.raises(InvalidGraphDocument) as caught:
        do_import(data, group)
    assert any(expected in problem for problem in caught.value.problems), caught.value.problems
    assert count_group(group) == {"nodes": 0, "edges": 0}


def test_the_same_document_lives_in_two_groups(group: str) -> None:
    """Ids are keyed by group: a document imported into two groups makes two copies, and changing one leaves
    the other as it was."""
    other = f"{group}-other"
    try:
        do_import(sample(group), other)
        before = graph_document_export(group=other)
        do_import(sample(group), group)
        assert count_group(group) == count_group(other)
        ours = graph_document_export(group=group)
        assert {node["id"] for node in ours["nodes"]} == {node["id"] for node in before["nodes"]}
        changed = sample(group)
        changed["nodes"][0]["name"] = "renamed here only"
        do_import(changed, group)
        assert graph_document_export(group=other) == before
    finally:
        driver.write("MATCH (n:Memory {group_id: $g}) DETACH DELETE n", g=other)


def test_a_kind_cannot_change_on_reimport(group: str) -> None:
    data = sample(group)
    do_import(data, group)
    data["nodes"][1]["labels"] = ["Community"]
    with pytest.raises(InvalidGraphDocument, match="is stored as Entity, not Community"):
        do_import(data, group)


def test_large_import_is_batched(group: str) -> None:
    n = 4500
    data = {
        "nodes": [{"id": f"{group}-n{i}", "name": f"node {i}"} for i in range(n)],
        "edges": [
            {
                "source": f"{group}-n{i}",
                "target": f"{group}-n{(i * 7 + 1) % n}",
                "relation": "next",
                "weight": 0.5,
                "tags": ["t"],
            }
            for i in range(n)
        ],
    }
    report = do_import(data, group)
    assert report.round_trips >= 6  # 3 node batches + 3 edge batches of 2000
    assert count_group(group) == {"nodes": n, "edges": n}
