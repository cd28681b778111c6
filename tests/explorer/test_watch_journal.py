"""A watcher who arrives after a retrieval lists the group's recent retrievals and replays one, against daphne."""

from __future__ import annotations

import json

import pytest

from memoria.accounts.roles import Role
from tests.explorer.test_retrieval_socket import (  # noqa: F401 - fixtures
    connect,
    receive,
    small_graph,
    token_for_role,
    until_finished,
)

pytestmark = pytest.mark.django_db(transaction=True)
MOMENT = "2026-01-01T00:00:00Z"


async def test_a_late_watcher_lists_and_replays(
    daphne_url: str,
    group: str,
    small_graph: list[str],  # noqa: F811
    token_for_role,  # noqa: F811
) -> None:
    agent = await token_for_role("agent", Role.VIEWER, [group])
    analyst = await token_for_role("analyst", Role.VIEWER, [group])
    async with connect(daphne_url, "/ws/retrievals/", agent) as socket:
        request = {"type": "retrieve", "retrieval_id": "late", "group": group, "explain": True, "as_of": MOMENT}
        await socket.send(json.dumps(request | {"seeds": [{"id": small_graph[4], "score": 0.7}]}))
        sent = await until_finished(socket, "late")

    async with connect(daphne_url, f"/ws/retrievals/watch/?group={group}", analyst) as watcher:
        assert await receive(watcher) == {"type": "watching", "group": group}
        await watcher.send(json.dumps({"type": "list"}))
        listed = await receive(watcher)
        assert listed["type"] == "retrievals" and listed["group"] == group
        (run,) = [item for item in listed["retrievals"] if item["retrieval_id"] == "late"]
        assert run["requested_by"] == "agent" and run["status"] == "completed" and run["explain"] is True
        assert run["seeds"] == [{"id": small_graph[4], "score": 0.7}]
        assert run["time"]["as_of"] == MOMENT and run["time"]["include_invalidated"] is False  # shown per run
        assert run["paths"] == sent[-1]["paths"] and run["events"] == len(sent)

        await watcher.send(json.dumps({"type": "replay", "retrieval_id": "late"}))
        replay = await receive(watcher)
        assert replay == {
            "type": "replay",
            "retrieval_id": "late",
            "events": sent,
            "finished": True,
            "truncated": False,
        }

        await watcher.send(json.dumps({"type": "replay", "retrieval_id": "never-ran"}))
        assert (await receive(watcher))["code"] == "unknown_retrieval"
        await watcher.send(json.dumps({"type": "retrieve"}))
        assert (await receive(watcher))["message"] == "unknown type 'retrieve': use list or replay"

    outsider = await token_for_role("outsider", Role.VIEWER, [f"{group}-x"])
    async with connect(daphne_url, f"/ws/retrievals/watch/?group={group}", outsider) as intruder:
        assert (await receive(intruder))["code"] == "not_found"  # the journal is out of reach too
