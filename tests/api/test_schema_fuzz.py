"""Schemathesis fuzzes every operation of /api/schema/ against a real daphne, as a curator of a throwaway group.

Every answer must be documented by the schema (status, content type, body) and no input may cause a 5xx; a 4xx
must say in its body what was wrong and where. The user sees only its own freshly seeded group, so nothing the
fuzzer sends can reach another test's data; the group and the user are removed afterwards.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
import uuid
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.graph import driver
from tests.browse.graphs import small_memory

# The daphne process reads the user from the test database: it must be set up, and what is written committed.
pytestmark = pytest.mark.django_db(transaction=True)

# schemathesis's statuses for a refused schema-violating request, and 414 (see the config below).
NEGATIVE_DATA_REJECTED_WITH = [
    "400",
    "401",
    "403",
    "404",
    "405",
    "406",
    "409",
    "414",
    "415",
    "422",
    "428",
    "429",
    "5xx",
]
# Examples per operation and phase: ~34 operations, so a few minutes on a busy 2-core machine.
EXAMPLES_PER_OPERATION = 20
SEED = 20261121
# Path parameters that name a stored item: the fuzzer's values are swapped for real ids most of the time, so the
# operations get past "not found" into their real work; the rest stay random and exercise the 404 answers.
ITEM_PARAMETERS = {"node_id": "nodes", "entity_id": "entities", "edge_id": "edges"}
# "name: problem", the shape of every message memoria's parsers write; DRF's field errors carry the name as a key.
NAMED_PROBLEM = re.compile(r"^[^\s:][^:]*: .*\S")
STORED_IDS = """
MATCH (n:Memory {group_id: $group})
OPTIONAL MATCH (n)-[r:RELATES]->(:Memory {group_id: $group})
RETURN n.id AS node, 'Entity' IN labels(n) AS entity, r.id AS edge
"""


def _served_schema() -> dict[str, Any]:
    """The document GET /api/schema/ serves, built in process: pytest needs the operations at collection time."""
    document = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(document, renderer_context={}))


# The fuzz group's name is fixed at import because the schema's parameter overrides are; its ids once seeded.
GROUP = f"fuzz-{uuid.uuid4().hex[:10]}"
STORED_IDS_BY_KIND: dict[str, list[str]] = {}
SCHEMA_DOCUMENT = _served_schema()
schema = schemathesis.openapi.from_dict(
    SCHEMA_DOCUMENT,
    config=schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "request-timeout": 60,
            "generation": {"mode": "all", "max-examples": EXAMPLES_PER_OPERATION, "with-security-parameters": False},
            # Every request lands in the throwaway group (the query `group` of search included).
            "parameters": {"path.group": GROUP, "query.group": GROUP},
            # A negative case may be refused at the HTTP edge before any view reads it: a query string made too
            # long answers 414 (MEMORIA_MAX_REQUEST_LINE_BYTES, documented for every operation with a path or
            # query), which is a rejection as much as a 400 is. The rest are schemathesis's defaults.
            "checks": {"negative_data_rejection": {"expected-statuses": NEGATIVE_DATA_REJECTED_WITH}},
        }
    ),
)
# Operations whose JSON body the schema leaves free-form (its shape is in docs/*.md): any object is "schema-valid"
# there, so a 400 for one cannot be held against the server. Their 400s must still name field and problem.
FREE_FORM_BODY = {"type": "object", "additionalProperties": {}}


def _body_schema(operation: dict[str, Any]) -> dict[str, Any] | None:
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    return {key: value for key, value in body.items() if key != "nullable"} if body else None


FREE_FORM_BODY_OPERATIONS = {
    (method.upper(), path)
    for path, operations in SCHEMA_DOCUMENT["paths"].items()
    for method, operation in operations.items()
    if _body_schema(operation) == FREE_FORM_BODY
}
# Operations whose inputs depend on each other in ways the schema does not express (a node_distance recipe needs
# `center`, a search config's scope takes only some methods and rerankers, a retrieval needs seeds or a query and
# a budget within the server's; include_invalidated=true cannot come
# with as_of or known_at, nor valid_at with as_of, its newer name;
# a merge's `from` must be another entity of the group than the URL's; an edited edge's valid_at must not pass its
# invalid_at, and its relation passes the import format's character rules, as a new edge's does (curated or
# indexed), whose ends must differ; a community build's resolution goes only with Leiden,
# for the synchronous build and its job alike; an imported document's ids are unique, its edges join two
# different nodes it holds or the group stores, and episode fields go only on Episode nodes):
# "schema-valid" is not "valid" there either.
CROSS_FIELD_OPERATIONS = {
    ("GET", "/api/search"),
    ("POST", "/api/search"),
    ("POST", "/api/retrieval/activation"),
    ("POST", "/api/retrieval/ppr"),  # seeds or a query (both: relation_aware), β only with relation_aware, …
    ("GET", "/api/groups/{group}/nodes/{node_id}/neighbours"),
    ("GET", "/api/groups/{group}/subgraph"),
    ("GET", "/api/groups/{group}/paths"),
    ("GET", "/api/graph/{group}/nodes/{node_id}/traverse"),
    ("GET", "/api/graph/{group}/nodes/{node_id}/related"),
    ("GET", "/api/graph/{group}/nodes/{node_id}/outgoing"),
    ("GET", "/api/graph/{group}/nodes/{node_id}/incoming"),
    ("POST", "/api/groups/{group}/entities/{entity_id}/merge"),
    ("PATCH", "/api/groups/{group}/edges/{edge_id}"),
    ("POST", "/api/groups/{group}/edges"),
    ("POST", "/api/graph/{group}/edges"),
    ("POST", "/api/groups/{group}/communities"),
    ("POST", "/api/groups/{group}/jobs/communities"),  # a resolution only with Leiden
    ("POST", "/api/groups/{group}/import"),
    ("POST", "/api/groups/{group}/jobs/import"),
}
# Saved views: a name must hold a non-space character and a state only the graph page's URL keys; an episode's
# content must hold a non-space character and its name no control character; a relation asked about (an edge's
# existence, its removal) passes the import format's character rules, as a stored one did: rules the schema's
# lengths do not express; a scope's metadata (POST /api/context: search and retrieval are above) is at most 4,096
# bytes as JSON in all, a total no JSON Schema keyword counts.
RULED_TEXT_OPERATIONS = {
    ("POST", "/api/context"),
    ("POST", "/api/groups/{group}/episodes"),
    ("POST", "/api/groups/{group}/views"),
    ("PATCH", "/api/groups/{group}/views/{view_id}"),
    ("GET", "/api/graph/{group}/edges/exists"),
    ("DELETE", "/api/graph/{group}/edges"),
}
UNDESCRIBED_INPUT = FREE_FORM_BODY_OPERATIONS | CROSS_FIELD_OPERATIONS | RULED_TEXT_OPERATIONS


def _real_item_ids(path_parameters: dict[str, Any] | None) -> None:
    """Most of the time, a path id becomes one of the group's stored ids (picked by a hash of the drawn one)."""
    for name, kind in ITEM_PARAMETERS.items():
        value = (path_parameters or {}).get(name)
        if isinstance(value, str) and STORED_IDS_BY_KIND.get(kind):
            real = STORED_IDS_BY_KIND[kind]
            pick = zlib.crc32(value.encode("utf-8", "surrogatepass")) % (len(real) + 1)
            path_parameters[name] = real[pick] if pick < len(real) else value


