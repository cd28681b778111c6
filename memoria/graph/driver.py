"""The process's Bolt drivers: one sync driver (commands, views, neomodel) and one async driver per event loop.

Driver-level failures are translated to GraphUnavailable here, so no caller
needs to know the neo4j driver's exception zoo. The driver's own transaction
retries are off: memoria.graph.retry retries transient failures, in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

import neo4j
from django.conf import settings
from neo4j import exceptions as neo4j_errors

from memoria.errors import GraphUnavailable
from memoria.graph.retry import with_retry
from memoria.observability import cypher_round_trip

T = TypeVar("T")

logger = logging.getLogger(__name__)

# Errors that mean "the server is not there or went away", as opposed to a bad query.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    neo4j_errors.ServiceUnavailable,
    neo4j_errors.SessionExpired,
    neo4j_errors.AuthError,
    neo4j_errors.DriverError,
    ConnectionError,
    TimeoutError,
)

_lock = threading.Lock()
_sync_driver: neo4j.Driver | None = None
_async_drivers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, neo4j.AsyncDriver] = weakref.WeakKeyDictionary()


# Opening a connection to a reachable server takes milliseconds; a server that does not answer within this is
# away. With memoria.graph.retry's four tries it bounds an unreachable server's 503 to about 8.4 s
# (docs/operations.md, "How fast an outage shows").
DEFAULT_CONNECTION_TIMEOUT_SECONDS = 2


def _driver_options(*, sync: bool = False) -> dict[str, Any]:
    """Options of every driver; `sync` for the shared sync driver, whose reads nothing else can cut short."""
    graph = settings.MEMORIA_GRAPH
    timeout = graph["CONNECTION_TIMEOUT"]
    return {
        "auth": (graph["USER"], graph["PASSWORD"]),
        "connection_timeout": timeout,
        # The whole acquisition: a free pool slot, TCP, the Bolt handshake, log-in, and the liveness check below.
        "connection_acquisition_timeout": timeout,
        # No retries inside the driver: with_retry owns them, so one policy is counted and logged in one place.
        "max_transaction_retry_time": 0.0,
        "max_connection_pool_size": 100,
        # Bolt has no read timeout, so a query sent on a pooled connection to a server that went silent (frozen,
        # partitioned, hung in its shutdown) waits forever. The sync driver checks each pooled connection before
        # handing it out (one RESET round trip, about 0.1 ms on loopback, bounded by the acquisition timeout);
        # the async reads are bounded by memoria.graph.retry's deadline instead, so theirs are checked when idle.
        "liveness_check_timeout": 0.0 if sync else 30.0,
    }


def database_name() -> str:
    return settings.MEMORIA_GRAPH["DATABASE"]


def graph_driver() -> neo4j.Driver:
    """The shared sync driver, created on first use (creating it does not connect)."""
    global _sync_driver
    with _lock:
        if _sync_driver is None:
            _sync_driver = neo4j.GraphDatabase.driver(settings.MEMORIA_GRAPH["URL"], **_driver_options(sync=True))
        return _sync_driver


def async_graph_driver() -> neo4j.AsyncDriver:
    """The async driver of the running event loop (a process serving ASGI has exactly one)."""
    loop = asyncio.get_running_loop()
    driver = _async_drivers.get(loop)
    if driver is None:
        driver = neo4j.AsyncGraphDatabase.driver(settings.MEMORIA_GRAPH["URL"], **_driver_options())
        _async_drivers[loop] = driver
    return driver


_long_lived_loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def adopt_running_loop() -> None:
    """Mark the running loop as the process's long-lived one (daphne's, a benchmark's): its driver is shared."""
    _long_lived_loops.add(asyncio.get_running_loop())


@contextlib.asynccontextmanager
async def async_driver_for_work() -> AsyncIterator[neo4j.AsyncDriver]:
    """The shared async driver on a long-lived loop; elsewhere (a sync caller's temporary loop) a private one.

    A driver belongs to the loop it was made on, and a temporary loop dies with its
    call, so its driver must be closed before the loop goes.
    """
    if asyncio.get_running_loop() in _long_lived_loops:
        yield async_graph_driver()
        return
    private = neo4j.AsyncGraphDatabase.driver(settings.MEMORIA_GRAPH["URL"], **_driver_options())
    try:
        yield private
    finally:
        await private.close()


def neomodel_wire() -> None:
    """Hand neomodel the current shared driver (and drop any it held), so its models query what our code does.

    Not db.set_connection(): that asks the server for its version at once, and start-up must not need the graph
    server (pages answer 503 until it is back).
    """
    from neomodel import db, get_config

    config = get_config()
    config.database_name = database_name()
    config.driver = graph_driver()
    db.driver = None  # neomodel takes config.driver again on its next query


def close_sync_driver() -> None:
    """Close the shared sync driver; the next query makes a new one (a server moved or restarted), neomodel too."""
    global _sync_driver
    with _lock:
        if _sync_driver is not None:
            _sync_driver.close()
            _sync_driver = None
    neomodel_wire()


