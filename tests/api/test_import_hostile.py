"""POST /api/groups/<group>/import fed hostile bodies answers 400 with a problem naming the field, a body over the
size limit answers 413 on every JSON endpoint, and neither writes anything to any group (counted on the real server)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator

import pytest
from django.conf import settings
from django.test import override_settings
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.graph import driver
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from tests.conftest import count_group
from tests.interchange.test_import_export import sample

DEEP = 100_000
HUGE = 10_000_000
CYPHER = "}) DETACH DELETE n //"
SMALL_LIMIT = 4_096


@pytest.fixture(scope="module")
def other(graph_server: object) -> Iterator[str]:
    """A neighbouring group holding the sample graph: its ids are what a hostile body collides with."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    graph_document_import(document=parse_graph_document(sample(name), group=name), group=name)
    yield name
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)


@pytest.fixture
def curator(client_for: Callable[..., APIClient], group: str) -> APIClient:
    return client_for("curator", [group])


def snapshot(*groups: str) -> dict[str, dict[str, int]]:
    return {group: count_group(group) for group in groups}


def post_raw(client: APIClient, path: str, body: bytes) -> object:
    return client.generic("POST", path, data=body, content_type="application/json")


def nodes_and_edge(group: str, **edge_fields: object) -> bytes:
    a, b = f"{group}-a", f"{group}-b"
    edge = {"source": a, "target": b, "relation": "uses", "weight": 0.5, **edge_fields}
    return json.dumps({"nodes": [{"id": a, "name": "A"}, {"id": b, "name": "B"}], "edges": [edge]}).encode()


def one_node(group: str, **fields: object) -> bytes:
    return json.dumps({"nodes": [{"id": f"{group}-n", "name": "N", **fields}], "edges": []}).encode()