def _valid_bodies() -> dict[tuple[str, str], Any]:
    """A well-formed body per free-form write, on the fuzz group's own items: random objects are nearly always
    refused, so without these the writes would only ever be tried with bad input."""
    entities = STORED_IDS_BY_KIND["entities"]
    return {
        ("POST", "/api/groups/{group}/edges"): {
            "source": entities[0],
            "target": entities[1],
            "relation": "fuzzed_with",
            "weight": 0.5,
        },
        ("POST", "/api/graph/{group}/edges"): {
            "source": entities[1],
            "target": entities[2],
            "relation": "indexed_with",
            "weight": 0.7,
        },
        ("POST", "/api/groups/{group}/import"): {
            "nodes": [{"id": f"{GROUP}/imported", "name": "Imported by the fuzzer", "labels": ["Entity"]}],
            "edges": [],
        },
        ("POST", "/api/groups/{group}/jobs/import"): {
            "nodes": [{"id": f"{GROUP}/imported-later", "name": "Imported by a fuzzer's job", "labels": ["Entity"]}],
            "edges": [],
        },
        ("POST", "/api/groups/{group}/episodes"): {"content": "The fuzzer asked the planner about Lyon.", "name": "f"},
        ("PATCH", "/api/groups/{group}/edges/{edge_id}"): {"weight": 0.45},
        ("POST", "/api/groups/{group}/edges/{edge_id}/invalidate"): {},
        ("POST", "/api/groups/{group}/entities/{entity_id}/merge"): {"from": entities[-1]},
        ("POST", "/api/retrieval/activation"): {"group": GROUP, "seeds": [{"id": entities[0], "score": 1}]},
        ("POST", "/api/retrieval/ppr"): {"group": GROUP, "seeds": [{"id": entities[0]}]},
        ("POST", "/api/search"): {
            "query": "forecast",
            "group": GROUP,
            "config": {"facts": {"methods": ["bm25"], "reranker": "rrf"}},
        },
    }


