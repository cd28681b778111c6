"""The graph server stops for real while a websocket retrieval runs: an error frame, REST 503s, then recovery.

The retrieval must still be running when the server goes, so it explores a dense
memory in explain mode (every candidate row shipped, several seconds of work);
the test checks that it had not finished before the stop rather than assuming it.

The clock starts at the stop's signal, sent from the test's own loop, and waiting for
the server to exit runs beside the socket: the time from the signal to the error
frame is what a client waits, and it must stay within
memoria.graph.retry.OUTAGE_BOUND_SECONDS however long the server takes to exit. A
wait past the bound fails naming what was still waiting: the retrieval's frames, its
unfinished seeds, and what daphne's log says its graph reads did.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

from memoria.accounts.roles import Role
from memoria.graph.embedded import EmbeddedServer
from memoria.graph.retry import OUTAGE_BOUND_SECONDS, PERMANENT
from tests.api.test_errors import HUB_EDGES
from tests.conftest import daphne_log, running_daphne
from tests.explorer.test_retrieval_socket import connect, post_json, receive, token_for_role
from tests.projection.graphs import random_memory, store
from tests.retrieval.test_activation import load

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["token_for_role"]  # the fixture, shared with the activation socket tests

# Generous for frames while the server is up (two loaded cores); an outage has its own, tighter bound.
FRAME_TIMEOUT = 60.0


@pytest.fixture
def dense_memory(group: str) -> str:
    store(group, random_memory(group, entities=600, episodes=10, facts=6000, seed=11))
    return group


def long_activation(group: str, retrieval_id: str) -> dict:
    """Five seeds, explain mode, the widest branching: seconds of graph reads, not milliseconds."""
    return {
        "type": "retrieve",
        "algorithm": "activation",
        "retrieval_id": retrieval_id,
        "group": group,
        "explain": True,
        "seeds": [{"id": f"{group}-e{index}", "score": 1.0} for index in range(5)],
        "params": {"max_depth": 10, "min_activation": 0.000001, "max_branches": 20},
    }


def short_activation(group: str, retrieval_id: str) -> dict:
    seeds = [{"id": f"{group}-e{index}", "score": 0.8} for index in range(2)]
    return {"type": "retrieve", "algorithm": "activation", "retrieval_id": retrieval_id, "group": group, "seeds": seeds}


def ppr(group: str, retrieval_id: str) -> dict:
    seeds = [{"id": f"{group}-e1"}, {"id": f"{group}-e2"}]
    return {"type": "retrieve", "algorithm": "ppr", "retrieval_id": retrieval_id, "group": group, "seeds": seeds}


def rest_body(frame: dict) -> dict:
    return {key: value for key, value in frame.items() if key not in ("type", "algorithm", "retrieval_id")}


@dataclass(frozen=True)
class LogPart:
    """The part of a daphne log written from `offset` on: what one step of a test made daphne log."""

    path: Path
    offset: int

    @classmethod
    def from_now(cls, path: Path) -> LogPart:
        return cls(path, path.stat().st_size if path.exists() else 0)

    def records(self) -> list[dict]:
        with open(self.path, "rb") as log:
            log.seek(self.offset)
            lines = log.read().decode(errors="replace").splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]


async def events_until_end(
    socket, retrieval_id: str, *, within: float = FRAME_TIMEOUT, since: float | None = None, log: LogPart | None = None
) -> list[dict]:
    """This retrieval's frames up to its error frame, or its retrieval_finished when no error frame follows it;
    the end must come within `within` seconds of `since` (a time.monotonic(); this call when None), or the test
    fails saying what was still waiting, with the graph reads of the retrieval that `log` (daphne's) recorded."""
    events: list[dict] = []
    started = time.monotonic() if since is None else since
    while True:
        try:
            event = await receive(socket, max(0.0, started + within - time.monotonic()))
        except TimeoutError:
            pytest.fail(still_waiting(retrieval_id, events, waited=time.monotonic() - started, log=log))
        if event.get("retrieval_id") != retrieval_id:
            continue
        events.append(event)
        if event["type"] == "error":
            return events
        if event["type"] == "retrieval_finished" and event["status"] != "failed":
            return events


def still_waiting(retrieval_id: str, events: list[dict], *, waited: float, log: LogPart | None) -> str:
    """Why a retrieval's end did not come: its frames so far, the seeds that had not finished, and each graph
    read daphne logged for it (attempt and outcome), so a failure names what was waiting instead of a bare
    TimeoutError."""
    started = {e["seed_id"] for e in events if e["type"] == "seed_started"}
    finished = {e["seed_id"]: e for e in events if e["type"] == "seed_finished"}
    lines = [f"retrieval {retrieval_id!r}: no end frame {waited:.2f} s after the clock started"]
    lines.append("frames: " + ", ".join(f"{e['type']}({e.get('status', '')})" for e in events[-12:]))
    lines.append(f"seeds still running: {sorted(started - set(finished)) or 'none'}")
    lines += [f"seed {seed} ended {e['status']}: {e.get('error')}" for seed, e in finished.items()]
    ended = [e for e in events if e["type"] == "retrieval_finished"]
    if ended:
        lines.append(f"retrieval_finished came {ended[-1]['status']!r} ({ended[-1].get('error')}) but no error frame")
    for record in log.records() if log is not None else []:
        if record.get("retrieval_id") == retrieval_id and record.get("graph_work"):
            lines.append(f"  log {record['time'][11:23]} {record['logger']}: {record['message'][:160]}")
    return "\n".join(lines)


def assert_no_address(answer: object, server: EmbeddedServer) -> None:
    """Nothing a client is shown names where the graph server is: no host, no port, no URL."""
    shown = json.dumps(answer)
    for address in (server.host, f":{server.bolt_port}", "bolt://"):
        assert address not in shown, (address, shown[:2000])


def assert_graph_unavailable_frame(events: list[dict], retrieval_id: str) -> None:
    error = events[-1]
    assert error["type"] == "error", [e["type"] for e in events]
    assert error["code"] == "graph_unavailable" and error["retrieval_id"] == retrieval_id, error
    assert error["message"] == "The graph server is unavailable; try again shortly." and error["reason"], error
    finished = [e for e in events if e["type"] == "retrieval_finished"]
    assert len(finished) == 1 and finished[0]["status"] == "failed", finished  # watchers and the journal see the end


async def outage_mid_retrieval(
    daphne_url: str,
    group: str,
    server: EmbeddedServer,
    token: str,
    *,
    go_away: Callable[[], object],
    gone: Callable[[], object] = lambda: None,
    come_back: Callable[[], object],
) -> float:
    """The server goes away (go_away: a signal, sent when the clock starts; then `gone`, which may block until the
    process has exited, runs beside the socket) while a retrieval reads; checks the error frames and 503s, brings
    it back and checks that the same socket and daphne work again. Returns the seconds from the signal to the
    retrieval's error frame."""
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps(ppr(group, "p-before")))  # loads the projection PPR runs on
        before = await events_until_end(socket, "p-before")
        assert before[-1]["type"] == "retrieval_finished" and before[-1]["status"] == "completed", before[-1]

        await socket.send(json.dumps(long_activation(group, "a-cut")))
        seen: list[dict] = []
        while not any(event["type"] == "level_expanded" for event in seen):  # reads are under way
            seen.append(await receive(socket, FRAME_TIMEOUT))
        log = LogPart.from_now(daphne_log())
        went_at = time.monotonic()
        go_away()
        going = asyncio.create_task(asyncio.to_thread(gone))
        try:
            cut = seen + await events_until_end(socket, "a-cut", within=OUTAGE_BOUND_SECONDS, since=went_at, log=log)
            waited = time.monotonic() - went_at
            print(f"server gone -> error frame: {waited:.2f} s")  # the measurement docs/operations.md quotes
            await going
            assert not any(e["type"] == "retrieval_finished" and e["status"] == "completed" for e in cut), (
                "the retrieval finished before the server went: the graph is too small to test an outage with"
            )
            assert_graph_unavailable_frame(cut, "a-cut")
            assert any(e["type"] == "seed_finished" and e["status"] == "error" for e in cut)
            assert_no_address(cut, server)

            await socket.send(json.dumps(ppr(group, "p-down")))
            down = await events_until_end(socket, "p-down", within=OUTAGE_BOUND_SECONDS, log=log)
            assert_graph_unavailable_frame(down, "p-down")
            assert_no_address(down, server)

            for path, frame in (
                ("/api/retrieval/activation", short_activation(group, "")),
                ("/api/retrieval/ppr", ppr(group, "")),
            ):
                started = time.monotonic()
                status, problem = await asyncio.to_thread(post_json, daphne_url + path, rest_body(frame), token)
                assert time.monotonic() - started <= OUTAGE_BOUND_SECONDS, path
                assert status == 503, (path, problem)
                assert problem["code"] == "graph_unavailable" and problem["reason"], problem
                assert problem["detail"] == "The graph server is unavailable; try again shortly."
                assert_no_address(problem, server)
        finally:
            # Whatever failed: the server has gone before it comes back (a failure here must not hide the first).
            with contextlib.suppress(Exception):
                await going
            await asyncio.to_thread(come_back)

        # The same socket of the same daphne process: nothing was restarted but the graph server.
        await socket.send(json.dumps(short_activation(group, "a-back")))
        back = await events_until_end(socket, "a-back")
        assert back[-1]["type"] == "retrieval_finished" and back[-1]["status"] == "completed", back[-1]
        assert set(back[-1]["seeds"].values()) == {"completed"}
        await socket.send(json.dumps(ppr(group, "p-back")))
        again = await events_until_end(socket, "p-back")
        assert again[-1]["type"] == "retrieval_finished" and again[-1]["status"] == "completed", again[-1]
        assert again[-2]["scores"] == before[-2]["scores"]  # the same memory, read again after the outage

    for path, frame in (
        ("/api/retrieval/activation", short_activation(group, "")),
        ("/api/retrieval/ppr", ppr(group, "")),
    ):
        status, answer = await asyncio.to_thread(post_json, daphne_url + path, rest_body(frame), token)
        assert status == 200, (path, answer)
    return waited