CASES: dict[str, tuple[Callable[[str, str], bytes], str]] = {
    "deep nesting": (lambda g, o: ("[" * DEEP + "]" * DEEP).encode(), "body: JSON nested too deeply"),
    "deep property": (
        lambda g, o: one_node(g, properties={"x": 0}).replace(b'"x": 0', b'"x": ' + b"[" * DEEP + b"]" * DEEP),
        "body: JSON nested too deeply",
    ),
    "truncated": (lambda g, o: json.dumps(sample(g)).encode()[:100], "JSON parse error"),
    "5,000-digit number": (lambda g, o: b'{"nodes": [], "edges": [], "n": ' + b"9" * 5000 + b"}", "JSON parse error"),
    "weight of 400 digits": (lambda g, o: nodes_and_edge(g, weight=10**400), "edges[0].weight: must be a number"),
    "invalid UTF-8": (lambda g, o: one_node(g).replace(b'"N"', b'"N\xff"'), "JSON parse error"),
    "utf-16": (lambda g, o: json.dumps(sample(g)).encode("utf-16"), "JSON parse error"),
    "empty body": (lambda g, o: b"", "nodes: is required and must be a list"),
    "a list": (lambda g, o: b"[1, 2]", "document: must be a JSON object, not list"),
    "wrong types": (lambda g, o: b'{"nodes": [{"id": 1, "name": []}], "edges": []}', "nodes[0].id: must be a string"),
    "10 MB name": (lambda g, o: one_node(g, name="x" * HUGE), "nodes[0].name: is longer than 500 characters"),
    "10 MB label": (lambda g, o: one_node(g, labels=["L" * HUGE]), "nodes[0].labels: label 'LLLL"),
    "100k tags": (lambda g, o: nodes_and_edge(g, tags=[f"t{i}" for i in range(100_000)]), "has 100000 tags"),
    "label injection": (lambda g, o: one_node(g, labels=["Entity", f"Event`{CYPHER}"]), "is not allowed"),
    "relation injection": (lambda g, o: nodes_and_edge(g, relation=CYPHER), "edges[0].relation: holds '}'"),
    "relation null byte": (lambda g, o: nodes_and_edge(g, relation="a\x00b"), "edges[0].relation: holds U+0000"),
    "relation newline": (lambda g, o: nodes_and_edge(g, relation="a\nb"), "edges[0].relation: holds U+000A"),
    "relation lookalike": (lambda g, o: nodes_and_edge(g, relation="ｕｓｅｓ"), "not in Unicode NFKC form"),
    "name null byte": (lambda g, o: one_node(g, name="N\x00"), "nodes[0].name: holds U+0000"),
    "edge into another group": (
        lambda g, o: json.dumps(
            {
                "nodes": [{"id": f"{g}-n", "name": "N"}],
                "edges": [{"source": f"{g}-n", "target": f"{o}-ds", "relation": "uses", "weight": 0.5}],
            }
        ).encode(),
        "edges[0].target: node",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_body_is_a_400_naming_the_problem_and_writes_nothing(
    curator: APIClient, group: str, other: str, case: str
) -> None:
    build, expected = CASES[case]
    before = snapshot(group, other)
    response = post_raw(curator, f"/api/groups/{group}/import", build(group, other))
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert expected in body["detail"] or any(expected in problem for problem in body.get("errors", []))
    assert len(response.content) < 10_000
    assert snapshot(group, other) == before


JSON_ENDPOINTS = (
    "/api/groups/{group}/import",
    "/api/groups/{group}/episodes",
    "/api/groups/{group}/edges",
    "/api/search",
    "/api/retrieval/ppr",
    "/api/retrieval/activation",
)


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=SMALL_LIMIT)
def test_a_body_over_the_limit_is_a_413_with_a_problem(curator: APIClient, group: str, other: str, path: str) -> None:
    document = sample(group)
    document["nodes"][0]["summary"] = "s" * (2 * SMALL_LIMIT)
    body = json.dumps(document).encode()
    before = snapshot(group, other)
    response = post_raw(curator, path.format(group=group), body)
    assert response.status_code == 413, response.content[:300]
    problem = response.json()
    assert problem["code"] == "request_too_large" and problem["limit_bytes"] == SMALL_LIMIT
    assert f"({SMALL_LIMIT} bytes, set by MEMORIA_MAX_REQUEST_BYTES)" in problem["detail"]
    assert snapshot(group, other) == before


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
def test_deep_nesting_is_a_400_on_every_json_endpoint(curator: APIClient, group: str, path: str) -> None:
    response = post_raw(curator, path.format(group=group), ("[" * DEEP + "]" * DEEP).encode())
    assert response.status_code == 400, response.content[:300]
    assert response.json()["errors"] == ["body: JSON nested too deeply (Python's parser follows about 1,000 levels)"]


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=SMALL_LIMIT)
def test_a_body_under_the_limit_is_still_read(curator: APIClient, group: str) -> None:
    """The limit is on size alone: a small body is parsed and judged on its content."""
    response = post_raw(curator, f"/api/groups/{group}/import", b'{"nodes": [], "edges": [], "colour": 1}')
    assert response.status_code == 400
    assert response.json()["errors"] == ["document: unknown key(s) 'colour'"]


@pytest.mark.django_db(transaction=True)  # the daphne process reads the token's user from the test database
def test_real_daphne_answers_413_past_the_configured_limit(daphne_url: str, group: str, other: str) -> None:
    """Through the ASGI server itself, at the configured limit (not an override): one byte over is refused."""
    token = token_for(user=user_grant(username="big-sender", role=Role.CURATOR, groups=[group]))
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    head, tail = b'{"nodes": [], "edges": [], "padding": "', b'"}'
    body = head + b"x" * (limit + 1 - len(head) - len(tail)) + tail
    before = snapshot(group, other)
    request = urllib.request.Request(
        f"{daphne_url}/api/groups/{group}/import",
        data=body,
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=120)
    assert caught.value.code == 413
    problem = json.loads(caught.value.read())
    assert problem["code"] == "request_too_large" and problem["limit_bytes"] == limit
    assert snapshot(group, other) == before
