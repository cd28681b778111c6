"""Retries on the real server: an outage shorter than the retry window is ridden out, a longer one is given up on
after the configured attempts, and a bad query fails at its first attempt. Attempts are counted from the helper's
log records (memoria.graph.retry), never by replacing the driver."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async
from neo4j import exceptions as neo4j_errors

from memoria.errors import GraphUnavailable, QueryTooLarge, WriteConflict
from memoria.graph import driver
from memoria.graph.driver import DEFAULT_CONNECTION_TIMEOUT_SECONDS, async_driver_for_work, database_name
from memoria.graph.embedded import EmbeddedServer
from memoria.graph.retry import (
    CONFLICT_MAX_DELAY_SECONDS,
    DEFAULT_READ_DEADLINE_SECONDS,
    GAVE_UP,
    OUTAGE_BOUND_SECONDS,
    PERMANENT,
    RECOVERED,
    RETRYING,
    RetryPolicy,
    is_transient,
    query_too_large,
    retry_policy,
    with_retry_async,
    write_conflict,
)
from memoria.retrieval.activation import Seed, activation_events
from tests.retrieval.test_activation import load

LOGGER = "memoria.graph.retry"
# Long enough for a restart on a busy two-core machine: the waits add up to 0.05 s × (2^10 − 1) ≈ 51 s, and an
# async read may take as long (its deadline would otherwise give up on the restart after 8 s).
RIDE_OUT = {"RETRY_ATTEMPTS": 11, "RETRY_BACKOFF_MS": 50, "READ_DEADLINE": 120.0}
# Sorts 200,000 rows in heap: past the heap-limited server's 1 MB budget on its own, trivial for a normal server.
OVERSIZED_SORT = "UNWIND range(1, 200000) AS x WITH x ORDER BY x DESC RETURN count(x) AS c"


def outcomes(caplog: pytest.LogCaptureFixture, what: str) -> list[tuple[int, str]]:
    """(attempt, outcome) of every record the helper logged for this kind of work, in order."""
    return [(r.attempt, r.outcome) for r in caplog.records if r.name == LOGGER and r.graph_work == what]


@pytest.fixture
def retry_settings(settings) -> Iterator:
    def apply(**values: int) -> None:
        settings.MEMORIA_GRAPH = {**settings.MEMORIA_GRAPH, **values}

    yield apply


@pytest.fixture
def outage(graph_server: EmbeddedServer) -> Iterator[EmbeddedServer]:
    """The session's server stopped for the test; started again afterwards whatever happened."""
    graph_server.stop()
    try:
        yield graph_server
    finally:
        graph_server.start()


def start_soon(server: EmbeddedServer) -> threading.Thread:
    """Start the stopped server in the background: callers meanwhile meet a refused connection."""
    thread = threading.Thread(target=server.start, name="restart-graph-server")
    thread.start()
    return thread


def test_policy_follows_the_seed_backoff_and_the_settings(retry_settings) -> None:
    assert retry_policy() == RetryPolicy(
        attempts=4, backoff=0.05, deadline=DEFAULT_READ_DEADLINE_SECONDS, conflict_attempts=10
    )
    assert [RetryPolicy(4, 0.05).delay(n) for n in (1, 2, 3)] == [0.05, 0.1, 0.2]
    retry_settings(RETRY_ATTEMPTS=6, RETRY_BACKOFF_MS=10, READ_DEADLINE=3.0, CONFLICT_ATTEMPTS=7)
    policy = retry_policy()
    assert policy == RetryPolicy(attempts=6, backoff=0.01, deadline=3.0, conflict_attempts=7)
    assert policy.window == pytest.approx(0.31)


def test_a_conflict_waits_a_random_share_of_the_backoff_capped() -> None:
    """Writers that lost the same race wait different times, so they do not collide again together."""
    policy = RetryPolicy(4, 0.05)
    for attempt in (1, 2, 5, 9):
        waits = {policy.conflict_delay(attempt) for _ in range(50)}
        assert len(waits) > 40
        assert all(0.0 <= wait <= min(CONFLICT_MAX_DELAY_SECONDS, policy.delay(attempt)) for wait in waits)


