"""Ingest into a small group beside two MuSiQue-sized groups: what failed before the views (issue 12).

With two groups of about 21k nodes each on the server (entity names embedded by the real model, so the server's
vector index holds names close to a conversation's), resolving a LoCoMo conversation's names against the server's
all-groups indexes died with ArcadeDB's "Query heap budget exceeded"; 200 episodes through the API answered 503
after a minute. Resolution now reads the group's own view, so the crowd costs nothing.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.bench.tenants import SET_NODE_VECTORS, group_delete
from memoria.datasets.locomo import locomo_episodes
from memoria.datasets.musique import musique_document
from memoria.embeddings import configured_model_id, embedder
from memoria.graph import driver
from memoria.ingest.pipeline import episodes_add
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.readmodel.cache import view_cache
from tests.conftest import count_group

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
CONVERSATION = SHARED / "locomo" / "conversation-26.json"


@pytest.fixture(scope="module")
def crowd(graph_server: object) -> Iterator[list[str]]:
    if not (SHARED / "musique" / "corpus.json").exists() or not CONVERSATION.exists():
        pytest.skip(f"the shared datasets are not at {SHARED}")
    groups = [f"crowd-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    vectors: dict[str, list[float]] = {}
    for group in groups:
        document = musique_document(SHARED / "musique", group=group)
        graph_document_import(document=parse_graph_document(document, group=group), group=group)
        entities = [node for node in document["nodes"] if "Entity" in node["labels"]]
        if not vectors:  # the two groups hold the same names: embed them once
            names = sorted({node["name"] for node in entities})
            vectors = dict(zip(names, embedder().embed(names), strict=True))
        rows = [{"id": node["id"], "vector": vectors[node["name"]]} for node in entities]
        for start in range(0, len(rows), 2000):
            driver.write(SET_NODE_VECTORS, rows=rows[start : start + 2000], group=group, model=configured_model_id())
    yield groups
    for group in groups:
        group_delete(group)


def test_a_conversation_ingests_beside_two_musique_sized_groups(crowd: list[str], group: str) -> None:
    assert all(count_group(name)["nodes"] > 20_000 for name in crowd)
    episodes = locomo_episodes(CONVERSATION, group=group)
    results = episodes_add(group=group, episodes=episodes)  # the default batch size
    assert len(results) == len(episodes) > 300
    stored = driver.read("MATCH (e:Episode {group_id: $group}) RETURN count(e) AS c", group=group)[0]["c"]
    assert stored == len(episodes)
    held = {size.group for size in view_cache().sizes()}
    assert group in held and not held & set(crowd)  # resolution read the group's own view, never the crowd's


def test_two_hundred_episodes_through_the_api_beside_them(crowd: list[str], group: str, db: None) -> None:
    curator = APIClient()
    user = user_grant(username="crowd-curator", role=Role.CURATOR, groups=[group])
    curator.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user=user)}")
    body = [{"content": f"Caroline met Melanie at the {n}th support group meeting in Boston."} for n in range(200)]
    response = curator.post(f"/api/groups/{group}/episodes", data=json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 201), response.content[:500]
    assert len(response.json()["episodes"]) == 200
    stored = driver.read("MATCH (e:Episode {group_id: $group}) RETURN count(e) AS c", group=group)[0]["c"]
    assert stored == 200