@schema.hook
def map_case(context: schemathesis.HookContext, case: schemathesis.Case) -> schemathesis.Case:
    """Positive cases name the group's real items in their path most of the time, and half the positive cases of a
    free-form write carry a well-formed body instead (picked by a hash, so the choice is as reproducible as the
    generated body). Negative cases keep what was drawn: a path id made to break its pattern must stay broken."""
    if not STORED_IDS_BY_KIND or case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return case
    _real_item_ids(case.path_parameters)
    valid = _valid_bodies().get((case.method, case.path))
    drawn = json.dumps(case.body, sort_keys=True, default=str).encode()
    if valid is not None and zlib.crc32(drawn) % 2 == 0:
        case.body = valid
    return case


@pytest.fixture(scope="module")
def fuzz_group(graph_server: object) -> Iterator[str]:
    """A small seeded memory in a group of its own; its stored ids feed the path parameter hook."""
    small_memory(GROUP)
    rows = driver.read(STORED_IDS, group=GROUP)
    STORED_IDS_BY_KIND["nodes"] = sorted({row["node"] for row in rows})
    STORED_IDS_BY_KIND["entities"] = sorted({row["node"] for row in rows if row["entity"]})
    STORED_IDS_BY_KIND["edges"] = sorted({row["edge"] for row in rows if row["edge"]})
    assert all(STORED_IDS_BY_KIND.values()), STORED_IDS_BY_KIND
    yield GROUP
    STORED_IDS_BY_KIND.clear()
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=GROUP)


@pytest.fixture
def restored_items(request: pytest.FixtureRequest, fuzz_group: str) -> None:
    """The seeded items again before an operation on one item: earlier operations (DELETE of a node's edges,
    merges) may have removed them. Re-importing upserts them under the same ids."""
    if any(f"{{{name}}}" in request.node.name for name in ITEM_PARAMETERS):
        small_memory(fuzz_group)


@pytest.fixture
def curator_token(transactional_db: None, fuzz_group: str) -> str:
    """A curator of the fuzz group only, committed so the daphne process sees it (each test's flush removes it)."""
    return token_for(user=user_grant(username="fuzzer", role=Role.CURATOR, groups=[fuzz_group]))


def _request_names(case: schemathesis.Case) -> set[str]:
    names = set((case.path_parameters or {}) | (case.query or {}))
    if isinstance(case.body, dict):
        names |= set(case.body)
    return {str(name) for name in names}


def _labelled_multipart(case: schemathesis.Case) -> bool:
    """A body labelled multipart/form-data that is not multipart never reaches Memoria: Twisted, under daphne, parses
    POSTed multipart itself and answers a bare 400 when it cannot (daphne has no switch for it). Every other wrong
    media type reaches the views, which answer 415, and stays fuzzed."""
    content_type = {name.lower(): value for name, value in (case.headers or {}).items()}.get("content-type")
    return str(content_type or case.media_type or "").lower().startswith("multipart/")


def problem_is_named(ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case) -> None:
    """A 4xx answer is JSON saying what went wrong; a 400 also says which field, as `name: problem`."""
    if not 400 <= response.status_code < 500:
        return None
    try:
        body = response.json()
    except ValueError:
        body = None
    assert isinstance(body, dict) and body, f"{response.status_code} without a JSON object body: {response.text!r}"
    if "detail" not in body:  # a DRF serializer's errors: field name → problems
        assert response.status_code == 400, body
        assert set(body) <= _request_names(case) | {"non_field_errors"}, f"errors name unknown fields: {body}"
        assert all(isinstance(problems, list) and problems for problems in body.values()), body
        return None
    assert isinstance(body["detail"], str) and body["detail"].strip(), body
    if response.status_code == 400:
        problems = body.get("errors") or [body["detail"]]
        unnamed = [problem for problem in problems if not NAMED_PROBLEM.match(problem)]
        assert not unnamed, f"400 problems that do not name their field: {unnamed}"
    return None


def test_the_fuzzed_schema_is_the_one_served(daphne_url: str, curator_token: str) -> None:
    request = urllib.request.Request(
        f"{daphne_url}/api/schema/?format=json", headers={"Authorization": f"Token {curator_token}"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert json.loads(response.read()) == SCHEMA_DOCUMENT


if os.environ.get("MEMORIA_FUZZ_PATHS"):  # a regular expression: fuzz only the operations whose path matches it
    schema = schema.include(path_regex=os.environ["MEMORIA_FUZZ_PATHS"])


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_every_operation_answers_as_documented(
    case: schemathesis.Case, daphne_url: str, curator_token: str, restored_items: None
) -> None:
    if _labelled_multipart(case):
        return
    response = case.call_and_validate(
        base_url=daphne_url,
        headers={"Authorization": f"Token {curator_token}"},
        additional_checks=[problem_is_named],
        excluded_checks=[positive_data_acceptance] if (case.method, case.path) in UNDESCRIBED_INPUT else [],
    )
    # The token always goes along: a 401 here would mean the fuzzer never got past authentication.
    assert response.status_code != 401, response.text
