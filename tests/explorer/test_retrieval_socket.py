"""The retrieval websocket against a real daphne: streaming, cancel, bad frames, watchers, and access."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.error
import urllib.request
from collections.abc import Callable

import pytest
import websockets
from asgiref.sync import sync_to_async

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from tests.retrieval.test_activation import load, random_graph

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def token_for_role() -> Callable:
    def make(username: str, role: Role, groups: list[str]) -> str:
        return token_for(user=user_grant(username=username, role=role, groups=groups))

    return sync_to_async(make)


def post_json(url: str, body: dict, token: str, method: str = "POST") -> tuple[int, dict]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method=method,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # generous: the machine may be busy
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def ws_url(daphne_url: str, path: str) -> str:
    return daphne_url.replace("http://", "ws://") + path


def connect(daphne_url: str, path: str, token: str | None = None, **headers: str):
    if token:
        headers["Authorization"] = f"Token {token}"
    return websockets.connect(ws_url(daphne_url, path), additional_headers=headers, open_timeout=10)


async def receive(socket, timeout: float = 60.0) -> dict:  # generous: the suite shares 2 loaded cores
    return json.loads(await asyncio.wait_for(socket.recv(), timeout))


async def until_finished(socket, retrieval_id: str | None = None) -> list[dict]:
    events = []
    while True:
        event = await receive(socket)
        events.append(event)
        if event["type"] in ("retrieval_finished",) and (retrieval_id is None or event["retrieval_id"] == retrieval_id):
            return events
        if event["type"] == "error" and event.get("retrieval_id") == retrieval_id:
            return events


@pytest.fixture
def small_graph(group: str) -> list[str]:
    nodes, edges = random_graph(random.Random(5), 40, 160)
    load(group, nodes, edges)
    return [f"{group}-{n}" for n in nodes]


async def test_stream_arrives_in_order_and_matches_rest(
    daphne_url: str, group: str, small_graph: list[str], token_for_role
) -> None:
    token = await token_for_role("agent", Role.VIEWER, [group])
    body = {
        "group": group,
        "seeds": [{"id": small_graph[0], "score": 0.9}, {"id": small_graph[1], "score": 0.6}],
        "query_tags": ["t1", "t2"],
        "params": {"max_branches": 2},
    }
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps({"type": "retrieve", "algorithm": "activation", "retrieval_id": "r-1", **body}))
        events = await until_finished(socket, "r-1")
    kinds = [event["type"] for event in events]
    assert kinds[0] == "retrieval_started" and kinds[-1] == "retrieval_finished"
    assert kinds.count("seed_started") == 2 and kinds.count("seed_finished") == 2
    assert "level_expanded" in kinds and "path_completed" in kinds
    assert all(event["retrieval_id"] == "r-1" for event in events)
    for seed_id in (small_graph[0], small_graph[1]):  # each seed's own events come in protocol order
        mine = [e["type"] for e in events if e.get("seed_id") == seed_id]
        assert mine[0] == "seed_started" and mine[-1] == "seed_finished"

    status, answer = await asyncio.to_thread(post_json, daphne_url + "/api/retrieval/activation", body, token)
    assert status == 200, answer
    rest = {seed["seed_id"]: seed["paths"] for seed in answer["seeds"]}
    socket_paths = {
        e["seed_id"]: [{k: p[k] for k in ("nodes", "hops", "depth", "energy", "end_reason")} for p in e["paths"]]
        for e in events
        if e["type"] == "seed_finished"
    }
    assert rest == socket_paths


async def test_cancel_stops_the_work(daphne_url: str, group: str, small_graph: list[str], token_for_role) -> None:
    token = await token_for_role("agent", Role.VIEWER, [group])
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(
            json.dumps(
                {
                    "type": "retrieve",
                    "retrieval_id": "long",
                    "group": group,
                    "explain": True,
                    "seeds": [{"id": n, "score": 1.0} for n in small_graph[:5]],
                    "params": {"max_depth": 10, "min_activation": 0.000001, "max_branches": 20},
                }
            )
        )
        assert (await receive(socket))["type"] == "retrieval_started"
        await socket.send(json.dumps({"type": "cancel", "retrieval_id": "long"}))
        events = await until_finished(socket, "long")
        assert events[-1]["status"] in ("cancelled", "completed")  # it may have finished first on a fast machine
        await socket.send(json.dumps({"type": "cancel", "retrieval_id": "long"}))
        assert (await receive(socket))["code"] == "unknown_retrieval"


@pytest.mark.parametrize(
    ("frame", "code", "text"),
    [
        ("{not json", "invalid", "malformed JSON"),
        ("[1, 2]", "invalid", "message: must be a JSON object"),
        ('{"type": "dance"}', "unknown_type", "unknown type 'dance'"),
        ('{"type": "retrieve", "group": "g"}', "invalid", "give seeds"),
        ('{"type": "retrieve", "group": "g", "seeds": [{"id": "x", "score": 2}]}', "invalid", "outside (0, 1]"),
        (
            '{"type": "retrieve", "group": "g", "seeds": [{"id": "x", "score": 1}], "params": {"max_depth": 99}}',
            "invalid",
            "params.max_depth: 99 is outside [1, 10]",
        ),
        ('{"type": "retrieve", "algorithm": "magic", "group": "g", "seeds": []}', "invalid", "algorithm"),
        ('{"type": "retrieve", "group": "not-mine", "seeds": [{"id": "x", "score": 1}]}', "not_found", "not-mine"),
        ("x" * 70_000, "too_large", "limited to 65536 bytes"),
    ],
)
async def test_bad_frames_get_error_frames_and_the_socket_stays_open(
    daphne_url: str, token_for_role, frame: str, code: str, text: str
) -> None:
    token = await token_for_role("agent", Role.VIEWER, ["g"])
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(frame)
        error = await receive(socket)
        assert error["type"] == "error" and error["code"] == code and text in json.dumps(error), error
        await socket.send(json.dumps({"type": "cancel", "retrieval_id": "none"}))
        assert (await receive(socket))["code"] == "unknown_retrieval"  # still open and answering


async def test_watchers_see_retrievals_of_their_group_only(
    daphne_url: str, group: str, small_graph: list[str], token_for_role
) -> None:
    analyst = await token_for_role("analyst", Role.VIEWER, [group])
    outsider = await token_for_role("outsider", Role.VIEWER, ["elsewhere"])
    agent = await token_for_role("agent", Role.CURATOR, [group])
    async with connect(daphne_url, f"/ws/retrievals/watch/?group={group}", analyst) as watcher:
        assert await receive(watcher) == {"type": "watching", "group": group}
        async with connect(daphne_url, f"/ws/retrievals/watch/?group={group}", outsider) as intruder:
            refused = await receive(intruder)
            assert refused["code"] == "not_found"
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await receive(intruder)
            assert closed.value.rcvd.code == 4404
        async with connect(daphne_url, "/ws/retrievals/", agent) as socket:
            await socket.send(
                json.dumps(
                    {
                        "type": "retrieve",
                        "retrieval_id": "seen",
                        "group": group,
                        "seeds": [{"id": small_graph[2], "score": 1.0}],
                    }
                )
            )
            sent = await until_finished(socket, "seen")
        watched = await until_finished(watcher, "seen")
        assert [e["type"] for e in watched] == [e["type"] for e in sent]
        assert watched[0]["requested_by"] == "agent"


async def test_anonymous_and_forged_origin_are_refused(daphne_url: str, token_for_role) -> None:
    async with connect(daphne_url, "/ws/retrievals/", Origin=daphne_url) as socket:  # a browser, signed out
        assert (await receive(socket))["code"] == "unauthenticated"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await receive(socket)
        assert closed.value.rcvd.code == 4401
    token = await token_for_role("agent", Role.VIEWER, [])
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with connect(daphne_url, "/ws/retrievals/", token, Origin="http://evil.example"):
            pass
    assert refused.value.response.status_code == 403
    with pytest.raises(websockets.InvalidStatus) as no_origin_no_token:
        async with connect(daphne_url, "/ws/retrievals/"):
            pass
    assert no_origin_no_token.value.response.status_code == 403


async def test_watch_command_prints_a_retrieval(
    daphne_url: str, group: str, small_graph: list[str], token_for_role
) -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    token = await token_for_role("analyst", Role.VIEWER, [group])
    watcher = subprocess.Popen(
        [sys.executable, "manage.py", "watch", "--group", group, "--token", token, "--url", daphne_url, "--count", "1"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **__import__("os").environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",  # its "watching" line must arrive when it is printed, not at exit
        },
    )
    # One retrieval, started once the watcher says it is subscribed: posting before that (or while it starts, which
    # took over a minute on a loaded machine) lets it join a retrieval half-way and miss its start.
    try:
        first = await asyncio.wait_for(asyncio.to_thread(watcher.stdout.readline), timeout=180)
        assert "watching" in first, first
        status, _ = await asyncio.to_thread(
            post_json,
            daphne_url + "/api/retrieval/activation",
            {"group": group, "seeds": [{"id": small_graph[3], "score": 0.8}]},
            token,
        )
        assert status == 200
        rest, err = await asyncio.to_thread(watcher.communicate, timeout=120)
        out = first + rest
    finally:
        watcher.kill()
    assert watcher.returncode == 0, err
    assert "started by analyst" in out and f"{small_graph[3]} completed" in out and "finished completed" in out


async def test_the_run_frame_chooses_the_engine_and_events_say_which_ran(
    daphne_url: str, group: str, small_graph: list[str], token_for_role
) -> None:
    token = await token_for_role("agent", Role.VIEWER, [group])
    body = {"group": group, "seeds": [{"id": small_graph[0], "score": 0.9}], "query_tags": ["t1"], "explain": True}
    runs = {}
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        for engine in ("view", "cypher"):
            frame = {"type": "retrieve", "algorithm": "activation", "retrieval_id": engine, "engine": engine, **body}
            await socket.send(json.dumps(frame))
            runs[engine] = await until_finished(socket, engine)
        await socket.send(json.dumps({"type": "retrieve", "retrieval_id": "bad", "engine": "gpu", **body}))
        (refused,) = await until_finished(socket, "bad")
    assert refused["type"] == "error" and "engine: must be one of auto, cypher, view" in refused["message"]
    view, cypher = runs["view"], runs["cypher"]
    assert view[0]["engine"]["name"] == "view" and view[0]["engine"]["view"]["age_seconds"] >= 0
    assert cypher[0]["engine"] == {"name": "cypher", "requested": "cypher", "view": None, "fallback": None}
    paths = {engine: [e["paths"] for e in events if e["type"] == "seed_finished"] for engine, events in runs.items()}
    assert paths["view"] == paths["cypher"] and paths["view"][0]