def test_the_defaults_add_up_to_the_outage_bound(settings) -> None:
    """docs/operations.md's make-up of the 10 s: raising a default past it must fail here, not in production."""
    policy = retry_policy()
    timeout = settings.MEMORIA_GRAPH["CONNECTION_TIMEOUT"]
    assert timeout == DEFAULT_CONNECTION_TIMEOUT_SECONDS
    # An async read (retrievals): everything within its deadline, then the frames are sent.
    assert policy.deadline is not None and policy.deadline <= OUTAGE_BOUND_SECONDS - 1
    # A sync call: each try at most one connection acquisition (it includes the liveness check), plus the waits.
    assert policy.attempts * timeout + policy.window <= OUTAGE_BOUND_SECONDS


def test_classification() -> None:
    assert is_transient(neo4j_errors.ServiceUnavailable("gone"))
    assert is_transient(neo4j_errors.SessionExpired("gone"))
    assert is_transient(ConnectionRefusedError())
    assert not is_transient(neo4j_errors.IncompleteCommit("commit may have landed"))
    # A read's COMMIT lost with its connection wrote nothing: the server went away (seen as a server stopped).
    assert is_transient(neo4j_errors.IncompleteCommit("Failed to read from defunct connection"), read=True)
    assert not is_transient(ValueError("not a graph failure"))
    # A record deleted under a read by a concurrent writer (ArcadeDB) is a conflict: the next try reads without it.
    gone = neo4j_errors.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Statement.EntityNotFound", message="Record #33:4117 not found"
    )
    assert is_transient(gone) and write_conflict(gone)
    assert not write_conflict(neo4j_errors.ServiceUnavailable("gone"))


def test_a_connection_that_lost_its_log_in_is_tried_again() -> None:
    """ArcadeDB's answers on an open connection while it shuts down (seen in tests/explorer/test_socket_faults.py's
    daphne log; a test cannot time the shutdown to meet them): the server going away, not a bad query. Refused
    credentials at a log-in stay permanent."""
    revoked = neo4j_errors.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Security.Unauthorized", message="The credentials of this connection are no longer valid"
    )
    assert isinstance(revoked, neo4j_errors.AuthError) and is_transient(revoked)
    logged_out = neo4j_errors.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Request.Invalid", message="BEGIN not expected in state: AUTHENTICATION"
    )
    assert is_transient(logged_out)
    refused = neo4j_errors.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Security.Unauthorized", message="Authentication failed"
    )
    assert not is_transient(refused)
    out_of_order = neo4j_errors.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Request.Invalid", message="PULL not expected in state: READY"
    )
    assert not is_transient(out_of_order)


def test_classification_of_memory_refusals() -> None:
    """Built from the servers' own codes and message templates (the contention case needs queries racing for the
    budget, which a test cannot time): alone too large is final, sharing the budget with others is transient."""
    contention = neo4j_errors.Neo4jError._hydrate_neo4j(
        code="Neo.DatabaseError.General.UnknownError",
        message="Query heap budget exceeded: the in-heap ORDER BY needs 48b more of the 1024.00KB budget their"
        " buffers share. Retry once they complete, or set arcadedb.queryMaxHeapRAM to increase the budget",
    )
    assert query_too_large(contention) is None and is_transient(contention)
    per_operation = neo4j_errors.Neo4jError._hydrate_neo4j(
        code="Neo.DatabaseError.General.UnknownError",
        message="Limit of allowed elements for in-heap collect() in a single query exceeded (1000). You can set"
        " arcadedb.queryMaxHeapElementsAllowedPerOp to increase this limit",
    )
    refusal = query_too_large(per_operation)
    assert refusal is not None and refusal.what == "collect()" and not is_transient(per_operation)
    neo4j_transaction = neo4j_errors.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.General.TransactionOutOfMemoryError",
        message="The allocation of an extra 2.0 MiB would use more than the limit 1.0 MiB."
        " Currently using 1.0 MiB. db.memory.transaction.max threshold reached",
    )
    refusal = query_too_large(neo4j_transaction)
    assert refusal is not None and refusal.setting == "db.memory.transaction.max"


