"""POST /api/groups/<group>/import and GET …/export: roles, group access, and bad input that writes nothing."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

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
    assert listed == [{"group": group, "episodes": 1, "entities": 3, "communities": 1, "facts": 2}]
    assert client_for("viewer", ["other"], username="stranger").get("/api/groups").json() == [
        {"group": "other", "episodes": 0, "entities": 0, "communities": 0, "facts": 0}
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
