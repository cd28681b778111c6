"""Request and retrieval ids follow a REST search and a websocket retrieval down to every Cypher round trip."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets
from neo4j.exceptions import Neo4jError
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.graph import driver
from memoria.observability import (
    CYPHER_LOGGER,
    ContextIdsFilter,
    JsonLinesFormatter,
    PlainFormatter,
    _query_identity,
    request_id_bound,
    retrieval_id_bound,
)
from memoria.projection import projection
from tests.conftest import running_daphne
from tests.retrieval.test_activation import load, random_graph
from tests.search.memory import store_search_memory

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cypher_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Cypher records captured and stamped with their context ids, as the configured handler's filter does."""
    caplog.handler.addFilter(ContextIdsFilter())
    caplog.set_level(logging.DEBUG, logger=CYPHER_LOGGER)
    return caplog


def cypher_of(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == CYPHER_LOGGER]


@pytest.fixture
def viewer(db: None, search_group: str) -> APIClient:
    user = user_grant(username="log-viewer", role=Role.VIEWER, groups=[search_group])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user=user)}")
    return client


@pytest.fixture(scope="module")
def search_group(graph_server: object) -> Iterator[str]:
    group = "logging-search-memory"
    store_search_memory(group)
    yield group
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


def test_a_rest_search_logs_its_queries_with_the_callers_request_id(
    viewer: APIClient, search_group: str, cypher_log: pytest.LogCaptureFixture
) -> None:
    caplog, client = cypher_log, viewer
    response = client.get("/api/search", {"q": "Lyon warehouse", "group": search_group}, HTTP_X_REQUEST_ID="lb-7f3a.91")
    assert response.status_code == 200, response.content
    assert response["X-Request-ID"] == "lb-7f3a.91"
    queries = cypher_of(caplog)
    # Search loads its groups' views with pages read on worker threads, and runs its methods on a thread pool:
    # the id must have crossed into those threads.
    threads = {record.threadName for record in queries}
    workers = ("memoria-search", "memoria-view")
    assert len(queries) >= 4 and any(name.startswith(workers) for name in threads), threads
    assert {record.request_id for record in queries} == {"lb-7f3a.91"}
    for record in queries:
        assert record.duration_ms >= 0 and isinstance(record.rows, int) and record.query and record.kind == "read"


def test_a_bad_incoming_id_is_replaced_and_each_request_has_its_own(
    viewer: APIClient, search_group: str, cypher_log: pytest.LogCaptureFixture
) -> None:
    caplog, client = cypher_log, viewer
    answered = []
    for incoming in ('forged" "level": "ERROR', "x" * 200, ""):
        caplog.clear()
        response = client.get("/api/search", {"q": "gloves", "group": search_group}, HTTP_X_REQUEST_ID=incoming)
        assert response.status_code == 200
        request_id = response["X-Request-ID"]
        assert request_id != incoming and len(request_id) == 32 and int(request_id, 16) >= 0
        assert {record.request_id for record in cypher_of(caplog)} == {request_id}
        answered.append(request_id)
    assert len(set(answered)) == 3


def test_ids_do_not_leak_out_of_their_block(cypher_log: pytest.LogCaptureFixture) -> None:
    caplog = cypher_log
    with request_id_bound("outer"), retrieval_id_bound("r-9"):
        driver.read("RETURN 1 AS one")
    driver.read("RETURN 2 AS two")
    first, second = cypher_of(caplog)
    assert (first.request_id, first.retrieval_id, first.rows) == ("outer", "r-9", 1)
    assert (second.request_id, second.retrieval_id) == (None, None)


def test_slow_queries_warn_with_debug_off_and_failures_say_so(settings, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=CYPHER_LOGGER)
    settings.MEMORIA_SLOW_CYPHER_MS = 10**6
    driver.read("RETURN 1 AS one")
    assert not cypher_of(caplog)
    settings.MEMORIA_SLOW_CYPHER_MS = 0  # every round trip is "slow" now
    driver.read("RETURN 1 AS one")
    with pytest.raises(Neo4jError):
        driver.read("RETURN RETURN")
    slow, failed = cypher_of(caplog)
    assert (slow.levelno, slow.outcome, slow.rows) == (logging.WARNING, "ok", 1)
    assert failed.outcome != "ok" and failed.rows is None and failed.query == "RETURN RETURN"


def test_formatters() -> None:
    record = logging.LogRecord("memoria.cypher", logging.DEBUG, __file__, 1, "cypher %s", ("x",), None)
    record.duration_ms, record.rows, record.request_id, record.retrieval_id = 1.5, 3, "abc", None
    line = json.loads(JsonLinesFormatter().format(record))
    assert set(line) == {"time", "level", "logger", "message", "duration_ms", "rows", "request_id"}
    assert (line["level"], line["logger"], line["message"], line["rows"]) == ("DEBUG", "memoria.cypher", "cypher x", 3)
    assert line["time"].endswith("+00:00")
    plain = PlainFormatter().format(record)
    assert plain.endswith("DEBUG memoria.cypher [request_id=abc] cypher x")


