"""Every id parameter of the OpenAPI schema refuses quotes, NUL and Cypher the same way: 400 naming the field.

The test walks /api/schema/ as served, so an operation added later is held to the rule without being listed here.
An id parameter is a text path or query parameter that names a stored item (a node, an edge, an entity, a relation
between them); integer and UUID path parameters are typed by the URL router, which answers 404 for anything else.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from tests.browse.graphs import small_memory

pytestmark = pytest.mark.django_db

# What a hostile id looks like: a quote that would end a string literal, NUL, and a Cypher clause.
HOSTILE = ("a'b", 'a"b', "a\x00b", "x}) MATCH (n) DETACH DELETE n //")
# A relation may hold an apostrophe ("author's"): the import format stores such names, so asking about one is
# allowed, as its rule says (memoria.graph.rules.relation_problem); the other three are refused there too.
APOSTROPHE_ALLOWED = {"relation"}
# Parameters that name a stored item (besides every text path parameter that ends in _id).
ID_QUERY_PARAMETERS = {"source", "target", "relation", "from", "to", "ids", "center", "item_id"}
PATH_PARAMETER = re.compile(r"\{([a-z_]+)\}")


def _schema(client: APIClient) -> dict[str, Any]:
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200, response.content
    return response.json()


def _is_id(parameter: dict[str, Any]) -> bool:
    schema = parameter.get("schema", {})
    texts = schema.get("type") in ("string", "array") or any(
        option.get("type") in ("string", "array") for option in schema.get("anyOf", ())
    )
    if parameter["in"] == "path":
        return parameter["name"].endswith("_id") and schema.get("type") == "string" and "format" not in schema
    return texts and parameter["in"] == "query" and parameter["name"] in ID_QUERY_PARAMETERS


def id_parameters(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any], list[dict[str, Any]]]]:
    """(method, path, the id parameter, every parameter of the operation) for each id parameter in the schema."""
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            parameters = operation.get("parameters", [])
            found += [(method, path, p, parameters) for p in parameters if _is_id(p)]
    return found


def _valid(name: str, ids: dict[str, str]) -> str:
    """A well-formed value for a parameter that is not the one under test, so only that one can be refused."""
    return {"relation": "CAUSES", "ids": ids["node"], "item_id": ids["node"]}.get(name, ids["node"])


def test_every_id_parameter_refuses_quotes_nul_and_cypher_naming_it(group: str) -> None:
    user = user_grant(username="id-walker", role=Role.CURATOR, groups=[group])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user=user)}")
    ids = {"node": small_memory(group)["req"]}
    found = id_parameters(_schema(client))
    names = {(parameter["in"], parameter["name"]) for _, _, parameter, _ in found}
    # The walk reaches the parameters the issue named, so an empty or broken walk cannot pass.
    assert {("query", "source"), ("query", "target"), ("query", "relation"), ("path", "node_id")} <= names, names
    wrong = []
    for method, path, parameter, parameters in found:
        for hostile in HOSTILE:
            if "'" in hostile and parameter["name"] in APOSTROPHE_ALLOWED:
                continue
            url = path.replace("{group}", group)
            query: dict[str, str] = {}
            for other in parameters:
                value = hostile if other is parameter else _valid(other["name"], ids)
                if other["in"] == "path" and other["name"] != "group":
                    url = url.replace("{" + other["name"] + "}", quote(value, safe=""))
                elif other["in"] == "query" and (other is parameter or other.get("required")):
                    query[other["name"]] = value
            if "group" in {p["name"] for p in parameters if p["in"] == "query"}:
                query["group"] = group
            if PATH_PARAMETER.search(url):
                continue  # an integer or UUID path parameter left: the router's business
            if query:
                url = f"{url}?{_encoded(query)}"
            response = getattr(client, method)(url, {} if method in ("post", "patch") else None, format="json")
            body = response.json() if response.get("Content-Type", "").startswith("application/json") else {}
            problems = [body.get("detail", ""), *body.get("errors", [])]
            named = any(str(problem).startswith(f"{parameter['name']}: ") for problem in problems)
            if response.status_code != 400 or not named:
                wrong.append((method.upper(), path, parameter["name"], repr(hostile), response.status_code, problems))
    assert not wrong, "\n".join(map(str, wrong))


def _encoded(query: dict[str, str]) -> str:
    return "&".join(f"{quote(name)}={quote(value, safe='')}" for name, value in query.items())
