"""The curation endpoints through the real API: roles, group access, bodies, conflicts, audit listing and undo."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from memoria.admission.problems import FINAL_CONFLICT_NOTE
from memoria.curation.models import AuditEntry
from memoria.interchange.exporter import graph_document_export
from tests.curation.memory import edge_id, graph_snapshot, node_id, store_curation_memory


@pytest.fixture
def memory(group: str) -> str:
    store_curation_memory(group)
    return group


def send(client: APIClient, method: str, url: str, body: object = None):
    data = None if body is None else json.dumps(body)
    return getattr(client, method)(url, data=data, content_type="application/json")


def edge_url(group: str, key: str, suffix: str = "") -> str:
    return f"/api/groups/{group}/edges/{quote(edge_id(group, key))}{suffix}"


def test_viewers_read_an_edge_as_the_inspector_shows_it(client_for, memory: str) -> None:
    response = client_for("viewer", [memory]).get(edge_url(memory, "lives"))
    assert response.status_code == 200, response.content
    edge = response.json()
    assert edge["relation"] == "lives_in" and edge["fact"] == "Liv lives in Tallinn" and edge["weight"] == 0.6
    assert edge["source"] == {"id": node_id(memory, "liv"), "name": "Liv Varga", "labels": ["Entity"]}
    assert edge["target"]["name"] == "Tallinn" and edge["category"] == "SPATIAL" and edge["tags"] == ["home"]
    assert edge["valid_at"] == "2024-03-01T00:00:00Z" and edge["invalid_at"] is None and edge["expired_at"] is None
    assert edge["episodes"] == [
        {
            "id": node_id(memory, "ep1"),
            "found": True,
            "name": "message 1",
            "valid_at": "2024-03-01T10:00:00Z",
            "source": "message",
        }
    ]
    assert len(edge["version"]) == 16


def test_a_curator_edits_and_the_answer_carries_the_entry_and_the_edge(client_for, memory: str) -> None:
    curator = client_for("curator", [memory], username="carla")
    version = curator.get(edge_url(memory, "lives")).json()["version"]
    response = send(curator, "patch", edge_url(memory, "lives"), {"weight": 0.9, "tags": ["Home"], "version": version})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["edge"]["weight"] == 0.9 and body["edge"]["version"] != version
    entry = body["entry"]
    assert (
        entry["actor"] == "carla" and entry["action"] == "edge.update" and entry["item_id"] == edge_id(memory, "lives")
    )
    assert {"field": "weight", "before": 0.6, "after": 0.9} in [
        {k: c[k] for k in ("field", "before", "after")} for c in entry["changes"] if c["change"] == "updated"
    ]
    stale = send(curator, "patch", edge_url(memory, "lives"), {"weight": 0.5, "version": version})
    assert stale.status_code == 409 and stale.json()["code"] == "conflict"
    assert "changed since you read it" in stale.json()["detail"]


def test_viewers_get_403_and_nothing_changes(client_for, memory: str) -> None:
    viewer = client_for("viewer", [memory])
    exported = graph_document_export(group=memory)
    attempts = [
        ("patch", edge_url(memory, "lives"), {"weight": 0.9}),
        ("delete", edge_url(memory, "lives"), None),
        ("post", edge_url(memory, "lives", "/invalidate"), {}),
        (
            "post",
            f"/api/groups/{memory}/edges",
            {"source": node_id(memory, "liv"), "target": node_id(memory, "maren"), "relation": "r", "weight": 0.5},
        ),
        ("post", f"/api/groups/{memory}/entities/{node_id(memory, 'liv')}/merge", {"from": node_id(memory, "livdup")}),
    ]
    for method, url, body in attempts:
        response = send(viewer, method, url, body)
        assert response.status_code == 403, (method, url, response.content)
        assert "curator role" in response.json()["detail"]
    assert graph_document_export(group=memory) == exported and AuditEntry.objects.count() == 0
    assert viewer.get(f"/api/groups/{memory}/audit").status_code == 200  # reading the audit is allowed


def test_other_groups_and_unknown_items_are_404(client_for, memory: str) -> None:
    stranger = client_for("curator", ["elsewhere"], username="stranger")
    assert stranger.get(edge_url(memory, "lives")).status_code == 404
    assert send(stranger, "patch", edge_url(memory, "lives"), {"weight": 0.9}).status_code == 404
    assert stranger.get(f"/api/groups/{memory}/audit").status_code == 404
    curator = client_for("curator", [memory, "elsewhere"])
    assert curator.get(f"/api/groups/{memory}/edges/nope").status_code == 404
    # The edge exists, but in another group than the one in the URL: not found, with no hint.
    assert curator.get(f"/api/groups/elsewhere/edges/{quote(edge_id(memory, 'lives'))}").json()["code"] == "not_found"
    missing = send(curator, "post", f"/api/groups/{memory}/entities/nobody/merge", {"from": node_id(memory, "livdup")})
    assert missing.status_code == 404
    assert send(curator, "post", f"/api/groups/{memory}/audit/99999/undo").status_code == 404
    assert APIClient().get(edge_url(memory, "lives")).status_code == 401


@pytest.mark.parametrize(
    ("method", "suffix", "body", "field"),
    [
        ("patch", "", {"weight": 2}, "edge.weight"),
        ("patch", "", {"tags": [1, 2]}, "edge.tags"),
        ("patch", "", {"category": "NOPE"}, "edge.category"),
        ("patch", "", {"relation": ""}, "edge.relation"),
        ("patch", "", {"weight": 0.5, "owner": "me"}, "edge: unknown field(s) owner"),
        ("patch", "", [1, 2], "edge: must be a JSON object"),
        ("patch", "", {"weight": 0.5, "version": 3}, "edge.version"),
        ("post", "/invalidate", {"invalid_at": "tomorrow"}, "invalidate.invalid_at"),
        ("post", "/invalidate", {"reason": "x"}, "invalidate: unknown field(s) reason"),
        ("delete", "", {"force": True}, "delete: unknown field(s) force"),
    ],
)
def test_bad_bodies_answer_400_naming_the_field_and_write_nothing(
    client_for, memory: str, method: str, suffix: str, body: object, field: str
) -> None:
    curator = client_for("curator", [memory])
    exported = graph_document_export(group=memory)
    response = send(curator, method, edge_url(memory, "lives", suffix), body)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid" and field in response.json()["detail"]
    assert graph_document_export(group=memory) == exported and AuditEntry.objects.count() == 0


def test_malformed_json_is_400(client_for, memory: str) -> None:
    response = client_for("curator", [memory]).patch(
        edge_url(memory, "lives"), data="{oops", content_type="application/json"
    )
    assert response.status_code == 400


def test_add_an_edge_then_delete_it_then_undo_both(client_for, memory: str) -> None:
    curator = client_for("curator", [memory])
    before = graph_snapshot(memory)
    body = {
        "source": node_id(memory, "maren"),
        "target": node_id(memory, "globex"),
        "relation": "visits",
        "weight": 0.5,
    }
    created = send(curator, "post", f"/api/groups/{memory}/edges", body)
    assert created.status_code == 201, created.content
    new_id = created.json()["edge"]["id"]
    assert created.json()["edge"]["source"]["name"] == "Maren"
    again = send(curator, "post", f"/api/groups/{memory}/edges", body)
    assert again.status_code == 409
    loop = send(curator, "post", f"/api/groups/{memory}/edges", {**body, "target": body["source"]})
    assert loop.status_code == 400 and "edge.target" in loop.json()["detail"]
    version = curator.get(f"/api/groups/{memory}/edges/{new_id}").json()["version"]
    deleted = curator.delete(f"/api/groups/{memory}/edges/{new_id}?version={version}")
    assert deleted.status_code == 200 and deleted.json()["edge"] is None
    assert curator.get(f"/api/groups/{memory}/edges/{new_id}").status_code == 404
    # The add can no longer be undone: the delete is the latest change to that edge.
    first = send(curator, "post", f"/api/groups/{memory}/audit/{created.json()['entry']['id']}/undo")
    assert first.status_code == 409 and "only the latest change" in first.json()["detail"]
    for entry in (deleted.json()["entry"]["id"], created.json()["entry"]["id"]):
        response = send(curator, "post", f"/api/groups/{memory}/audit/{entry}/undo")
        assert response.status_code == 200, response.content
        assert response.json()["entry"]["undoes"] == entry
    assert graph_snapshot(memory) == before


def test_invalidate_over_the_api(client_for, memory: str) -> None:
    curator = client_for("curator", [memory])
    response = send(curator, "post", edge_url(memory, "lives", "/invalidate"), {"invalid_at": "2024-06-01T00:00:00Z"})
    assert response.status_code == 200, response.content
    assert response.json()["edge"]["invalid_at"] == "2024-06-01T00:00:00Z"
    assert response.json()["edge"]["expired_at"] is not None
    again = send(curator, "post", edge_url(memory, "lives", "/invalidate"))
    assert again.status_code == 409 and again.json()["code"] == "conflict"
    assert "retry_after" not in again.json() and "Retry-After" not in again  # no retry can end it twice
    assert again.json()["detail"].endswith(f"({FINAL_CONFLICT_NOTE})"), again.json()


def test_merge_and_undo_over_the_api(client_for, memory: str) -> None:
    curator = client_for("curator", [memory])
    before = graph_snapshot(memory)
    url = f"/api/groups/{memory}/entities/{quote(node_id(memory, 'liv'))}/merge"
    response = send(curator, "post", url, {"from": node_id(memory, "livdup")})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["entity"]["name"] == "Liv Varga" and body["entry"]["action"] == "entity.merge"
    assert curator.get(edge_url(memory, "works")).json()["source"]["id"] == node_id(memory, "liv")
    undo = send(curator, "post", f"/api/groups/{memory}/audit/{body['entry']['id']}/undo")
    assert undo.status_code == 200, undo.content
    assert graph_snapshot(memory) == before


def test_audit_lists_newest_first_in_pages_and_filters_by_item(client_for, memory: str) -> None:
    curator = client_for("curator", [memory])
    for weight in (0.7, 0.8, 0.9):
        send(curator, "patch", edge_url(memory, "lives"), {"weight": weight})
    send(curator, "patch", edge_url(memory, "sister"), {"weight": 0.4})
    viewer = client_for("viewer", [memory], username="vera")
    page = viewer.get(f"/api/groups/{memory}/audit?limit=2").json()
    assert [entry["changes"][0]["after"] for entry in page["entries"]] == [0.4, 0.9]
    assert all("before" in entry and "after" in entry for entry in page["entries"])
    rest = viewer.get(f"/api/groups/{memory}/audit?limit=2&before={page['next_before']}").json()
    assert [entry["changes"][0]["after"] for entry in rest["entries"]] == [0.8, 0.7] and rest["next_before"] is None
    only = viewer.get(f"/api/groups/{memory}/audit?item_id={quote(edge_id(memory, 'lives'))}&item_kind=edge").json()
    assert len(only["entries"]) == 3 and only["entries"][0]["undoable"] and not only["entries"][1]["undoable"]
    for query, field in (
        ("limit=0", "limit"),
        ("limit=500", "limit"),
        ("item_kind=node", "item_kind"),
        ("page=2", "page"),
    ):
        response = viewer.get(f"/api/groups/{memory}/audit?{query}")
        assert response.status_code == 400 and field in response.json()["detail"], query
    assert send(viewer, "post", f"/api/groups/{memory}/audit/{page['entries'][0]['id']}/undo").status_code == 403
    assert (
        send(curator, "post", f"/api/groups/{memory}/audit/{page['entries'][0]['id']}/undo", {"x": 1}).status_code
        == 400
    )