# -- end to end: a daphne of our own, its log captured -------------------------


@pytest.fixture
def logging_daphne(django_db_setup: None, django_db_blocker: object, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A daphne logging JSON lines, Cypher round trips included, into a file the test reads."""
    log_path = tmp_path / "daphne.jsonl"
    with running_daphne(log_path, wait_seconds=60, MEMORIA_LOG_FORMAT="json", MEMORIA_LOG_CYPHER="1") as port:
        yield f"127.0.0.1:{port}", log_path


def json_lines(path: Path) -> list[dict]:
    """The JSON objects of the log; daphne's own start-up lines are not ours and are skipped."""
    lines = []
    for text in path.read_text().splitlines():
        if text.startswith("{"):
            lines.append(json.loads(text))
    return lines


@pytest.mark.django_db(transaction=True)
def test_a_socket_retrieval_and_a_rest_retrieval_tag_their_cypher_lines(logging_daphne, group: str) -> None:
    address, log_path = logging_daphne
    nodes, edges = random_graph(random.Random(11), 30, 120)
    load(group, nodes, edges)
    token = token_for(user=user_grant(username="log-agent", role=Role.VIEWER, groups=[group]))
    body = {
        "group": group,
        "seeds": [{"id": f"{group}-{nodes[0]}", "score": 0.9}, {"id": f"{group}-{nodes[1]}", "score": 0.5}],
        "query_tags": ["t1", "t3"],
    }

    async def over_socket(frame: dict) -> dict:
        headers = {"Authorization": f"Token {token}"}
        async with websockets.connect(f"ws://{address}/ws/retrievals/", additional_headers=headers) as ws:
            await ws.send(json.dumps({"type": "retrieve", **frame}))
            while True:
                event = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if event["type"] == "retrieval_finished":
                    return event
                assert event["type"] != "error", event

    finished = asyncio.run(over_socket({"retrieval_id": "log-r1", **body}))
    assert finished["status"] == "completed"
    # PPR loads the group's projection on a background thread, whose edge pages are read on a pool of their own.
    ppr = {
        "algorithm": "ppr",
        "retrieval_id": "log-p1",
        "group": group,
        "seeds": [{"id": f"{group}-{nodes[0]}"}],
        "top_k": 5,
    }
    assert asyncio.run(over_socket(ppr))["status"] == "completed"
    request = urllib.request.Request(
        f"http://{address}/api/retrieval/activation",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json", "X-Request-ID": "rest-42"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.headers["X-Request-ID"] == "rest-42"
        answer = json.loads(response.read())

    # An async view behind the async-capable middleware: the id is answered and logged the same way.
    probe = urllib.request.Request(f"http://{address}/healthz", headers={"X-Request-ID": "probe-1"})
    with urllib.request.urlopen(probe, timeout=60) as response:
        assert response.status == 200 and response.headers["X-Request-ID"] == "probe-1"

    lines = json_lines(log_path)
    cypher = [line for line in lines if line["logger"] == CYPHER_LOGGER]
    socket_lines = [line for line in cypher if line.get("retrieval_id") == "log-r1"]
    assert len(socket_lines) >= finished["round_trips"] > 0
    assert all("request_id" not in line for line in socket_lines)  # a socket retrieval has no HTTP request
    ppr_queries = {line["query_id"] for line in cypher if line.get("retrieval_id") == "log-p1"}
    assert _query_identity(projection.EDGES)[1] in ppr_queries, ppr_queries
    rest_lines = [line for line in cypher if line.get("request_id") == "rest-42"]
    assert len(rest_lines) >= answer["stats"]["round_trips"] > 0
    assert {line.get("retrieval_id") for line in rest_lines} == {answer["retrieval_id"]}
    for line in socket_lines + rest_lines:
        assert {"time", "level", "message", "query", "query_id", "duration_ms", "rows"} <= set(line)
        assert line["duration_ms"] >= 0 and line["rows"] >= 0
    # Every Cypher line the two retrievals caused is accounted for: none lost its id on the way.
    assert all(line.get("retrieval_id") or line.get("request_id") for line in cypher), [
        line for line in cypher if not (line.get("retrieval_id") or line.get("request_id"))
    ][:3]
    access = [line for line in lines if line["logger"] == "memoria.request" and line.get("request_id") == "rest-42"]
    assert len(access) == 1 and access[0]["status"] == 200 and access[0]["path"] == "/api/retrieval/activation"
    probed = [line for line in lines if line["logger"] == "memoria.request" and line.get("request_id") == "probe-1"]
    assert [line["path"] for line in probed] == ["/healthz"]
