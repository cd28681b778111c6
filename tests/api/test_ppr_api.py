"""POST /api/retrieval/ppr in-process: the answer's shape and freshness, and a precise 4xx for every bad field."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from memoria.api.errors import exception_handler
from memoria.errors import ProjectionLoading
from memoria.projection.cache import projection_cache
from tests.conftest import count_group
from tests.projection.graphs import random_memory, store


def run(client: APIClient, body: object):
    return client.post("/api/retrieval/ppr", data=json.dumps(body), content_type="application/json")


@pytest.fixture
def memory(group: str):
    store(group, random_memory(group, entities=40, episodes=5, facts=120, seed=3))
    yield group
    projection_cache().forget(group)


def test_a_viewer_gets_scores_and_freshness(client_for, memory: str) -> None:
    body = {"group": memory, "seeds": [{"id": f"{memory}-e1", "weight": 2}, {"id": f"{memory}-e2"}], "top_k": 7}
    response = run(client_for("viewer", [memory]), body)
    assert response.status_code == 200, response.content
    answer = response.json()
    assert set(answer) == {
        "group",
        "algorithm",
        "seed_source",
        "seeds",
        "scores",
        "passages",
        "relation_aware",
        "betas",
        "facts",
        "fact_filter",
        "iterations",
        "converged",
        "error_bound",
        "method",
        "damping",
        "directed",
        "mentions",
        "nodes",
        "edges",
        "projection",
        "seconds",
        "status",
        "budget",
        "time",
        "facts_left_out",
    }
    assert answer["status"] == "completed" and answer["budget"]["exhausted"] is None
    assert answer["seeds"] == [{"id": f"{memory}-e1", "weight": 2 / 3}, {"id": f"{memory}-e2", "weight": 1 / 3}]
    assert len(answer["scores"]) == 7 and set(answer["scores"][0]) == {"id", "name", "kind", "score"}
    assert len(answer["passages"]) == 5 and {p["kind"] for p in answer["passages"]} == {"Episode"}
    assert not answer["relation_aware"] and answer["betas"] is None and answer["facts"] == []
    assert answer["converged"] and answer["error_bound"] <= 1e-6 and answer["damping"] == 0.5
    projection = answer["projection"]
    assert projection["state"] == "ready" and projection["version"] == projection["current_version"] >= 1
    assert projection["age_seconds"] >= 0 and projection["load_seconds"] > 0


def test_damping_and_direction_are_applied(client_for, memory: str) -> None:
    client = client_for("viewer", [memory])
    seeds = [{"id": f"{memory}-e5"}]
    loose = run(client, {"group": memory, "seeds": seeds, "damping": 0.85, "directed": True}).json()
    tight = run(client, {"group": memory, "seeds": seeds, "damping": 0.15, "directed": True}).json()
    assert loose["directed"] and loose["method"] == "power"
    # The seed keeps more of the walk when the walker restarts more often.
    assert tight["scores"][0]["id"] == f"{memory}-e5"
    assert tight["scores"][0]["score"] > loose["scores"][0]["score"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"seeds": [{"id": "a"}]}, "group: is required"),
        ({"group": "g", "seeds": []}, "seeds: must be a non-empty list"),
        ({"group": "g", "seeds": [{"id": "a", "weight": -1}]}, "seeds[0].weight: must be a finite number ≥ 0"),
        ({"group": "g", "seeds": [{"id": "a", "weight": "1"}]}, "seeds[0].weight: must be a finite number ≥ 0"),
        ({"group": "g", "seeds": [{"id": "a", "weight": 0}]}, "at least one weight must be above 0"),
        ({"group": "g", "seeds": [{"id": "a"}, {"id": "a"}]}, "seeds[1].id: 'a' is given twice"),
        ({"group": "g", "seeds": [{"id": "a b"}]}, "seeds[0].id: must be a node id"),
        ({"group": "g", "seeds": [{"id": "a", "score": 1}]}, "seeds[0]: unknown field(s) score"),
        ({"group": "g", "seeds": [{"id": f"n{i}"} for i in range(1001)]}, "seeds: at most 1000 items, got 1001"),
        ({"group": "g", "seeds": [{"id": "a"}], "query": "x"}, "not both (both: relation_aware only)"),
        ({"group": "g", "query": ""}, "query: must be a non-empty text"),
        ({"group": "g", "damping": 1}, "damping: must be a number strictly between 0 and 1"),
        ({"group": "g", "damping": 0}, "damping: must be a number strictly between 0 and 1"),
        ({"group": "g", "damping": True}, "damping: must be a number strictly between 0 and 1"),
        ({"group": "g", "top_k": 0}, "top_k: must be a whole number in [1, 1000]"),
        ({"group": "g", "top_k": 1001}, "top_k: must be a whole number in [1, 1000]"),
        ({"group": "g", "top_k": 2.5}, "top_k: must be a whole number in [1, 1000]"),
        ({"group": "g", "directed": "yes"}, "directed: must be true or false"),
        ({"group": "g", "relation_aware": True}, "relation_aware: give a query"),
        ({"group": "g", "relation_aware": 1}, "relation_aware: must be true or false"),
        ({"group": "g", "betas": {"entity_entity": {"TEMPORAL": 1}}}, "betas: only used with relation_aware: true"),
        ({"group": "g", "relation_aware": True, "betas": []}, "betas: must be a JSON object"),
        ({"group": "g", "relation_aware": True, "betas": {"TEMPORAL": 1}}, "betas: unknown field(s) TEMPORAL"),
        (
            {"group": "g", "relation_aware": True, "betas": {"entity_entity": {"WHEN": 1}}},
            "betas.entity_entity.WHEN: not one of",
        ),
        (
            {"group": "g", "relation_aware": True, "betas": {"entity_passage": {"PRIMARY": -1}}},
            "betas.entity_passage.PRIMARY: must be a finite number ≥ 0",
        ),
        (
            {"group": "g", "relation_aware": True, "betas": {"entity_entity": {"SPATIAL": 0, "TEMPORAL": 0}}},
            "betas.entity_entity: at least one β must be above 0",
        ),
        ({"group": "g", "algorithm": "activation"}, "algorithm: must be 'ppr'"),
        ({"group": "g", "limit": 3}, "body: unknown field(s) limit"),
        ([], "body: must be a JSON object"),
        ({"group": "g", "seeds": [{"weight": 1}]}, "seeds[0].id: is required"),
        ({"group": "g", "budget": {"max_rows": "x"}}, "budget.max_rows: must be a whole number"),
        ({"group": "g", "betas_source": None}, "betas_source: must be one of auto, offline, llm"),
    ],
)
def test_bad_bodies_answer_400_naming_the_field(client_for, body: object, expected: str) -> None:
    response = run(client_for("viewer", ["g"]), body)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid"
    assert any(expected in problem for problem in response.json()["errors"]), response.json()


def test_relation_aware_with_the_callers_betas(client_for, memory: str) -> None:
    body = {
        "group": memory,
        "seeds": [{"id": f"{memory}-e3"}],
        "relation_aware": True,
        "betas": {"entity_entity": {"TEMPORAL": 3, "SPATIAL": 1}},
    }
    answer = run(client_for("viewer", [memory]), body).json()
    assert answer["relation_aware"] and answer["seed_source"] == "caller"
    betas = answer["betas"]
    assert betas["source"] == "caller"
    # Categories left out take the average of those given (2), then the family is normalised.
    assert betas["entity_entity"] == {
        "HIERARCHICAL": 0.2,
        "TEMPORAL": 0.3,
        "SPATIAL": 0.1,
        "CAUSALITY": 0.2,
        "ATTRIBUTION": 0.2,
    }
    assert betas["entity_passage"] == {"PRIMARY": 1 / 3, "SECONDARY": 1 / 3, "PERIPHERAL": 1 / 3}
    assert answer["converged"]


def test_seeds_outside_the_group_answer_400_and_write_nothing(client_for, memory: str) -> None:
    before = count_group(memory)
    response = run(client_for("viewer", [memory]), {"group": memory, "seeds": [{"id": "elsewhere-1"}]})
    assert response.status_code == 400
    assert response.json()["errors"] == [f"seeds[0].id: no node 'elsewhere-1' in group {memory!r}"]
    assert count_group(memory) == before


def test_groups_the_user_cannot_see_answer_404(client_for, memory: str) -> None:
    response = run(client_for("viewer", ["another"]), {"group": memory})
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_anonymous_callers_are_refused(db: None, memory: str) -> None:
    response = run(APIClient(), {"group": memory})
    assert response.status_code == 401


def test_a_projection_still_loading_answers_503_with_retry_after() -> None:
    response = exception_handler(ProjectionLoading("the graph projection of group 'g' is loading, 40% done"), {})
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response.data == {
        "detail": "the graph projection of group 'g' is loading, 40% done",
        "code": "projection_loading",
        "retry_after": 5,
    }
