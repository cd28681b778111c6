"""Session-wide fixtures: a real ArcadeDB server over Bolt for the whole run, groups that clean up after themselves."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from memoria.graph import driver
from memoria.graph.embedded import EmbeddedServer, embedded_server_from_settings
from memoria.graph.schema import schema_install
from memoria.graph.versions import group_stamps_delete

pytest_plugins = ["tests.graph.neo4j_cypher.recorder", "tests.llm.fixtures"]

E2E_MARK = "e2e"
ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Browser tests last: once Playwright has started, an event loop stays running in the process."""
    items.sort(key=lambda item: item.get_closest_marker(E2E_MARK) is not None)


@pytest.fixture(scope="session")
def graph_server() -> Iterator[EmbeddedServer]:
    """The test session's own graph server, emptied at the start and stopped at the end if we started it."""
    server = embedded_server_from_settings()
    was_running = server.status().answering
    server.start()
    server.http.recreate_database()
    schema_install()
    yield server
    driver.close_sync_driver()
    if not was_running:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


@pytest.fixture(autouse=True)
def _graph(graph_server: EmbeddedServer) -> EmbeddedServer:
    return graph_server


@pytest.fixture
def group() -> Iterator[str]:
    """A fresh memory group, deleted afterwards, so tests never see each other's data."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    yield name
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)
    group_stamps_delete(group=name)


@pytest.fixture(scope="module", params=["scan", "server index"])
def vector_search(request: pytest.FixtureRequest, graph_server: EmbeddedServer) -> Iterator[str]:
    """Both ways the server answers a vector search: an exact scan of the groups' own vectors (ArcadeDB's default)
    and its vector indexes (Neo4j's default, or MEMORIA_GRAPH_VECTOR_INDEXES=on), made for the module and dropped.
    """
    from django.test import override_settings

    from memoria.graph.dialect import graph_dialect
    from memoria.graph.schema import VECTOR, embedding_dimensions

    indexed = request.param == "server index"
    dialect = graph_dialect()
    with override_settings(MEMORIA_GRAPH={**settings.MEMORIA_GRAPH, "VECTOR_INDEXES": "on" if indexed else "off"}):
        assert dialect.serves_vector_indexes() is indexed
        try:
            for spec in VECTOR if indexed else ():
                dialect.vector_index(spec, embedding_dimensions())
            yield request.param
        finally:
            for spec in VECTOR if indexed else ():
                dialect.vector_index_drop(spec)


def count_group(group: str) -> dict[str, int]:
    """Nodes and RELATES edges stored in a group: what 'nothing was written' is checked against."""
    nodes = driver.read("MATCH (n:Memory {group_id: $group}) RETURN count(n) AS c", group=group)[0]["c"]
    edges = driver.read("MATCH (n:Memory {group_id: $group})-[r]->() RETURN count(r) AS c", group=group)[0]["c"]
    return {"nodes": nodes, "edges": edges}


@contextlib.contextmanager
def dedicated_graph_server(
    shared: EmbeddedServer, settings: Any, data_dir: Path, *, java_opts: tuple[str, ...] = ()
) -> Iterator[EmbeddedServer]:
    """A second graph server beside the session's shared one (which other tests need intact), with its own
    Java options, the app pointed at it while it runs; stopped and removed on the way out."""
    server = dataclasses.replace(
        shared, data_dir=data_dir, bolt_port=free_port(), http_port=free_port(), java_opts=java_opts
    )
    server.start()
    before = settings.MEMORIA_GRAPH
    settings.MEMORIA_GRAPH = {
        **before,
        "URL": f"bolt://{server.host}:{server.bolt_port}",
        "BOLT_PORT": server.bolt_port,
        "HTTP_PORT": server.http_port,
    }
    driver.close_sync_driver()  # a new driver (ours and neomodel's) for the address now in the settings
    try:
        yield server
    finally:
        settings.MEMORIA_GRAPH = before
        driver.close_sync_driver()  # back to the shared server, before this one stops
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


# ArcadeDB's budget for what all running queries hold in heap, cut to 1 MB (the first 256 KB of a query are free):
# a query sorting or collecting a few thousand rows is refused for real, as big groups' queries were in issue 12.
HEAP_LIMITED_JAVA_OPTS = ("-Darcadedb.queryMaxHeapRAM=1",)


@pytest.fixture
def heap_limited_graph_server(graph_server: EmbeddedServer, settings: Any, tmp_path: Path) -> Iterator[EmbeddedServer]:
    """A graph server of its own with a tiny query heap budget, the app pointed at it, its schema installed."""
    data_dir = tmp_path / "graphdb"
    with dedicated_graph_server(graph_server, settings, data_dir, java_opts=HEAP_LIMITED_JAVA_OPTS) as server:
        schema_install()
        yield server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def running_daphne(log_path: Path, *, wait_seconds: float, **env: str) -> Iterator[int]:
    """A daphne on a free loopback port, on the test settings and the session's graph server, its output in
    log_path; yields the port once it listens, and stops the process on the way out."""
    port = free_port()
    # env may replace the defaults, DJANGO_SETTINGS_MODULE included (tests/clients: a settings module with rates).
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "MEMORIA_E2E_SERVER": "1",
        "PYTHONPATH": str(ROOT),
        **env,
    }
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "memoria.serving", "-b", "127.0.0.1", "-p", str(port), "memoria.asgi:application"],
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + wait_seconds
        while not _listening(port):
            if process.poll() is not None:
                pytest.fail(f"daphne exited with {process.returncode}; see {log_path}")
            if time.monotonic() > deadline:
                pytest.fail(f"daphne did not start listening within {wait_seconds:.0f} s; see {log_path}")
            time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)


def daphne_log() -> Path:
    """Where the session's daphne (daphne_url) writes its log: tests read what it did from there."""
    return settings.VAR_DIR / "daphne.log"


@pytest.fixture(scope="session")
def daphne_url(django_db_setup: None, django_db_blocker: object) -> Iterator[str]:
    """A daphne process on a free loopback port, on the test database and the session's graph server."""
    with running_daphne(daphne_log(), wait_seconds=30) as port:
        yield f"http://127.0.0.1:{port}"
