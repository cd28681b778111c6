"""POST /api/groups/<group>/import and GET …/export: roles, group access, bad input that writes nothing, and
imports that vector search finds at once (or whose failed embedding is reported and left for reindex)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from memoria import embeddings
from memoria.embeddings import embedder
from memoria.graph.rules import derived_edge_id
from memoria.reindex import group_reindex, reindex_backlog
from memoria.search.methods import communities_cosine, entities_cosine, episodes_cosine, facts_cosine
from tests.conftest import count_group
from tests.interchange.test_import_export import sample


def post_import(client: APIClient, group: str, body: object) -> object:
    return client.post(f"/api/groups/{group}/import", data=json.dumps(body), content_type="application/json")


def test_curator_imports_and_viewer_exports(client_for, group: str) -> None:
    curator = client_for("curator", [group])
    response = post_import(curator, group, sample(group))
    assert response.status_code == 200, response.content
    assert response.json()["nodes_created"] == 5
    viewer = client_for("viewer", [group])
    exported = viewer.get(f"/api/groups/{group}/export")
    assert exported.status_code == 200
    assert {node["id"] for node in exported.json()["nodes"]} == {node["id"] for node in sample(group)["nodes"]}


def test_viewer_cannot_write(client_for, group: str) -> None:
    response = post_import(client_for("viewer", [group]), group, sample(group))
    assert response.status_code == 403
    assert "curator role" in response.json()["detail"]
    assert count_group(group) == {"nodes": 0, "edges": 0}


def test_anonymous_gets_401_and_no_data(db: None, group: str) -> None:
    anonymous = APIClient()
    assert post_import(anonymous, group, sample(group)).status_code == 401
    assert anonymous.get(f"/api/groups/{group}/export").status_code == 401
    assert anonymous.get("/api/groups").status_code == 401
    assert count_group(group) == {"nodes": 0, "edges": 0}


def test_bad_token_is_refused(db: None) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.get("/api/groups").status_code == 401


def test_groups_outside_ones_access_are_invisible(client_for, group: str) -> None:
    curator = client_for("curator", ["elsewhere"])
    response = post_import(curator, group, sample(group))
    assert response.status_code == 404
    assert count_group(group) == {"nodes": 0, "edges": 0}
    assert curator.get(f"/api/groups/{group}/export").status_code == 404
    admin = client_for("admin")
    assert post_import(admin, group, sample(group)).status_code == 200  # admins reach every group


def test_group_list_is_limited_to_memberships(client_for, group: str) -> None:
    admin = client_for("admin")
    post_import(admin, group, sample(group))
    listed = client_for("viewer", [group]).get("/api/groups").json()
    assert listed == [{"group": group, "episodes": 1, "entities": 3, "communities": 1, "facts": 2, "view_bytes": None}]
    assert client_for("viewer", ["other"], username="stranger").get("/api/groups").json() == [
        {"group": "other", "episodes": 0, "entities": 0, "communities": 0, "facts": 0, "view_bytes": None}
    ]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ("{not json", None, "JSON parse error"),
        (
            {"nodes": [], "edges": [{"source": "x", "target": "y", "relation": "r", "weight": 0.5, "tags": []}]},
            "edges[0].source",
            "neither in the document nor stored",
        ),
        (
            lambda g: {**sample(g), "edges": [{**sample(g)["edges"][0], "weight": 2}]},
            "edges[0].weight",
            "outside [0.25, 1.0]",
        ),
        (
            lambda g: {**sample(g), "nodes": [*sample(g)["nodes"], {"id": "x", "name": "x", "labels": ["Admin"]}]},
            "nodes[5].labels",
            "label 'Admin' is not allowed",
        ),
        ([1, 2, 3], "document", "must be a JSON object"),
    ],
)
def test_bad_input_is_400_naming_the_item(client_for, group: str, body, field: str | None, message: str) -> None:
    curator = client_for("curator", [group])
    body = body(group) if callable(body) else body
    if isinstance(body, str):
        response = curator.post(f"/api/groups/{group}/import", data=body, content_type="application/json")
    else:
        response = post_import(curator, group, body)
    assert response.status_code == 400, response.content
    payload = response.json()
    assert message in payload["detail"]
    if field:
        assert any(problem.startswith(field) for problem in payload["errors"]), payload
    assert count_group(group) == {"nodes": 0, "edges": 0}


def test_bad_group_name_is_404(client_for) -> None:
    admin = client_for("admin")
    assert post_import(admin, "bad group!", sample("x")).status_code == 404


def test_imported_items_are_found_by_cosine_search_without_reindexing(client_for, group: str) -> None:
    response = post_import(client_for("curator", [group]), group, sample(group))
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["embedding"]["error"] is None
    assert (answer["embedding"]["embedded"], answer["embedding"]["left"]) == (7, 0)  # 5 nodes and 2 facts
    edge = derived_edge_id(group, f"{group}-req", "uses_data", f"{group}-ds")
    searches = [
        (entities_cosine, "orders from the ERP system", f"{group}-ds"),
        (facts_cosine, "the forecast is based on ERP orders", edge),
        (episodes_cosine, "please forecast Q3", f"{group}-ep"),
        (communities_cosine, "forecasting", f"{group}-c"),
    ]
    for method, text, expected in searches:
        found = method(vector=embedder().embed_one(text), groups=[group], limit=3)
        assert found and found[0].id == expected, (method.__name__, [hit.id for hit in found])


def test_reimport_changing_a_fact_text_embeds_only_that_fact(client_for, group: str) -> None:
    curator = client_for("curator", [group])
    assert post_import(curator, group, sample(group)).status_code == 200
    unchanged = post_import(curator, group, sample(group)).json()
    assert (unchanged["texts_changed"], unchanged["embedding"]["embedded"]) == (0, 0)
    document = sample(group)
    document["edges"][0]["fact"] = "The forecast ignores the warehouse of Lyon"
    answer = post_import(curator, group, document).json()
    assert (answer["texts_changed"], answer["embedding"]["embedded"], answer["embedding"]["left"]) == (1, 1, 0)
    found = facts_cosine(vector=embedder().embed_one("forecast ignoring the Lyon warehouse"), groups=[group], limit=1)
    assert found[0].id == derived_edge_id(group, f"{group}-req", "uses_data", f"{group}-ds")


def test_a_failed_embedding_keeps_the_import_and_reports_the_backlog(
    client_for, group: str, settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    embedder()  # loaded now, so restoring the shared model below needs no new load
    monkeypatch.setattr(embeddings, "_embedder", None)
    settings.MEMORIA_EMBEDDING_MODEL = str(tmp_path / "no-model")
    response = post_import(client_for("curator", [group]), group, sample(group))
    assert response.status_code == 200, response.content
    embedding = response.json()["embedding"]
    assert "no-model does not exist" in embedding["error"]
    assert (embedding["embedded"], embedding["left"]) == (0, 7)
    assert count_group(group) == {"nodes": 5, "edges": 4}
    assert reindex_backlog(group=group) == 7

    monkeypatch.undo()
    settings.MEMORIA_EMBEDDING_MODEL = ""
    assert group_reindex(group=group).texts == 7