async def test_outage_mid_retrieval_gives_error_frames_and_503s_then_recovers(
    daphne_url: str, dense_memory: str, graph_server: EmbeddedServer, token_for_role
) -> None:
    """The server is stopped (SIGTERM, as an operator or an orchestrator does): as it shuts down it refuses the
    reads in flight (an unknown error, then "the credentials of this connection are no longer valid"), and its
    sockets close as it exits."""
    pid = graph_server.recorded_pid()
    assert pid is not None
    token = await token_for_role("agent", Role.VIEWER, [dense_memory])
    await outage_mid_retrieval(
        daphne_url,
        dense_memory,
        graph_server,
        token,
        go_away=lambda: os.killpg(pid, signal.SIGTERM),  # what graph_server.stop sends first
        gone=graph_server.stop,  # waits for the exit (the SIGTERM again is a no-op)
        come_back=graph_server.start,
    )


async def test_a_frozen_server_gives_error_frames_within_the_bound_then_recovers(
    daphne_url: str, dense_memory: str, graph_server: EmbeddedServer, token_for_role
) -> None:
    """The server stops answering but keeps its sockets open (SIGSTOP: a hung shutdown, a long GC pause, a
    partition): nothing ever closes the reads in flight, so only Memoria's own deadlines end them."""
    pid = graph_server.recorded_pid()
    assert pid is not None
    token = await token_for_role("agent", Role.VIEWER, [dense_memory])
    waited = await outage_mid_retrieval(
        daphne_url,
        dense_memory,
        graph_server,
        token,
        go_away=lambda: os.kill(pid, signal.SIGSTOP),
        come_back=lambda: os.kill(pid, signal.SIGCONT),
    )
    assert waited > 1.0  # cut off by the deadline, not by a closed socket: a frozen server sends nothing


