"""Group isolation and access on the websockets against a real daphne: retrievals, watch streams, and who may connect.

Group B's texts all hold SECRET (tests/api/test_isolation.py): no frame sent to a user of A may hold it.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from urllib.parse import quote

import pytest
import websockets
from asgiref.sync import sync_to_async
from django.test import Client

from memoria.accounts.models import GroupMembership
from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.graph import driver
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from tests.api.test_isolation import SECRET, secret_document
from tests.curation.memory import curation_document, edge_id, node_id
from tests.explorer.test_retrieval_socket import connect, post_json, receive, token_for_role, until_finished

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["token_for_role"]


@pytest.fixture
def groups(group: str) -> Iterator[tuple[str, str]]:
    """A: the curation memory; B: the same shape with every text SECRET."""
    other = f"t-{uuid.uuid4().hex[:12]}"
    graph_document_import(document=parse_graph_document(curation_document(group), group=group), group=group)
    graph_document_import(document=parse_graph_document(secret_document(other), group=other), group=other)
    yield group, other
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=other)


def retrieve(retrieval_id: str, group: str, seeds: list[dict] | None = None, **fields: object) -> str:
    body = {"type": "retrieve", "retrieval_id": retrieval_id, "group": group, **fields}
    if seeds is not None:
        body["seeds"] = seeds
    return json.dumps(body)


def secret_free(frames: list[dict]) -> None:
    text = json.dumps(frames, ensure_ascii=False)
    assert SECRET not in text, text[:500]


@pytest.mark.parametrize("algorithm", ["activation", "ppr"])
async def test_a_retrieval_naming_another_group_is_not_found(
    daphne_url: str, groups: tuple[str, str], token_for_role, algorithm: str
) -> None:
    a, b = groups
    token = await token_for_role("alice", Role.CURATOR, [a])
    seed = {"id": node_id(b, "liv"), "score": 1} if algorithm == "activation" else {"id": node_id(b, "liv")}
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(retrieve("x", b, [seed], algorithm=algorithm))
        refused = await receive(socket)
        await socket.send(retrieve("y", b, algorithm=algorithm, query=f"{SECRET} Liv"))
        by_query = await receive(socket)
    for frame, retrieval_id in ((refused, "x"), (by_query, "y")):
        assert frame == {
            "type": "error",
            "code": "not_found",
            "message": f"no group {b!r} is visible to you",
            "retrieval_id": retrieval_id,
        }


async def test_activation_from_another_groups_node_under_ones_own_finds_no_seed(
    daphne_url: str, groups: tuple[str, str], token_for_role
) -> None:
    a, b = groups
    token = await token_for_role("alice", Role.CURATOR, [a])
    seeds = [{"id": node_id(b, "liv"), "score": 1}, {"id": f"{a}-never-stored", "score": 1}]
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(retrieve("guess", a, seeds))
        events = await until_finished(socket, "guess")
    finished = {event["seed_id"]: event for event in events if event["type"] == "seed_finished"}
    assert {seed: event["status"] for seed, event in finished.items()} == {
        node_id(b, "liv"): "seed_not_found",
        f"{a}-never-stored": "seed_not_found",  # told apart from a missing node by nothing
    }
    assert all(event["paths"] == [] for event in finished.values())
    secret_free(events)


async def test_ppr_from_another_groups_node_reads_as_a_missing_node(
    daphne_url: str, groups: tuple[str, str], token_for_role
) -> None:
    a, b = groups
    token = await token_for_role("alice", Role.CURATOR, [a])
    frames = []
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        for retrieval_id, seed in (("guess", node_id(b, "liv")), ("missing", f"{a}-never-stored")):
            await socket.send(retrieve(retrieval_id, a, [{"id": seed}], algorithm="ppr"))
            frames += await until_finished(socket, retrieval_id)
            frames.append(await receive(socket))
    errors = [frame for frame in frames if frame["type"] == "error"]
    assert [error["errors"] for error in errors] == [
        [f"seeds[0].id: no node {node_id(b, 'liv')!r} in group {a!r}"],
        [f"seeds[0].id: no node {a + '-never-stored'!r} in group {a!r}"],
    ]
    secret_free(frames)


@pytest.mark.parametrize("algorithm", ["activation", "ppr"])
async def test_a_query_finds_seeds_in_ones_own_group_only(
    daphne_url: str, groups: tuple[str, str], token_for_role, algorithm: str
) -> None:
    a, _ = groups
    token = await token_for_role("alice", Role.CURATOR, [a])
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(retrieve("q", a, algorithm=algorithm, query="Liv Varga Tallinn"))
        events = [await receive(socket, timeout=180)]  # the first query may load the embedding model
        events += await until_finished(socket, "q")
    assert events[-1]["type"] == "retrieval_finished" and events[-1]["status"] == "completed", events[-1]
    used = events[-2] if algorithm == "ppr" else events[0]  # PPR says the seeds it used in ppr_finished
    seeds = [seed["id"] for seed in used["seeds"]]
    assert seeds and all(seed.startswith(f"{a}-") for seed in seeds), seeds
    secret_free(events)


async def test_watchers_of_one_group_see_nothing_of_another(
    daphne_url: str, groups: tuple[str, str], token_for_role
) -> None:
    a, b = groups
    alice = await token_for_role("alice", Role.VIEWER, [a])
    bob = await token_for_role("bob", Role.CURATOR, [b])
    async with connect(daphne_url, f"/ws/retrievals/watch/?group={a}", alice) as watcher:
        assert await receive(watcher) == {"type": "watching", "group": a}
        async with connect(daphne_url, f"/ws/retrievals/watch/?group={b}", bob) as bobs_watcher:
            assert (await receive(bobs_watcher))["type"] == "watching"
            async with connect(daphne_url, "/ws/retrievals/", bob) as socket:  # B's retrieval, by socket
                await socket.send(retrieve("bobs", b, [{"id": node_id(b, "liv"), "score": 1}]))
                await until_finished(socket, "bobs")
            status, _ = await asyncio.to_thread(  # B's retrieval, by REST
                post_json,
                daphne_url + "/api/retrieval/activation",
                {"group": b, "seeds": [{"id": node_id(b, "maren"), "score": 1}]},
                bob,
            )
            assert status == 200
            status, patched = await asyncio.to_thread(  # and a curation change in B
                post_json, daphne_url + f"/api/groups/{b}/edges/{edge_id(b, 'lives')}", {"weight": 0.3}, bob, "PATCH"
            )
            assert status == 200, patched
            seen_by_bob = await until_curation(bobs_watcher)  # B's watcher had all three: they were sent
            assert seen_by_bob[0]["retrieval_id"] == "bobs"
        async with connect(daphne_url, "/ws/retrievals/", alice) as socket:
            await socket.send(retrieve("alices", a, [{"id": node_id(a, "liv"), "score": 1}]))
            await until_finished(socket, "alices")
        first = await receive(watcher)
        assert first["type"] == "retrieval_started" and first["retrieval_id"] == "alices", first
        watched = [first, *await until_finished(watcher, "alices")]
        assert {event["retrieval_id"] for event in watched} == {"alices"}
        await watcher.send(json.dumps({"type": "list"}))
        listed = await receive(watcher)
        assert [run["retrieval_id"] for run in listed["retrievals"]] == ["alices"]
        await watcher.send(json.dumps({"type": "replay", "retrieval_id": "bobs"}))
        assert (await receive(watcher))["code"] == "unknown_retrieval"
    secret_free(watched)


async def test_a_watcher_whose_access_is_withdrawn_sees_nothing_more(
    daphne_url: str, groups: tuple[str, str], token_for_role
) -> None:
    a, _ = groups
    alice = await token_for_role("alice", Role.VIEWER, [a])
    agent = await token_for_role("agent", Role.CURATOR, [a])
    async with (
        connect(daphne_url, f"/ws/retrievals/watch/?group={a}", alice) as on_events,
        connect(daphne_url, f"/ws/retrievals/watch/?group={a}", alice) as on_request,
    ):
        for watcher in (on_events, on_request):
            assert (await receive(watcher))["type"] == "watching"
        await sync_to_async(GroupMembership.objects.filter(user__username="alice", group=a).delete)()
        await on_request.send(json.dumps({"type": "list"}))
        refusals = [await receive(on_request)]
        async with connect(daphne_url, "/ws/retrievals/", agent) as socket:
            await socket.send(retrieve("after", a, [{"id": node_id(a, "liv"), "score": 1}]))
            await until_finished(socket, "after")
        refusals.append(await receive(on_events))
        for watcher, refused in zip((on_request, on_events), refusals, strict=True):
            assert refused["type"] == "error" and refused["code"] == "not_found", refused
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await receive(watcher)
            assert closed.value.rcvd.code == 4404


async def until_curation(socket) -> list[dict]:
    frames = []
    while not frames or frames[-1]["type"] != "curation":
        frames.append(await receive(socket))
    return frames


async def test_watching_another_group_is_refused_with_4404(
    daphne_url: str, groups: tuple[str, str], token_for_role
) -> None:
    a, b = groups
    alice = await token_for_role("alice", Role.CURATOR, [a])
    for group in (b, "no-such-group", "bad name!"):
        async with connect(daphne_url, f"/ws/retrievals/watch/?group={quote(group)}", alice) as watcher:
            refused = await receive(watcher)
            assert refused["type"] == "error" and refused["code"] == "not_found", refused
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await receive(watcher)
            assert closed.value.rcvd.code == 4404
    async with connect(daphne_url, "/ws/retrievals/watch/", alice) as watcher:  # no group at all
        assert (await receive(watcher))["code"] == "not_found"


def session_cookie(username: str, groups: list[str]) -> str:
    """A signed-in browser's session, stored where daphne reads it."""
    client = Client()
    client.force_login(user_grant(username=username, role=Role.VIEWER, groups=groups))
    return f"sessionid={client.cookies['sessionid'].value}"


