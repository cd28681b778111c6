"""PPR on the retrieval websocket against a real daphne: iterations as the scores converge, the REST answer at the
end, watchers and the journal, precise error frames, and cancel."""

from __future__ import annotations

import asyncio
import json

import pytest

from explorer.errors import error_frame
from memoria.accounts.roles import Role
from memoria.errors import ProjectionLoading
from tests.explorer.test_retrieval_socket import connect, post_json, receive, token_for_role, until_finished
from tests.projection.graphs import random_memory, store

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["token_for_role"]  # the fixture, shared with the activation socket tests


@pytest.fixture
def memory(group: str) -> str:
    store(group, random_memory(group, entities=60, episodes=6, facts=240, seed=8))
    return group


async def test_iterations_stream_then_the_rest_answer(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("agent", Role.VIEWER, [memory])
    body = {"group": memory, "seeds": [{"id": f"{memory}-e1", "weight": 2}, {"id": f"{memory}-e2"}], "top_k": 8}
    async with connect(daphne_url, f"/ws/retrievals/watch/?group={memory}", token) as watcher:
        assert (await receive(watcher))["type"] == "watching"
        async with connect(daphne_url, "/ws/retrievals/", token) as socket:
            await socket.send(json.dumps({"type": "retrieve", "algorithm": "ppr", "retrieval_id": "p-1", **body}))
            events = await until_finished(socket, "p-1")
        watched = await until_finished(watcher, "p-1")
        await watcher.send(json.dumps({"type": "list"}))
        listed = await receive(watcher)

    kinds = [event["type"] for event in events]
    assert kinds[0] == "retrieval_started" and kinds[-2:] == ["ppr_finished", "retrieval_finished"], kinds
    assert all(event["retrieval_id"] == "p-1" for event in events)
    started, finished, done = events[0], events[-2], events[-1]
    assert started["algorithm"] == "ppr" and started["requested_by"] == "agent"
    assert started["seeds"] == [*body["seeds"][:1], {"id": f"{memory}-e2", "weight": 1.0}]
    assert started["params"]["top_k"] == 8 and started["params"]["damping"] == 0.5

    iterations = [event for event in events if event["type"] == "ppr_iteration"]
    assert iterations and iterations[0]["iteration"] == 1
    numbers = [event["iteration"] for event in iterations]
    assert numbers == sorted(set(numbers)) and numbers[-1] <= finished["iterations"]
    for event in iterations:
        assert len(event["top"]) == 8 and set(event["top"][0]) == {"id", "name", "kind", "score"}
        scores = [node["score"] for node in event["top"]]
        assert scores == sorted(scores, reverse=True)
    assert iterations[-1]["error_bound"] < iterations[0]["error_bound"] or len(iterations) == 1

    status, rest = await asyncio.to_thread(post_json, daphne_url + "/api/retrieval/ppr", body, token)
    assert status == 200, rest
    assert finished["scores"] == rest["scores"] and finished["passages"] == rest["passages"]
    assert finished["iterations"] == rest["iterations"] and finished["converged"]
    assert finished["projection"]["version"] == rest["projection"]["version"]
    assert finished["betas"] is None and not finished["relation_aware"]
    assert done["status"] == "completed" and done["iterations"] == finished["iterations"]

    assert [event["type"] for event in watched] == kinds
    (summary,) = [run for run in listed["retrievals"] if run["retrieval_id"] == "p-1"]
    assert summary["algorithm"] == "ppr" and summary["status"] == "completed"


async def test_relation_aware_with_the_callers_betas_reports_them(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("agent", Role.VIEWER, [memory])
    body = {
        "group": memory,
        "seeds": [{"id": f"{memory}-e4"}],
        "relation_aware": True,
        "betas": {"entity_entity": {"CAUSALITY": 4, "HIERARCHICAL": 0}},
    }
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps({"type": "retrieve", "algorithm": "ppr", "retrieval_id": "ra", **body}))
        events = await until_finished(socket, "ra")
        plain = {key: value for key, value in body.items() if key not in ("relation_aware", "betas")}
        await socket.send(json.dumps({"type": "retrieve", "algorithm": "ppr", "retrieval_id": "plain", **plain}))
        unweighted = await until_finished(socket, "plain")
    finished = events[-2]
    assert finished["type"] == "ppr_finished" and finished["relation_aware"]
    assert events[0]["params"]["betas"] == finished["betas"]
    family = finished["betas"]["entity_entity"]
    assert family["HIERARCHICAL"] == 0 and family["CAUSALITY"] == pytest.approx(4 / 10)
    status, rest = await asyncio.to_thread(post_json, daphne_url + "/api/retrieval/ppr", body, token)
    assert status == 200 and rest["scores"] == finished["scores"] and rest["betas"] == finished["betas"]
    assert unweighted[-2]["scores"] != finished["scores"]  # β changed the walk


@pytest.mark.parametrize(
    ("fields", "code", "text"),
    [
        ({"seeds": [{"id": "x"}], "damping": 1.5}, "invalid", "damping: must be a number strictly between 0 and 1"),
        ({"seeds": [{"id": "x"}], "query": "why"}, "invalid", "give seeds, or a query to find them, not both"),
        ({"seeds": [{"id": "x", "score": 1}]}, "invalid", "seeds[0]: unknown field(s) score"),
        ({"seeds": [{"id": "x"}], "betas": {}}, "invalid", "betas: only used with relation_aware: true"),
        ({"seeds": [{"id": "x"}], "relation_aware": True}, "invalid", "relation_aware: give a query"),
        ({"seeds": [{"id": "x"}], "params": {"max_depth": 2}}, "invalid", "body: unknown field(s) params"),
        ({"seeds": [{"id": "x"}], "top_k": 0}, "invalid", "top_k: must be a whole number in [1, 1000]"),
        ({"group": "not-mine", "seeds": [{"id": "x"}]}, "not_found", "not-mine"),
    ],
)
async def test_bad_ppr_frames_name_the_field_and_run_nothing(
    daphne_url: str, token_for_role, fields: dict, code: str, text: str
) -> None:
    token = await token_for_role("agent", Role.VIEWER, ["g"])
    frame = {"type": "retrieve", "algorithm": "ppr", "retrieval_id": "bad", "group": "g", **fields}
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps(frame))
        error = await receive(socket)
        assert error["type"] == "error" and error["code"] == code and error["retrieval_id"] == "bad", error
        assert text in json.dumps(error, ensure_ascii=False), error
        await socket.send(json.dumps({"type": "cancel", "retrieval_id": "bad"}))
        assert (await receive(socket))["code"] == "unknown_retrieval"  # nothing started; the socket still answers


