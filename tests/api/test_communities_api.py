"""POST /api/groups/<group>/communities: curators rebuild, viewers may not, LLM failures map to 502/503."""

from __future__ import annotations

import json

from rest_framework.test import APIClient

from memoria.graph import driver, kinds
from tests.ingest.test_communities import FAMILY, SUPPLY, add_memory, clique
from tests.llm.fake_openai import chat_reply, fake_openai

COMMUNITY_COUNT = f"MATCH (c:{kinds.COMMUNITY} {{group_id: $group}}) RETURN count(c) AS n"


def post_build(client: APIClient, group: str, body: object = None) -> object:
    data = json.dumps(body) if body is not None else None
    return client.post(f"/api/groups/{group}/communities", data=data, content_type="application/json")


def two_clusters(group: str) -> None:
    add_memory(group, {**SUPPLY, **FAMILY}, [*clique(group, list(SUPPLY), ["stock"]), *clique(group, list(FAMILY), [])])


def communities_stored(group: str) -> int:
    return driver.read(COMMUNITY_COUNT, group=group)[0]["n"]


def test_a_curator_builds_and_a_viewer_may_not(client_for, group: str) -> None:
    two_clusters(group)
    assert post_build(client_for("viewer", [group]), group).status_code == 403
    assert communities_stored(group) == 0
    response = post_build(client_for("curator", [group]), group, {"algorithm": "label_propagation"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["group"], body["summaries"], body["clustered_entities"]) == (group, "extractive", 8)
    assert sorted(community["members"] for community in body["communities"]) == [4, 4]
    assert communities_stored(group) == 2


def test_bad_requests_and_foreign_groups(client_for, group: str) -> None:
    curator = client_for("curator", [group])
    response = post_build(curator, group, {"algorithm": "louvain"})
    assert response.status_code == 400 and response.json()["errors"][0].startswith("algorithm: "), response.json()
    assert post_build(curator, group, ["label_propagation"]).status_code == 400
    assert post_build(client_for("curator", ["elsewhere"], username="other"), group).status_code == 404


def test_a_failing_llm_answers_502_or_503_and_keeps_the_old_communities(client_for, group: str, settings) -> None:
    two_clusters(group)
    curator = client_for("curator", [group])
    assert post_build(curator, group).status_code == 200
    with fake_openai() as server:
        settings.MEMORIA_LLM_URL, settings.MEMORIA_LLM_MODEL = server.url, "test-model"
        server.respond = lambda request: chat_reply("I would rather not.")
        response = post_build(curator, group)
        assert (response.status_code, response.json()["code"]) == (502, "llm_invalid_answer")
    response = post_build(curator, group)  # the server is gone now
    assert (response.status_code, response.json()["code"]) == (503, "llm_unavailable")
    assert communities_stored(group) == 2
