"""as_of, known_at and include_invalidated on POST /api/retrieval/activation and /api/retrieval/ppr: bad values
answer 400 naming the field, and a good moment is run and reported as asked."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from tests.projection.graphs import random_memory, store

ENDPOINTS = {"activation": "/api/retrieval/activation", "ppr": "/api/retrieval/ppr"}
BAD = [
    ({"as_of": "last tuesday"}, "as_of: must be an ISO 8601 date-time"),
    ({"known_at": "2026-01-01T00:00:00"}, "known_at: must be an ISO 8601 date-time with a zone (has no time zone"),
    ({"as_of": "0001-01-01T00:00:00+05:00"}, "as_of: must be an ISO 8601 date-time with a zone (is out of range"),
    ({"known_at": 1767225600}, "known_at: Input should be a valid string"),
    ({"include_invalidated": "true"}, "include_invalidated: Input should be a valid boolean"),
    (
        {"include_invalidated": True, "as_of": "2026-01-01T00:00:00Z"},
        "include_invalidated: true counts every fact at every time, so it cannot come with as_of",
    ),
]


def post(client: APIClient, algorithm: str, body: dict):
    return client.post(ENDPOINTS[algorithm], data=json.dumps(body), content_type="application/json")


def body_for(algorithm: str, group: str) -> dict:
    if algorithm == "ppr":
        return {"group": group, "seeds": [{"id": f"{group}-e1"}]}
    return {"group": group, "seeds": [{"id": f"{group}-e1", "score": 1.0}]}


@pytest.mark.parametrize("algorithm", ENDPOINTS)
@pytest.mark.parametrize(("fields", "problem"), BAD)
def test_bad_times_answer_400_naming_the_field(client_for, group: str, algorithm: str, fields: dict, problem: str):
    response = post(client_for("viewer", [group]), algorithm, {**body_for(algorithm, group), **fields})
    assert response.status_code == 400, response.content
    assert any(given.startswith(problem) for given in response.json()["errors"]), response.json()


@pytest.mark.parametrize("algorithm", ENDPOINTS)
def test_a_moment_is_run_and_reported(client_for, group: str, algorithm: str) -> None:
    store(group, random_memory(group, entities=20, episodes=2, facts=40, seed=4))
    client = client_for("viewer", [group])
    asked = {"as_of": "2026-01-01T01:00:00+01:00", "known_at": "2030-01-01T00:00:00Z"}
    answer = post(client, algorithm, {**body_for(algorithm, group), **asked}).json()
    assert answer["time"] == {
        "as_of": "2026-01-01T00:00:00Z",
        "known_at": "2030-01-01T00:00:00Z",
        "include_invalidated": False,
    }
    every = post(client, algorithm, {**body_for(algorithm, group), "include_invalidated": True}).json()
    assert every["time"] == {"as_of": None, "known_at": None, "include_invalidated": True}