async def test_seeds_outside_the_group_end_the_run_with_an_error(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("agent", Role.VIEWER, [memory])
    frame = {"type": "retrieve", "algorithm": "ppr", "retrieval_id": "lost", "group": memory, "seeds": [{"id": "zz"}]}
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps(frame))
        events = await until_finished(socket, "lost")
        error = await receive(socket)
    assert [event["type"] for event in events] == ["retrieval_started", "retrieval_finished"]
    assert events[-1]["status"] == "failed"
    assert error["code"] == "invalid" and error["errors"] == [f"seeds[0].id: no node 'zz' in group {memory!r}"]


async def test_cancel_ends_the_run_and_the_socket_runs_again(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("agent", Role.VIEWER, [memory])
    frame = {"type": "retrieve", "algorithm": "ppr", "group": memory, "damping": 0.9, "directed": True}
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps({**frame, "retrieval_id": "stop"}))
        assert (await receive(socket))["type"] == "retrieval_started"
        await socket.send(json.dumps({"type": "cancel", "retrieval_id": "stop"}))
        events = await until_finished(socket, "stop")
        assert events[-1]["status"] in ("cancelled", "completed")  # a fast machine may finish first
        await socket.send(json.dumps({"type": "cancel", "retrieval_id": "stop"}))
        assert (await receive(socket))["code"] == "unknown_retrieval"
        await socket.send(json.dumps({**frame, "retrieval_id": "again"}))
        again = await until_finished(socket, "again")
    assert again[-1]["status"] == "completed" and again[-2]["seed_source"] == "uniform"


def test_a_projection_still_loading_is_its_own_error_code() -> None:
    frame = error_frame(ProjectionLoading("the graph projection of group 'g' is loading, 40% done"), retrieval_id="r")
    assert frame == {
        "type": "error",
        "code": "projection_loading",
        "message": "the graph projection of group 'g' is loading, 40% done",
        "retry_after": 5,
        "retrieval_id": "r",
    }
