"""POST /api/retrieval/activation in-process: the answer's shape, seeds from a query, and precise 4xx answers."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.interchange.exporter import graph_document_export
from memoria.projection.cache import ProjectionCache
from memoria.reindex import group_reindex
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.query_tags import forget_group_vocabulary
from memoria.retrieval.reference import EdgeData, ReferenceGraph
from tests.projection.test_cache import GatedLoader


def run(client: APIClient, body: object):
    return client.post("/api/retrieval/activation", data=json.dumps(body), content_type="application/json")


@pytest.fixture
def demo_group(group: str) -> str:
    call_command("load_demo", "--group", group, "--quiet", stdout=open("/dev/null", "w"))  # noqa: SIM115
    forget_group_vocabulary(group=group)
    return group


def reference_for(group: str, moment: AsOf = EVERY_FACT) -> ReferenceGraph:
    """The exported facts at `moment` (the export carries valid time; the demo's facts were all learned at load)."""
    document = graph_document_export(group=group)
    return ReferenceGraph(
        (
            EdgeData(
                e["id"], e["source"], e["target"], e["weight"], tuple(e["tags"]), e.get("valid_at"), e.get("invalid_at")
            )
            for e in document["edges"]
        ),
        moment=moment,
    )


def test_answer_matches_the_reference_on_the_demo(client_for, demo_group: str) -> None:
    seeds = [{"id": "demo-req-0007", "score": 0.9}, {"id": "demo-ds-003", "score": 0.7}]
    body = {"group": demo_group, "seeds": seeds, "query_tags": ["stockout", "safety_stock"]}
    response = run(client_for("viewer", [demo_group]), body)
    assert response.status_code == 200, response.content
    answer = response.json()
    assert set(answer) == {
        "retrieval_id",
        "group",
        "query_tags",
        "params",
        "seed_source",
        "engine",
        "time",
        "seeds",
        "stats",
    }
    assert not answer["time"]["include_invalidated"] and answer["time"]["as_of"] == answer["time"]["known_at"]
    assert answer["engine"] == {"name": "cypher", "requested": "cypher", "view": None, "fallback": None}
    assert answer["stats"]["status"] == "completed" and answer["stats"]["round_trips"] >= 2
    reference = reference_for(demo_group, AsOf(answer["time"]["as_of"], answer["time"]["known_at"]))
    for seed, given in zip(answer["seeds"], seeds, strict=True):
        assert seed["seed_id"] == given["id"] and seed["status"] == "completed"
        expected = reference.explore(given["id"], given["score"], ["safety_stock", "stockout"], ActivationParams())
        got = sorted((tuple(p["nodes"]), tuple(h["transfer_energy"] for h in p["hops"])) for p in seed["paths"])
        assert got == sorted((p.nodes, p.energies) for p in expected)
        hop = next(p["hops"][0] for p in seed["paths"] if p["hops"])
        assert set(hop) >= {"source", "target", "relation", "weight", "degree", "tag_similarity", "transfer_energy"}


def test_seeds_and_tags_come_from_the_query(client_for, demo_group: str) -> None:
    group_reindex(group=demo_group)
    response = run(
        client_for("viewer", [demo_group]),
        {"group": demo_group, "query": "Why did stockouts hit the Lyon warehouse? safety stock"},
    )
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["seed_source"] == "search"
    assert 1 <= len(answer["seeds"]) <= 5
    assert all(0 < seed["score"] <= 1 for seed in answer["seeds"])
    assert "stockout" in answer["query_tags"] and "safety_stock" in answer["query_tags"]
    assert any(seed["paths"] and seed["paths"][0]["hops"] for seed in answer["seeds"])


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"group": "g"}, "seeds or query"),
        ({"group": "g", "seeds": [{"id": "a", "score": 0}]}, "seeds[0].score: 0 is outside (0, 1]"),
        ({"group": "g", "seeds": [{"id": f"n{i}", "score": 1} for i in range(6)]}, "seeds: at most 5 items, got 6"),
        ({"group": "g", "seeds": [{"id": "a", "score": 1}], "params": {"max_branches": 0}}, "params.max_branches"),
        ({"group": "g", "seeds": [{"id": "a", "score": 1}], "query_tags": "x"}, "query_tags: must be a list"),
        ({"seeds": [{"id": "a", "score": 1}]}, "group: is required"),
        ({"group": "g", "seeds": [{"id": "a", "score": 1}], "params": {"max_depth": "3"}}, "params.max_depth: must be"),
        ({"group": "g", "seeds": [{"id": "a", "score": 1, "weight": 1}]}, "seeds[0]: unknown field(s) weight"),
        ({"group": "g", "seeds": [{"id": "a", "score": 1}] * 2}, "seeds[1].id: 'a' is given twice"),
        ({"group": "g", "query": "x", "budget": {"rows": 1}}, "budget: unknown field(s) rows"),
        ({"group": "g", "query": "x", "colour": 1}, "body: unknown field(s) colour"),
        ([], "body: must be a JSON object"),
        (
            {"group": "g", "seeds": [{"id": "a", "score": 1}], "engine": "gpu"},
            "engine: must be one of auto, cypher, view",
        ),
    ],
)
def test_bad_requests_are_400_with_the_field(client_for, body: object, expected: str) -> None:
    response = run(client_for("viewer", ["g"]), body)
    assert response.status_code == 400
    assert expected in response.json()["detail"]