async def close_async_driver() -> None:
    with contextlib.suppress(RuntimeError):
        driver = _async_drivers.pop(asyncio.get_running_loop(), None)
        if driver is not None:
            await driver.close()


@contextlib.contextmanager
def graph_errors() -> Iterator[None]:
    """Turn connection-level failures into GraphUnavailable; the driver's text (hosts, ports) goes to the log only."""
    try:
        yield
    except neo4j_errors.AuthError as error:
        logger.error("graph server at %s refused our credentials: %s", settings.MEMORIA_GRAPH["URL"], error.message)
        raise GraphUnavailable("the graph server refused Memoria's credentials") from error
    except UNAVAILABLE_ERRORS as error:
        logger.error("graph server at %s is unavailable: %s", settings.MEMORIA_GRAPH["URL"], error)
        raise GraphUnavailable(f"the graph server could not be reached ({type(error).__name__})") from error


def _records(query: str, parameters: dict[str, Any], routing: neo4j.RoutingControl) -> list[neo4j.Record]:
    """One statement in its own transaction, retried on transient failures: it landed whole, or nothing did."""
    kind = "read" if routing == neo4j.RoutingControl.READ else "write"

    def work() -> list[neo4j.Record]:
        with cypher_round_trip(query, kind=kind) as trip:  # each try is a round trip of its own
            records, _, _ = graph_driver().execute_query(query, parameters, database_=database_name(), routing_=routing)
            trip.rows = len(records)
        return records

    with graph_errors():
        return with_retry(work, what=f"graph {kind}", read=routing == neo4j.RoutingControl.READ)


def read_records(query: str, **parameters: Any) -> list[neo4j.Record]:
    """Like read, with the records as the driver decoded them: for rows of long lists or vectors, which
    `record.data()` would walk element by element in Python."""
    return _records(query, parameters, neo4j.RoutingControl.READ)


_PLAIN = frozenset({str, int, float, bool, type(None)})


def record_row(record: neo4j.Record) -> dict[str, Any]:
    """`record.data()`, without its walk when every value is plain or a list of plain values (nearly every row we
    read): the driver's exporter checks each list element against eight types, which was a tenth of ingestion's
    CPU. Nodes, relationships, paths and maps still go through it."""
    values = record.values()
    for value in values:
        kind = type(value)
        if kind not in _PLAIN and not (kind is list and all(type(item) in _PLAIN for item in value)):
            return record.data()
    return dict(zip(record.keys(), values, strict=True))


def read(query: str, **parameters: Any) -> list[dict[str, Any]]:
    """Run one read query in a read transaction; rows come back as dicts."""
    return [record_row(record) for record in _records(query, parameters, neo4j.RoutingControl.READ)]


def rows(runner: neo4j.ManagedTransaction | None, query: str, **parameters: Any) -> list[dict[str, Any]]:
    """One query's rows as dicts: inside `runner`'s transaction when given (a write that reads what it is about to
    change), else as a read transaction of its own."""
    if runner is None:
        return read(query, **parameters)
    return [record.data() for record in runner.run(query, parameters)]


def model_read(work: Callable[[], T]) -> T:
    """Run a read made through the models (memoria.graph.models) as our Cypher reads run: retried on transient
    failures, timed and logged under the function's name, and an unreachable server raised as GraphUnavailable
    (neomodel queries the shared driver but knows none of that). `work` may run again, so it must not keep state."""
    name = getattr(work, "__qualname__", "model read")

    def attempt() -> T:
        with cypher_round_trip(name, kind="model read"):
            return work()

    with graph_errors():
        return with_retry(attempt, what="graph model read", read=True)


def write(query: str, **parameters: Any) -> list[dict[str, Any]]:
    """Run one write query in its own transaction."""
    return [record_row(record) for record in _records(query, parameters, neo4j.RoutingControl.WRITE)]


def process_bookmarks() -> neo4j.api.BookmarkManager:
    """The causal chain of this process's graph work: every statement and transaction (sync or on an event loop)
    waits for the bookmarks of the ones before it and adds its own. On a Neo4j cluster with read replicas, a read
    after a write that returned therefore sees it (read-your-writes in one process); on one server it costs
    nothing. It is the driver's execute_query manager, so plain reads and writes share it."""
    return graph_driver().execute_query_bookmark_manager


def write_transaction(work: Callable[[neo4j.ManagedTransaction], T]) -> T:
    """Run several statements as one transaction: all of them land, or none does. A transient failure runs
    `work` again from the start in a fresh transaction, so `work` must not keep state between tries."""
    name = getattr(work, "__qualname__", "transaction")

    def attempt() -> T:
        with (
            cypher_round_trip(name, kind="transaction"),
            graph_driver().session(database=database_name(), bookmark_manager=process_bookmarks()) as session,
        ):
            return session.execute_write(work)

    with graph_errors():
        return with_retry(attempt, what="graph write transaction")


def server_agent() -> str:
    """The server's self-description (e.g. 'Neo4j/5.26.0'), which the dialect is chosen from."""
    with graph_errors():
        return graph_driver().get_server_info().agent
