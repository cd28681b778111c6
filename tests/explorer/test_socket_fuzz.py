"""Abuse of the retrieval and watch sockets against a real daphne: every bad frame gets a precise error frame or a
documented close, and other clients' retrievals still complete meanwhile (docs/websocket.md, "Limits")."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter

import pytest
import websockets
from django.conf import settings

from memoria.accounts.roles import Role
from tests.explorer.test_retrieval_socket import connect, receive, token_for_role, until_finished
from tests.retrieval.test_activation import load, random_graph

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["token_for_role"]

DAPHNE_MAX_MESSAGE_BYTES = 1024 * 1024  # daphne's own default, past which it drops the connection
SEED = {"id": "x", "score": 1}


@pytest.fixture
def graph(group: str) -> list[str]:
    nodes, edges = random_graph(random.Random(11), 60, 300)
    load(group, nodes, edges)
    return [f"{group}-{n}" for n in nodes]


@pytest.fixture
def big_graph(group: str) -> list[str]:
    """Wide enough that an explained deep run takes a while, so a cancel arrives while it runs."""
    nodes, edges = random_graph(random.Random(12), 400, 4000)
    load(group, nodes, edges)
    return [f"{group}-{n}" for n in nodes]


def retrieve(group: str, seeds: list[str], retrieval_id: str, **fields: object) -> str:
    body = {"group": group, "seeds": [{"id": seed, "score": 1.0} for seed in seeds], **fields}
    return json.dumps({"type": "retrieve", "retrieval_id": retrieval_id, **body})


def long_retrieve(group: str, seeds: list[str], retrieval_id: str) -> str:
    params = {"max_depth": 10, "min_activation": 0.000001, "max_branches": 20}
    return retrieve(group, seeds[:5], retrieval_id, explain=True, params=params)


def retrieval_frame(**fields: object) -> str:
    return json.dumps({"type": "retrieve", "group": "g", **fields})


@pytest.mark.parametrize(
    ("frame", "code", "problem"),
    [
        ("", "invalid", "message: malformed JSON: Expecting value"),
        ("{not json", "invalid", "message: malformed JSON: Expecting property name"),
        ('{"type": "retrieve"', "invalid", "message: malformed JSON"),
        ("[1, 2]", "invalid", "message: must be a JSON object"),
        ('"retrieve"', "invalid", "message: must be a JSON object"),
        ("null", "invalid", "message: must be a JSON object"),
        ("42", "invalid", "message: must be a JSON object"),
        ("{}", "invalid", "type: is required"),
        ('{"retrieval_id": "r"}', "invalid", "type: is required"),
        ('{"type": 5}', "invalid", "type: must be a string, not a number"),
        ('{"type": null}', "invalid", "type: must be a string, not null"),
        ('{"type": ["retrieve"]}', "invalid", "type: must be a string, not an array"),
        ('{"type": "dance"}', "unknown_type", "unknown type 'dance': use retrieve or cancel"),
        ('{"type": "RETRIEVE"}', "unknown_type", "unknown type 'RETRIEVE'"),
        ('{"type": "cancel"}', "invalid", "retrieval_id: is required"),
        ('{"type": "cancel", "retrieval_id": 7}', "invalid", "retrieval_id: must be 1–64 letters"),
        ('{"type": "cancel", "retrieval_id": null}', "invalid", "retrieval_id: must be 1–64 letters"),
        ('{"type": "cancel", "retrieval_id": "r\\n"}', "invalid", "retrieval_id: must be 1–64 letters"),
        ('{"type": "cancel", "retrieval_id": "r", "group": "g"}', "invalid", "message: unknown field(s) group"),
        (retrieval_frame(seeds=[SEED], retrieval_id=["r"]), "invalid", "retrieval_id: must be 1–64 letters"),
        (retrieval_frame(seeds=[SEED], retrieval_id="a b"), "invalid", "retrieval_id: must be 1–64 letters"),
        (retrieval_frame(seeds=[SEED], retrieval_id="r" * 65), "invalid", "retrieval_id: must be 1–64 letters"),
        (retrieval_frame(seeds=[SEED], algorithm=7), "invalid", "algorithm: 7 is not one of activation, ppr"),
        (retrieval_frame(seeds=[SEED], algorithm="bfs"), "invalid", "algorithm: 'bfs' is not one of"),
        (json.dumps({"type": "retrieve", "seeds": [SEED]}), "invalid", "group: is required"),
        (json.dumps({"type": "retrieve", "group": 5, "seeds": [SEED]}), "invalid", "group: must be 1–64 letters"),
        (retrieval_frame(), "invalid", "give seeds"),
        (retrieval_frame(seeds="x"), "invalid", "seeds: must be a non-empty list of {id, score}"),
        (retrieval_frame(seeds=[{"id": 5, "score": 1}]), "invalid", "seeds[0].id: must be a node id"),
        (retrieval_frame(seeds=[{"id": "x", "score": "1"}]), "invalid", "seeds[0].score: must be a number in (0, 1]"),
        (retrieval_frame(seeds=[{"id": "x", "score": True}]), "invalid", "seeds[0].score"),
        ('{"type": "retrieve", "group": "g", "seeds": [{"id": "x", "score": NaN}]}', "invalid", "seeds[0].score"),
        (retrieval_frame(seeds=[SEED], params=[]), "invalid", "params: must be a JSON object"),
        (
            '{"type": "retrieve", "group": "g", "seeds": [{"id": "x", "score": 1}], "params": {"max_depth": Infinity}}',
            "invalid",
            "params.max_depth: must be a whole number",
        ),
        (retrieval_frame(seeds=[SEED], explain="yes"), "invalid", "explain: must be true or false"),
        (retrieval_frame(seeds=[SEED], query_tags=5), "invalid", "query_tags: must be a list of strings"),
        (retrieval_frame(seeds=[SEED], sneaky=1), "invalid", "body: unknown field(s) sneaky"),
        (retrieval_frame(seeds=[SEED], **{"": {}}), "invalid", "body: unknown field(s) ''"),  # a blank name, shown
        (retrieval_frame(query=5), "invalid", "query: must be a non-empty text"),
        (retrieval_frame(algorithm="ppr", seeds="x"), "invalid", "seeds: must be a non-empty list of {id, weight}"),
        (retrieval_frame(algorithm="ppr", damping="0.5"), "invalid", "damping: must be a number strictly between"),
        (retrieval_frame(algorithm="ppr", top_k=True), "invalid", "top_k: must be a whole number in [1, 1000]"),
        ('{"type": "retrieve", "x": ' + "[" * 30_000 + "]" * 30_000 + "}", "invalid", "message: malformed JSON"),
    ],
)
async def test_each_bad_frame_names_its_problem_and_the_socket_stays_open(
    daphne_url: str, token_for_role, frame: str, code: str, problem: str
) -> None:
    token = await token_for_role("fuzzer", Role.VIEWER, ["g"])
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(frame)
        error = await receive(socket)
        assert error["type"] == "error" and error["code"] == code, error
        assert problem in error["message"], error
        if code == "invalid":
            assert error["errors"] and problem in " ".join(error["errors"]), error
        await socket.send(json.dumps({"type": "cancel", "retrieval_id": "none"}))
        assert (await receive(socket))["code"] == "unknown_retrieval"  # still open, still answering


async def test_a_long_type_is_quoted_back_cut_short(daphne_url: str, token_for_role) -> None:
    token = await token_for_role("fuzzer", Role.VIEWER, ["g"])
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps({"type": "z" * 50_000}))
        error = await receive(socket)
    assert error["code"] == "unknown_type" and "'" + "z" * 64 + "…'" in error["message"]
    assert len(json.dumps(error)) < 300


async def test_binary_frames_and_frames_over_the_limit_are_refused_unread(daphne_url: str, token_for_role) -> None:
    limit = settings.MEMORIA_WS_MAX_MESSAGE_BYTES
    token = await token_for_role("fuzzer", Role.VIEWER, ["g"])
    padded = json.dumps({"type": "retrieve", "group": "g", "seeds": [SEED], "pad": "x" * limit})
    accented = json.dumps({"type": "ping", "pad": "é" * (limit // 2 + 10)}, ensure_ascii=False)  # over in bytes only
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(b'{"type": "retrieve"}')
        binary = await receive(socket)
        assert binary["code"] == "invalid" and binary["message"] == "message: send JSON text frames, not binary ones"
        for frame in (padded, accented, "x" * (limit + 1), b"x" * (limit + 1)):
            await socket.send(frame)
            refused = await receive(socket)
            assert refused == {
                "type": "error",
                "code": "too_large",
                "message": f"messages are limited to {limit} bytes",
            }
        await socket.send(json.dumps({"type": "dance", "pad": "x" * (limit - 100)}))
        assert (await receive(socket))["code"] == "unknown_type"  # just under the limit is read


async def test_past_daphnes_own_limit_the_connection_drops_and_others_carry_on(
    daphne_url: str, group: str, graph: list[str], token_for_role
) -> None:
    token = await token_for_role("fuzzer", Role.VIEWER, [group])
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send("x" * (DAPHNE_MAX_MESSAGE_BYTES + 1))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await receive(socket)
    # Daphne fails the connection by dropping it (no close frame: the client sees 1006), or says 1009 "too big".
    assert closed.value.rcvd is None or closed.value.rcvd.code == 1009
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(retrieve(group, graph[:1], "after"))
        events = await until_finished(socket, "after")
    assert events[-1]["type"] == "retrieval_finished" and events[-1]["status"] == "completed"


async def test_the_watch_socket_answers_bad_frames_precisely(daphne_url: str, group: str, token_for_role) -> None:
    token = await token_for_role("fuzzer", Role.VIEWER, [group])
    frames = {
        "{oops": ("invalid", "message: malformed JSON"),
        "[]": ("invalid", "message: must be a JSON object"),
        '{"type": false}': ("invalid", "type: must be a string, not a boolean"),
        '{"type": "retrieve"}': ("unknown_type", "unknown type 'retrieve': use list or replay"),
        '{"type": "replay"}': ("invalid", "retrieval_id: is required"),
        '{"type": "replay", "retrieval_id": {"id": "r"}}': ("invalid", "retrieval_id: must be 1–64 letters"),
        '{"type": "replay", "retrieval_id": "never-ran"}': ("unknown_retrieval", "no recent retrieval with this id"),
    }
    async with connect(daphne_url, f"/ws/retrievals/watch/?group={group}", token) as watcher:
        assert (await receive(watcher))["type"] == "watching"
        for frame, (code, problem) in frames.items():
            await watcher.send(frame)
            error = await receive(watcher)
            assert error["type"] == "error" and error["code"] == code and problem in error["message"], (frame, error)
        await watcher.send(json.dumps({"type": "list", "ignored": True}))
        assert (await receive(watcher)) == {"type": "retrievals", "group": group, "retrievals": []}


def abusive_frames(count: int) -> list[tuple[str | bytes, str]]:
    """`count` bad frames of every kind, each with the error code it must get."""
    kinds: list[tuple[str | bytes, str]] = [
        ("{broken", "invalid"),
        ("[]", "invalid"),
        ('{"type": 1}', "invalid"),
        ('{"type": "spam"}', "unknown_type"),
        ('{"type": "cancel", "retrieval_id": "nobody"}', "unknown_retrieval"),
        (retrieval_frame(seeds=[SEED], params={"max_depth": 99}), "invalid"),
        (retrieval_frame(group="not-mine", seeds=[SEED]), "not_found"),
        (b"\x00\x01", "invalid"),
        ("y" * (settings.MEMORIA_WS_MAX_MESSAGE_BYTES + 1), "too_large"),
    ]
    return [kinds[i % len(kinds)] for i in range(count)]


async def test_a_burst_of_thousands_of_bad_frames_is_answered_one_by_one_while_others_retrieve(
    daphne_url: str, group: str, graph: list[str], token_for_role
) -> None:
    abuser = await token_for_role("abuser", Role.VIEWER, ["g"])
    neighbour = await token_for_role("neighbour", Role.VIEWER, [group])
    frames = abusive_frames(3000)

    async def abuse() -> Counter:
        async with connect(daphne_url, "/ws/retrievals/", abuser) as socket:
            for frame, _ in frames:  # all sent before anything is read
                await socket.send(frame)
            return Counter([(await receive(socket, timeout=120))["code"] for _ in frames])

    async def retrieve_meanwhile() -> list[dict]:
        async with connect(daphne_url, "/ws/retrievals/", neighbour) as socket:
            await socket.send(retrieve(group, graph[:3], "meanwhile", params={"max_branches": 2}))
            return await until_finished(socket, "meanwhile")

    answered, meanwhile = await asyncio.gather(abuse(), retrieve_meanwhile())
    assert answered == Counter(code for _, code in frames)
    assert meanwhile[-1]["type"] == "retrieval_finished" and meanwhile[-1]["status"] == "completed"
    async with connect(daphne_url, "/ws/retrievals/", neighbour) as socket:  # and after the abuse
        await socket.send(retrieve(group, graph[:3], "afterwards", params={"max_branches": 2}))
        afterwards = await until_finished(socket, "afterwards")
    assert afterwards[-1]["status"] == "completed"
    paths = lambda events: [e["paths"] for e in events if e["type"] == "seed_finished"]  # noqa: E731
    assert sorted(map(json.dumps, paths(afterwards))) == sorted(map(json.dumps, paths(meanwhile)))


async def test_a_burst_of_retrieves_runs_four_at_a_time_and_answers_the_rest_busy(
    daphne_url: str, group: str, graph: list[str], token_for_role
) -> None:
    token = await token_for_role("eager", Role.VIEWER, [group])
    ids = [f"b-{i}" for i in range(200)]
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        for retrieval_id in ids:
            await socket.send(retrieve(group, graph[:2], retrieval_id))
        outcome: dict[str, str] = {}
        running = 0
        most_running = 0
        while len(outcome) < len(ids):
            event = await receive(socket, timeout=120)
            if event["type"] == "retrieval_started":
                running += 1
                most_running = max(most_running, running)
            elif event["type"] == "retrieval_finished":
                running -= 1
                outcome[event["retrieval_id"]] = event["status"]
            elif event["type"] == "error":
                assert event["code"] == "busy" and "at most 4 retrievals" in event["message"], event
                outcome[event["retrieval_id"]] = "busy"
    assert set(outcome) == set(ids) and set(outcome.values()) <= {"completed", "busy"}
    assert outcome["b-0"] == "completed" and 1 <= most_running <= 4


async def test_nobody_cancels_a_retrieval_of_another_socket(
    daphne_url: str, group: str, big_graph: list[str], token_for_role
) -> None:
    owner = await token_for_role("owner", Role.VIEWER, [group])
    stranger = await token_for_role("stranger", Role.CURATOR, [group])
    async with (
        connect(daphne_url, "/ws/retrievals/", owner) as running,
        connect(daphne_url, "/ws/retrievals/", owner) as owners_other_tab,
        connect(daphne_url, "/ws/retrievals/", stranger) as foreign,
    ):
        await running.send(long_retrieve(group, big_graph, "mine"))
        assert (await receive(running))["type"] == "retrieval_started"
        for socket in (foreign, owners_other_tab):
            await socket.send(json.dumps({"type": "cancel", "retrieval_id": "mine"}))
            refused = await receive(socket)
            assert refused == {
                "type": "error",
                "code": "unknown_retrieval",
                "retrieval_id": "mine",
                "message": "no retrieval with this id is running on this socket",
            }
        events = await until_finished(running, "mine")
    assert events[-1]["type"] == "retrieval_finished" and events[-1]["status"] == "completed"