def test_a_query_over_the_heap_budget_is_query_too_large_at_its_first_attempt(
    heap_limited_graph_server: EmbeddedServer, caplog: pytest.LogCaptureFixture, retry_settings
) -> None:
    """The real refusal (ArcadeDB's "Query heap budget exceeded", as Neo.DatabaseError.General.UnknownError) is the
    query's, not the server's: tried once however many attempts are on offer, then QueryTooLarge."""
    retry_settings(**RIDE_OUT)
    caplog.set_level(logging.INFO, logger=LOGGER)
    with pytest.raises(QueryTooLarge) as raised:
        driver.read(OVERSIZED_SORT)
    refused = raised.value.__cause__
    assert isinstance(refused, neo4j_errors.DatabaseError) and refused.code == "Neo.DatabaseError.General.UnknownError"
    assert refused.message.startswith("Query heap budget exceeded") and not is_transient(refused)
    assert raised.value.what == "ORDER BY" and raised.value.setting == "arcadedb.queryMaxHeapRAM"
    assert "ORDER BY" in str(raised.value)
    assert outcomes(caplog, "graph read") == [(1, PERMANENT)]
    assert driver.read("UNWIND range(1, 100) AS x WITH x ORDER BY x DESC RETURN count(x) AS c") == [{"c": 100}]


async def test_an_async_read_over_the_heap_budget_is_query_too_large_at_its_first_attempt(
    heap_limited_graph_server: EmbeddedServer, caplog: pytest.LogCaptureFixture, retry_settings
) -> None:
    retry_settings(**RIDE_OUT)
    caplog.set_level(logging.INFO, logger=LOGGER)
    async with async_driver_for_work() as graph, graph.session(database=database_name()) as session:

        async def work(tx):
            return await (await tx.run(OVERSIZED_SORT)).values()

        with pytest.raises(QueryTooLarge, match="ORDER BY"):
            await with_retry_async(lambda: session.execute_read(work), what="oversized async read")
    assert outcomes(caplog, "oversized async read") == [(1, PERMANENT)]


def test_a_broken_constraint_fails_at_once_and_is_reported_once(
    caplog: pytest.LogCaptureFixture, retry_settings, group: str
) -> None:
    retry_settings(**RIDE_OUT)
    caplog.set_level(logging.INFO, logger=LOGGER)
    node = "CREATE (:Memory:Entity {id: $id, group_id: $group, name: 'twin'})"
    driver.write(node, id=f"{group}-twin", group=group)
    with pytest.raises(neo4j_errors.ConstraintError):
        driver.write(node, id=f"{group}-twin", group=group)
    assert outcomes(caplog, "graph write") == [(1, PERMANENT)]


def test_a_bad_query_fails_at_once_and_is_reported_once(caplog: pytest.LogCaptureFixture, retry_settings) -> None:
    retry_settings(**RIDE_OUT)  # plenty of attempts on offer: none may be used
    caplog.set_level(logging.INFO, logger=LOGGER)
    with pytest.raises(neo4j_errors.ClientError) as raised:
        driver.read("RETURN nonsense(((")
    assert not is_transient(raised.value)
    assert outcomes(caplog, "graph read") == [(1, PERMANENT)]


async def test_a_bad_async_read_fails_at_once(caplog: pytest.LogCaptureFixture, retry_settings) -> None:
    retry_settings(**RIDE_OUT)
    caplog.set_level(logging.INFO, logger=LOGGER)
    async with async_driver_for_work() as graph, graph.session(database=database_name()) as session:

        async def work(tx):
            return await (await tx.run("RETURN nonsense(((")).values()

        with pytest.raises(neo4j_errors.ClientError):
            await with_retry_async(lambda: session.execute_read(work), what="bad async read")
    assert outcomes(caplog, "bad async read") == [(1, PERMANENT)]


def test_an_outage_is_given_up_on_after_the_attempts(
    outage: EmbeddedServer, caplog: pytest.LogCaptureFixture, retry_settings
) -> None:
    retry_settings(RETRY_ATTEMPTS=3, RETRY_BACKOFF_MS=10)
    caplog.set_level(logging.INFO, logger=LOGGER)
    with pytest.raises(GraphUnavailable, match="failed 3 times in a row") as raised:
        driver.read("RETURN 1 AS ok")
    assert outcomes(caplog, "graph read") == [(1, RETRYING), (2, RETRYING), (3, GAVE_UP)]
    shown = str(raised.value)  # what clients are shown: the driver's text names the server's address
    assert outage.host not in shown and str(outage.bolt_port) not in shown, shown
    caplog.clear()
    with pytest.raises(GraphUnavailable, match="failed 3 times in a row"):
        driver.read_records("RETURN [1, 2] AS raw")  # search's and the projection loader's reads
    assert outcomes(caplog, "graph read") == [(1, RETRYING), (2, RETRYING), (3, GAVE_UP)]


