"""POST /api/groups/<group>/communities with "algorithm": "leiden": the resolution is echoed, bad bodies are 400s."""

from __future__ import annotations

import pytest

from tests.api.test_communities_api import communities_stored, post_build, two_clusters


def test_a_curator_builds_leiden_communities_at_a_resolution(client_for, group: str) -> None:
    two_clusters(group)
    response = post_build(client_for("curator", [group]), group, {"algorithm": "leiden", "resolution": 0.8})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["algorithm"], body["resolution"], body["clustered_entities"]) == ("leiden", 0.8, 8)
    assert sorted(community["members"] for community in body["communities"]) == [4, 4]
    assert communities_stored(group) == 2


def test_label_propagation_answers_no_resolution(client_for, group: str) -> None:
    two_clusters(group)
    response = post_build(client_for("curator", [group]), group, {})
    assert response.status_code == 200, response.content
    assert (response.json()["algorithm"], response.json()["resolution"]) == ("label_propagation", None)


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"algorithm": "leiden", "resolution": 0}, "resolution", "must be greater than 0"),
        # graspologic-native refused the first and panicked on the second (found by tests/api/test_schema_fuzz.py)
        ({"algorithm": "leiden", "resolution": 5e-324}, "resolution", "must be 1e-06–1e+06"),
        ({"algorithm": "leiden", "resolution": 1.7e308}, "resolution", "must be 1e-06–1e+06"),
        ({"algorithm": "leiden", "resolution": "much"}, "resolution", "Input should be a valid number"),
        ({"algorithm": "leiden", "resolution": True}, "resolution", "Input should be a valid number"),
        ({"algorithm": "leiden", "resolution": None}, "resolution", "Input should be a valid number"),
        ({"resolution": 1.5}, "resolution", "only the leiden algorithm takes one"),
        ({"algorithm": "Leiden"}, "algorithm", "Input should be 'label_propagation' or 'leiden'"),
        ({"algorithm": "leiden", "colour": "red"}, "body", "unknown field(s) colour"),
    ],
)
def test_bad_bodies_are_400_naming_the_field_and_write_nothing(
    client_for, group: str, body: dict, field: str, message: str
) -> None:
    two_clusters(group)
    response = post_build(client_for("curator", [group]), group, body)
    assert response.status_code == 400, response.content
    assert any(problem.startswith(f"{field}: {message}") for problem in response.json()["errors"]), response.json()
    assert communities_stored(group) == 0
