"""Request rates per user on retrieval, search and ingest: 429 with Retry-After and a body naming the limit, one
retrieval rate shared by REST and the websocket, and nothing throttled when a rate is off (the suite's default)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from explorer.consumers import RetrievalConsumer
from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.retrieval.test_activation import load
from tests.test_settings import load_settings

OFF = {"retrieval": None, "search": None, "ingest": None}


@pytest.fixture(autouse=True)
def fresh_counts() -> Iterator[None]:
    """User ids come back after each test's rollback: counts of an earlier test must not carry over."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def tiny_graph(group: str) -> str:
    load(group, ["a", "b", "c"], [("a", "b", 0.9, []), ("b", "c", 0.8, [])])
    return f"{group}-a"


def activation(client: APIClient, group: str, seed: str):
    body = {"group": group, "seeds": [{"id": seed, "score": 1.0}]}
    return client.post("/api/retrieval/activation", data=json.dumps(body), content_type="application/json")


def ppr(client: APIClient, group: str, seed: str):
    body = {"group": group, "seeds": [{"id": seed}]}
    return client.post("/api/retrieval/ppr", data=json.dumps(body), content_type="application/json")


def assert_throttled(response, *, scope: str, requests: int, period_seconds: int) -> None:
    assert response.status_code == 429, response.content
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= period_seconds
    body = response.json()
    assert body == {
        "detail": body["detail"],
        "code": "throttled",
        "scope": scope,
        "limit": {"requests": requests, "period_seconds": period_seconds},
        "retry_after": retry_after,
    }
    assert body["detail"].startswith(f"Too many {scope} requests: at most {requests} per ")


@override_settings(MEMORIA_THROTTLE_RATES={**OFF, "retrieval": "2/minute"})
def test_retrieval_is_counted_per_user_across_activation_and_ppr(client_for, group: str, tiny_graph: str) -> None:
    ana = client_for("viewer", [group], username="ana")
    assert activation(ana, group, tiny_graph).status_code == 200
    assert ppr(ana, group, tiny_graph).status_code == 200
    assert_throttled(activation(ana, group, tiny_graph), scope="retrieval", requests=2, period_seconds=60)
    assert_throttled(ppr(ana, group, tiny_graph), scope="retrieval", requests=2, period_seconds=60)
    bob = client_for("viewer", [group], username="bob")  # another user has a rate of their own
    assert activation(bob, group, tiny_graph).status_code == 200


@override_settings(MEMORIA_THROTTLE_RATES={**OFF, "search": "1/hour"})
def test_search_has_its_own_rate_and_counts_every_request(client_for, group: str, tiny_graph: str) -> None:
    client = client_for("viewer", [group])
    # Throttles are checked before the request is read: a refused request counts as much as an answered one.
    assert client.get("/api/search", {"group": group}).status_code == 400
    assert_throttled(
        client.get("/api/search", {"group": group, "q": "a"}), scope="search", requests=1, period_seconds=3600
    )
    assert activation(client, group, tiny_graph).status_code == 200  # retrieval is off here


@override_settings(MEMORIA_THROTTLE_RATES={**OFF, "ingest": "1/day"})
def test_episodes_and_imports_share_the_ingest_rate(client_for, group: str) -> None:
    client = client_for("curator", [group])
    empty = client.post(f"/api/groups/{group}/episodes", data="[]", content_type="application/json")
    assert empty.status_code == 400, empty.content  # refused, and counted: the rate is checked first
    imported = client.post(
        f"/api/groups/{group}/import", data=json.dumps({"nodes": [], "edges": []}), content_type="application/json"
    )
    assert_throttled(imported, scope="ingest", requests=1, period_seconds=86400)


@override_settings(MEMORIA_THROTTLE_RATES={"retrieval": "1/minute", "search": "1/minute", "ingest": "1/minute"})
def test_anonymous_callers_are_refused_before_they_are_counted(client_for, group: str, tiny_graph: str) -> None:
    anonymous = APIClient()
    for _ in range(3):
        assert activation(anonymous, group, tiny_graph).status_code == 401
    assert activation(client_for("viewer", [group]), group, tiny_graph).status_code == 200


@override_settings(MEMORIA_THROTTLE_RATES=OFF)
def test_a_rate_that_is_off_never_throttles(client_for, group: str, tiny_graph: str) -> None:
    client = client_for("viewer", [group])
    assert [activation(client, group, tiny_graph).status_code for _ in range(5)] == [200] * 5


async def receive_until_end(communicator: WebsocketCommunicator, retrieval_id: str) -> dict:
    while True:
        frame = await communicator.receive_json_from(timeout=60)
        if frame.get("retrieval_id") == retrieval_id and frame["type"] in ("retrieval_finished", "error"):
            return frame


@pytest.mark.django_db(transaction=True)
async def test_websocket_retrievals_spend_the_same_rate_as_rest(group: str, tiny_graph: str) -> None:
    user = await sync_to_async(user_grant)(username="sam", role=Role.VIEWER, groups=[group])
    client = APIClient()
    client.force_authenticate(user)
    with override_settings(MEMORIA_THROTTLE_RATES={**OFF, "retrieval": "2/minute"}):
        assert (await sync_to_async(activation)(client, group, tiny_graph)).status_code == 200
        communicator = WebsocketCommunicator(RetrievalConsumer.as_asgi(), "/ws/retrievals/")
        communicator.scope["user"] = user
        connected, _ = await communicator.connect()
        assert connected
        retrieve = {"type": "retrieve", "group": group, "seeds": [{"id": tiny_graph, "score": 1.0}]}
        await communicator.send_json_to({**retrieve, "retrieval_id": "w-1"})
        assert (await receive_until_end(communicator, "w-1"))["status"] == "completed"
        await communicator.send_json_to({**retrieve, "retrieval_id": "w-2"})
        refused = await receive_until_end(communicator, "w-2")
        assert refused["type"] == "error" and refused["code"] == "throttled"
        assert refused["scope"] == "retrieval" and refused["limit"] == {"requests": 2, "period_seconds": 60}
        assert 1 <= refused["retry_after"] <= 60 and "at most 2 per minute" in refused["message"]
        assert (await sync_to_async(activation)(client, group, tiny_graph)).status_code == 429
        await communicator.disconnect()


@pytest.mark.parametrize(
    ("value", "refused"), [("120/minute", False), ("off", False), ("5/week", True), ("0/minute", True), ("fast", True)]
)
def test_rates_from_the_environment_are_checked_at_start_up(tmp_path: Path, value: str, refused: bool) -> None:
    code, loaded = load_settings(tmp_path, MEMORIA_THROTTLE_SEARCH=value)
    if refused:
        assert code != 0 and f"MEMORIA_THROTTLE_SEARCH={value!r} must be N/second, N/minute" in loaded
    else:
        assert code == 0, loaded