def test_a_write_transaction_rides_out_a_restart(
    outage: EmbeddedServer, caplog: pytest.LogCaptureFixture, retry_settings, group: str
) -> None:
    retry_settings(**RIDE_OUT)
    caplog.set_level(logging.INFO, logger=LOGGER)

    def work(tx) -> int:
        return tx.run(
            "CREATE (n:Memory {id: $id, group_id: $group}) RETURN 1 AS one", id=f"{group}-x", group=group
        ).single()[0]

    restart = start_soon(outage)
    try:
        assert driver.write_transaction(work) == 1
    finally:
        restart.join()
    seen = outcomes(caplog, "graph write transaction")
    assert len(seen) >= 2 and seen[-1] == (len(seen), RECOVERED), seen
    assert all(outcome == RETRYING for _, outcome in seen[:-1]) and [n for n, _ in seen] == list(
        range(1, len(seen) + 1)
    )
    stored = driver.read("MATCH (n:Memory {group_id: $group}) RETURN count(n) AS c", group=group)
    assert stored == [{"c": 1}]  # retried, and written once


async def test_an_activation_retrieval_rides_out_a_restart(
    graph_server: EmbeddedServer, caplog: pytest.LogCaptureFixture, retry_settings, group: str
) -> None:
    edges = [("a", "b", 0.9, ["x"]), ("b", "c", 0.8, []), ("a", "d", 0.5, ["x"]), ("d", "e", 0.7, [])]
    await sync_to_async(load)(group, ["a", "b", "c", "d", "e"], edges)
    seeds = [Seed(f"{group}-a", 1.0), Seed(f"{group}-d", 0.6)]
    before = [event.frame() async for event in activation_events(group=group, seeds=seeds)]

    retry_settings(**RIDE_OUT)
    caplog.set_level(logging.INFO, logger=LOGGER)
    await sync_to_async(graph_server.stop)()
    restart = start_soon(graph_server)
    try:
        after = [event.frame() async for event in activation_events(group=group, seeds=seeds)]
    finally:
        await sync_to_async(restart.join)()
    assert after[-1]["status"] == "completed" and set(after[-1]["seeds"].values()) == {"completed"}

    def paths(events: list[dict]) -> dict[str, list]:
        return {e["seed_id"]: [p["nodes"] for p in e["paths"]] for e in events if e["type"] == "seed_finished"}

    assert paths(after) == paths(before)
    seen = outcomes(caplog, "activation read")
    assert {outcome for _, outcome in seen} == {RETRYING, RECOVERED}, seen
    assert not [outcome for _, outcome in seen if outcome in (GAVE_UP, PERMANENT)]


def test_writers_that_conflict_on_every_attempt_end_in_write_conflict(group: str, retry_settings, caplog) -> None:
    """A write whose node another writer commits under it on every try is a conflict (409, try again), not an outage."""
    retry_settings(RETRY_ATTEMPTS=2, CONFLICT_ATTEMPTS=3, RETRY_BACKOFF_MS=1)
    node_id = f"{group}:contested"
    driver.write("CREATE (:Entity {id: $id, group_id: $group, name: 'contested', hits: 0})", id=node_id, group=group)
    bump = "MATCH (n:Entity {id: $id}) SET n.hits = n.hits + 1"

    def overtaken(tx) -> None:
        tx.run(bump, id=node_id).consume()
        # Another writer commits the same node before this transaction does.
        other = threading.Thread(
            target=lambda: driver.graph_driver().execute_query(bump, id=node_id, database_=database_name())
        )
        other.start()
        other.join()

    caplog.set_level(logging.WARNING, logger=LOGGER)
    with pytest.raises(WriteConflict, match="try again"):
        driver.write_transaction(overtaken)
    assert [outcome for _, outcome in outcomes(caplog, "graph write transaction")] == [RETRYING, RETRYING, GAVE_UP]
    # The log says the conflicts' limit (3), not the outages' (2).
    assert {r.attempts for r in caplog.records if r.name == LOGGER} == {3}
    # Only the other writer's three commits landed.
    assert driver.read("MATCH (n:Entity {id: $id}) RETURN n.hits AS hits", id=node_id) == [{"hits": 3}]
