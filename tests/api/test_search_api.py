"""GET and POST /api/search in-process: the answer's shape, recipes and configs, precise 400s, 404 and 401."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from rest_framework.test import APIClient

from memoria.graph import driver
from tests.search.memory import node_id, store_search_memory

SCOPES = {"facts", "entities", "episodes", "communities"}


@pytest.fixture(scope="module")
def memory(graph_server: object) -> Iterator[str]:
    group = "api-search-memory"
    store_search_memory(group)
    yield group
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


def get(client: APIClient, **params: object):
    return client.get("/api/search", params)


def post(client: APIClient, body: object):
    return client.post("/api/search", data=json.dumps(body), content_type="application/json")


def test_a_viewer_searches_every_scope(client_for, memory: str) -> None:
    response = get(client_for("viewer", [memory]), q="Lyon warehouse safety gloves", group=memory)
    assert response.status_code == 200, response.content
    answer = response.json()
    assert set(answer) == {*SCOPES, "engine"} and all(answer[scope] for scope in SCOPES)
    view = answer["engine"]["views"][memory]  # which engine answered, and the view's version and age
    assert answer["engine"]["name"] == "view" and view["version"] > 0 and view["age_seconds"] >= 0
    fact = answer["facts"][0]
    assert {"id", "name", "text", "score", "scores", "source", "target", "valid_at"} <= set(fact)
    assert set(fact["scores"]) <= {"bm25", "cosine"} and fact["score"] > 0
    assert all(hit["id"].startswith(f"{memory}-") for scope in SCOPES for hit in answer[scope])


def test_scope_limit_recipe_and_date(client_for, memory: str) -> None:
    client = client_for("viewer", [memory])
    answer = get(client, q="Bob Novak truck driver", group=memory, scope="facts", limit=2).json()
    assert len(answer["facts"]) == 2 and not answer["entities"] and not answer["episodes"]
    then = get(client, q="Bob Novak", group=memory, scope="facts", limit=20, valid_at="2021-01-01T00:00:00Z").json()
    assert node_id(memory, "drove") in [hit["id"] for hit in then["facts"]]
    assert node_id(memory, "drives") not in [hit["id"] for hit in then["facts"]]
    near = get(
        client,
        q="Rotterdam port Lyon warehouse",
        group=memory,
        recipe="entities_node_distance",
        center=node_id(memory, "alice"),
    ).json()["entities"]
    order = [hit["id"] for hit in near]
    assert order.index(node_id(memory, "lyon")) < order.index(node_id(memory, "rotterdam"))
    mmr = get(client, q="gloves", group=memory, recipe="combined_hybrid_mmr", scope="communities").json()
    assert mmr["communities"] and not mmr["facts"]


def test_post_takes_a_full_config(client_for, memory: str) -> None:
    body = {
        "query": "Nordbalt Metals",
        "group": memory,
        "config": {
            "facts": {"methods": ["bm25", "bfs"], "bfs_depth": 1, "limit": 20},
            "entities": {"methods": ["cosine"], "reranker": "mmr", "mmr_lambda": 0.7, "limit": 3},
        },
        "valid_at": "2025-01-01T00:00:00Z",
    }
    response = post(client_for("viewer", [memory]), body)
    assert response.status_code == 200, response.content
    answer = response.json()
    assert len(answer["entities"]) == 3 and not answer["episodes"] and not answer["communities"]
    facts = {hit["id"]: hit for hit in answer["facts"]}
    assert node_id(memory, "drove") not in facts  # ended in 2022
    assert any("bfs" in hit["scores"] for hit in facts.values())


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"group": "G"}, "q: is required"),
        ({"group": "G", "q": "  "}, "q: must be a non-empty text"),
        ({"q": "x"}, "group: is required"),
        ({"q": "x", "group": "G", "scope": "edges"}, "scope: 'edges' is not one of"),
        ({"q": "x", "group": "G", "limit": "0"}, "limit: '0' is not a whole number in [1, 100]"),
        ({"q": "x", "group": "G", "limit": "ten"}, "limit: 'ten'"),
        ({"q": "x", "group": "G", "recipe": "best"}, "recipe: 'best' is not one of"),
        ({"q": "x", "group": "G", "valid_at": "tomorrow"}, "valid_at: 'tomorrow' is not an ISO 8601"),
        ({"q": "x", "group": "G", "recipe": "facts_node_distance"}, "center: recipe facts_node_distance ranks"),
        ({"q": "x", "group": "G", "center": "a b"}, "center: must be a node id"),
        ({"q": "x", "group": "G", "recipe": "facts_hybrid_rrf", "scope": "entities"}, "scope: this search does not"),
        ({"q": "x", "group": "G", "colour": "red"}, "parameters: unknown field(s) colour"),
        (
            {"q": "x", "group": "G", "recipe": "facts_hybrid_cross_encoder"},
            "recipe: facts_hybrid_cross_encoder needs a cross-encoder, which is not offered here: set MEMORIA_CROSS",
        ),
    ],
)
def test_bad_parameters_are_400_naming_the_field(client_for, settings, params: dict, expected: str) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = ""
    response = get(client_for("viewer", ["G"]), **params)
    assert response.status_code == 400, response.content
    assert expected in response.json()["detail"]


BM25 = {"methods": ["bm25"]}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ([], "body: must be a JSON object"),
        ({"group": "G", "config": {"facts": {"methods": ["bm25"]}}}, "query: is required"),
        ({"query": "", "group": "G", "config": {"facts": {"methods": ["bm25"]}}}, "query: must be a non-empty text"),
        ({"query": "x", "group": "G"}, "config: is required"),
        ({"query": "x", "group": "G", "config": {"facts": {"methods": ["bm25"], "reranker": "x"}}}, "facts.reranker"),
        ({"query": "x", "group": "G", "config": {"episodes": {"methods": ["bfs"]}}}, "episodes.methods: bfs cannot"),
        ({"query": "x", "group": "G", "config": {}, "valid_at": 5}, "valid_at: must be an ISO 8601"),
        ({"query": "x", "group": "G", "config": {"facts": {"methods": ["bm25"]}}, "k": 1}, "body: unknown field(s) k"),
        ({"query": "x", "group": "G", "config": {"facts": {**BM25, "limit": "5"}}}, "config.facts.limit: must be a"),
        ({"query": "x", "group": "G", "config": {"facts": {**BM25, "limit": 0}}}, "config.facts.limit: 0 is outside"),
        ({"query": "x", "group": "G", "config": {"facts": None}}, "config.facts: must be a JSON object"),
        ({"query": "x", "group": "G", "config": {"facts": {**BM25, "k": 1}}}, "config.facts: unknown field(s) k"),
    ],
)
def test_bad_bodies_are_400_naming_the_field(client_for, body: object, expected: str) -> None:
    response = post(client_for("viewer", ["G"]), body)
    assert response.status_code == 400, response.content
    assert expected in response.json()["detail"]


def test_a_cross_encoder_config_without_a_model_is_400_naming_the_setting(client_for, settings) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = ""
    body = {"query": "x", "group": "G", "config": {"episodes": {"methods": ["bm25"], "reranker": "cross_encoder"}}}
    response = post(client_for("viewer", ["G"]), body)
    assert response.status_code == 400, response.content
    assert (
        "episodes.reranker: cross_encoder is unavailable here: set MEMORIA_CROSS_ENCODER_MODEL"
        in (response.json()["detail"])
    )


def test_access(client_for, memory: str, db: None) -> None:
    body = {"query": "gloves", "group": memory, "config": {"facts": {"methods": ["bm25"]}}}
    assert get(APIClient(), q="gloves", group=memory).status_code == 401
    assert post(APIClient(), body).status_code == 401
    stranger = client_for("viewer", ["other"])
    assert get(stranger, q="gloves", group=memory).status_code == 404
    assert post(stranger, body).status_code == 404
    assert get(client_for("admin", username="boss"), q="gloves", group=memory).status_code == 200
    assert post(client_for("curator", [memory], username="cur"), body).status_code == 200


def test_a_search_narrowed_to_a_scope_over_get_and_post(client_for, group: str) -> None:
    from memoria.admission.episodes import episodes_admit

    alice = episodes_admit(
        group=group,
        given=[{"content": "Alice Martin moved to Lyon.", "user_id": "alice", "metadata": {"tier": "gold"}}],
        update_communities=False,
    )
    episodes_admit(
        group=group, given={"content": "Bob Keller moved to Lyon.", "user_id": "bob"}, update_communities=False
    )
    mine = {alice["episodes"][0]["episode_id"]}
    viewer = client_for("viewer", [group])
    both = get(viewer, q="moved to Lyon", group=group, scope="episodes").json()["episodes"]
    assert len(both) == 2
    narrowed = get(viewer, q="moved to Lyon", group=group, scope="episodes", user_id="alice")
    assert narrowed.status_code == 200, narrowed.content
    assert {hit["id"] for hit in narrowed.json()["episodes"]} == mine
    config = {"episodes": {"methods": ["bm25"]}}
    by_metadata = post(viewer, {"query": "Lyon", "group": group, "config": config, "metadata": {"tier": "gold"}})
    assert {hit["id"] for hit in by_metadata.json()["episodes"]} == mine
    refused = get(viewer, q="Lyon", group=group, agent_id="a b")
    assert refused.status_code == 400 and refused.json()["errors"] == [
        "agent_id: must be a scope id: 1–128 letters, digits or ._:/@#+-"
    ]
    bad = post(viewer, {"query": "Lyon", "group": group, "config": config, "metadata": {"tier": ["gold"]}})
    assert bad.status_code == 400 and bad.json()["errors"] == [
        "metadata: tier: must be a text, a number or true/false, not list"
    ]