def test_access(client_for, demo_group: str, db: None) -> None:
    body = {"group": demo_group, "seeds": [{"id": "demo-req-0007", "score": 1}]}
    assert run(APIClient(), body).status_code == 401
    assert run(client_for("viewer", ["other"]), body).status_code == 404
    assert run(client_for("admin", username="boss"), body).status_code == 200


def test_the_view_engine_answers_as_cypher_does_and_says_its_version_and_age(client_for, demo_group: str) -> None:
    client = client_for("viewer", [demo_group])
    body = {
        "group": demo_group,
        "seeds": [{"id": "demo-req-0007", "score": 0.9}, {"id": "demo-ds-003", "score": 0.7}],
        "query_tags": ["stockout", "safety_stock"],
        "explain": True,
    }
    answers = {engine: run(client, {**body, "engine": engine}) for engine in ("cypher", "view", "auto")}
    assert all(response.status_code == 200 for response in answers.values())
    cypher, view, auto = (answers[engine].json() for engine in ("cypher", "view", "auto"))
    assert view["engine"]["name"] == "view" and view["engine"]["requested"] == "view"
    assert view["engine"]["view"]["version"] == view["engine"]["view"]["current_version"] > 0
    assert view["engine"]["view"]["age_seconds"] >= 0 and view["engine"]["fallback"] is None
    assert auto["engine"]["name"] == "view" and auto["engine"]["requested"] == "auto"  # loaded by the request before
    assert view["seeds"] == cypher["seeds"] == auto["seeds"]
    assert view["stats"]["round_trips"] == 0 and cypher["stats"]["round_trips"] > 0


def test_a_view_still_loading_is_a_503_when_asked_for_and_a_fallback_for_auto(
    client_for, demo_group: str, monkeypatch, settings
) -> None:
    loader = GatedLoader()
    loader.gate.clear()
    monkeypatch.setattr("memoria.retrieval.engines.projection_cache", lambda: cache)
    cache = ProjectionCache(loader=loader)
    settings.MEMORIA_PROJECTION_WAIT_SECONDS = 0.2
    client = client_for("viewer", [demo_group])
    body = {"group": demo_group, "seeds": [{"id": "demo-req-0007", "score": 0.9}]}
    try:
        refused = run(client, {**body, "engine": "view"})
        assert refused.status_code == 503 and refused.json()["code"] == "projection_loading"
        assert refused["Retry-After"] == "5"
        answered = run(client, {**body, "engine": "auto"})
        assert answered.status_code == 200
        engine = answered.json()["engine"]
        assert engine["name"] == "cypher" and engine["requested"] == "auto" and "is loading" in engine["fallback"]
    finally:
        loader.gate.set()