@pytest.mark.parametrize("path", ["/ws/retrievals/", "/ws/retrievals/watch/?group={a}", "/ws/health/"])
async def test_who_may_connect(daphne_url: str, groups: tuple[str, str], token_for_role, path: str) -> None:
    a, _ = groups
    path = path.format(a=a)
    own_origin = daphne_url
    token = await token_for_role("agent", Role.VIEWER, [a])
    cookie = await sync_to_async(session_cookie)("browser-user", [a])

    async def first_frame(url: str, **headers: str) -> dict:
        async with websockets.connect(url, additional_headers=headers, open_timeout=10) as socket:
            if "/watch/" in path or "/health/" in path:
                return await receive(socket)
            await socket.send(json.dumps({"type": "cancel", "retrieval_id": "none"}))
            return await receive(socket)

    ws = daphne_url.replace("http://", "ws://") + path
    joiner = "&" if "?" in ws else "?"
    # Accepted: a token in the header or the query, a session from the server's own origin.
    for accepted in (
        await first_frame(ws, Authorization=f"Token {token}"),
        await first_frame(f"{ws}{joiner}token={token}"),
        await first_frame(ws, Cookie=cookie, Origin=own_origin),
    ):
        assert accepted.get("code") != "unauthenticated" and accepted["type"] in (
            "watching",
            "health",
            "error",
        ), accepted
        if accepted["type"] == "error":
            assert accepted["code"] == "unknown_retrieval"
    # Refused at the handshake (HTTP 403): a foreign origin, even with a session or a token; a session without origin.
    for headers in (
        {"Cookie": cookie, "Origin": "http://evil.example"},
        {"Authorization": f"Token {token}", "Origin": "http://evil.example"},
        {"Cookie": cookie},
        {},
    ):
        with pytest.raises(websockets.InvalidStatus) as refused:
            await first_frame(ws, **headers)
        assert refused.value.response.status_code == 403, headers
    # Let in but not signed in: the reason, then 4401.
    for headers in (
        {"Authorization": "Token not-a-token"},
        {"Authorization": "Token not-a-token", "Cookie": cookie},  # a bad token never falls back to the session
        {"Origin": own_origin},
    ):
        async with websockets.connect(ws, additional_headers=headers, open_timeout=10) as socket:
            assert await receive(socket) == {
                "type": "error",
                "code": "unauthenticated",
                "message": "sign in or send a token",
            }
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await receive(socket)
            assert closed.value.rcvd.code == 4401