async def test_a_retrieval_too_large_for_the_server_gives_a_query_too_large_frame(
    heap_limited_graph_server: EmbeddedServer, token_for_role
) -> None:
    """A daphne of its own on a server with a 1 MB query heap budget: the real refusal ends the retrieval with the
    query_too_large frame after one try, not graph_unavailable after four."""
    server = heap_limited_graph_server
    group = "hub"  # on a server of its own, removed with it
    spokes = [f"n{index}" for index in range(HUB_EDGES)]
    await asyncio.to_thread(load, group, ["hub", *spokes], [("hub", spoke, 0.9, []) for spoke in spokes])
    token = await token_for_role("agent", Role.VIEWER, [group])
    ports = {
        "MEMORIA_TEST_GRAPH_BOLT_PORT": str(server.bolt_port),
        "MEMORIA_TEST_GRAPH_HTTP_PORT": str(server.http_port),
    }
    log = settings.VAR_DIR / "daphne-heap-limited.log"
    with running_daphne(log, wait_seconds=30, **ports) as port:
        async with connect(f"http://127.0.0.1:{port}", "/ws/retrievals/", token) as socket:
            seeds = [{"id": f"{group}-hub", "score": 1.0}]
            await socket.send(json.dumps({"type": "retrieve", "retrieval_id": "big", "group": group, "seeds": seeds}))
            events = await events_until_end(socket, "big")
    error = events[-1]
    assert error["type"] == "error" and error["code"] == "query_too_large", error
    assert error["too_large"] == "ORDER BY" and "ORDER BY" in error["message"], error
    finished = [e for e in events if e["type"] == "retrieval_finished"]
    assert len(finished) == 1 and finished[0]["status"] == "failed", finished
    records = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    tries = [(r["attempt"], r["outcome"]) for r in records if r.get("graph_work") == "activation read"]
    assert tries == [(1, PERMANENT)], tries  # the refusal was tried once
