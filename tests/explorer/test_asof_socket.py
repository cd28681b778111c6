"""as_of, known_at and include_invalidated on the retrieval websocket: an error frame naming the field for a bad
value (the socket stays open), and the moment a run used in its retrieval_started."""

from __future__ import annotations

import json

import pytest

from memoria.accounts.roles import Role
from tests.explorer.test_retrieval_socket import connect, receive, token_for_role, until_finished
from tests.projection.graphs import random_memory, store

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["token_for_role"]  # the fixture, shared with the activation socket tests


@pytest.mark.parametrize(
    ("algorithm", "fields", "problem"),
    [
        ("activation", {"as_of": "soon"}, "as_of: must be an ISO 8601 date-time"),
        (
            "ppr",
            {"known_at": "9999-12-31T23:00:00-05:00"},
            "known_at: must be an ISO 8601 date-time with a zone (is out",
        ),
        ("ppr", {"include_invalidated": True, "known_at": "2026-01-01T00:00:00Z"}, "include_invalidated: true counts"),
    ],
)
async def test_a_bad_time_gets_an_error_frame_naming_the_field(
    daphne_url: str, token_for_role, algorithm: str, fields: dict, problem: str
) -> None:
    token = await token_for_role("agent", Role.VIEWER, ["g"])
    seed = {"id": "x", "score": 1} if algorithm == "activation" else {"id": "x"}
    frame = {"type": "retrieve", "algorithm": algorithm, "group": "g", "seeds": [seed], **fields}
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps(frame))
        error = await receive(socket)
        assert error["type"] == "error" and error["code"] == "invalid", error
        assert any(given.startswith(problem) for given in error["errors"]), error
        await socket.send(json.dumps({"type": "cancel", "retrieval_id": "none"}))
        assert (await receive(socket))["code"] == "unknown_retrieval"  # still open and answering


@pytest.mark.parametrize("algorithm", ["activation", "ppr"])
async def test_a_run_reports_its_moment(daphne_url: str, group: str, token_for_role, algorithm: str) -> None:
    store(group, random_memory(group, entities=20, episodes=2, facts=40, seed=4))
    token = await token_for_role("agent", Role.VIEWER, [group])
    seed = {"id": f"{group}-e1", "score": 1} if algorithm == "activation" else {"id": f"{group}-e1"}
    frame = {
        "type": "retrieve",
        "algorithm": algorithm,
        "retrieval_id": "t-1",
        "group": group,
        "seeds": [seed],
        "as_of": "2026-02-01T00:00:00Z",
    }
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps(frame))
        events = await until_finished(socket, "t-1")
    started = events[0]
    assert started["type"] == "retrieval_started" and started["time"]["as_of"] == "2026-02-01T00:00:00Z"
    assert started["time"]["known_at"] >= "2026-01-01" and not started["time"]["include_invalidated"]
    assert events[-1]["status"] == "completed"
