"""The one place that decides which graph failures are retried, how often, and how long to wait between tries.

A server that is restarting or failing over answers again within seconds, so a
transient failure is retried with the seed's backoff (0.05 s × 2^attempt, seed
000 §8) a bounded number of times; a bad query, a broken constraint or a query
larger than the server's memory budget fails the same way every time, so it is
raised at once (the last as QueryTooLarge). The driver's own retries are off
(memoria.graph.driver), so attempts are counted here and nowhere else.

Every failed attempt is logged on `memoria.graph.retry` with `graph_work`,
`attempt`, `attempts` and `outcome` (retrying | gave_up | permanent |
recovered) as record attributes: operators see outages in the log, and tests
count attempts from it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from neo4j import exceptions as neo4j_errors

from memoria.errors import GraphUnavailable, QueryTooLarge, WriteConflict

T = TypeVar("T")

logger = logging.getLogger(__name__)

DEFAULT_ATTEMPTS = 4  # waits 0.05 + 0.1 + 0.2 s: an outage still answers 503 in well under a second
DEFAULT_BACKOFF_MS = 50
# Concurrent writers of the same records: the server answers, so more tries delay no outage's report. Each wait is
# drawn at random below the exponential backoff (capped), so writers that failed together do not meet again
# together: ten tries wait about 2.4 s at most in all.
DEFAULT_CONFLICT_ATTEMPTS = 10
CONFLICT_MAX_DELAY_SECONDS = 0.5
# The server's ways of saying another transaction changed, or deleted, what this one touched. ArcadeDB answers a
# commit that lost a race with DeadlockDetected, and a read that met a record deleted meanwhile with EntityNotFound.
CONFLICT_CODES = frozenset(
    {
        "Neo.TransientError.Transaction.DeadlockDetected",
        "Neo.TransientError.Transaction.LockAcquisitionTimeout",
        "Neo.TransientError.Transaction.Outdated",
        "Neo.ClientError.Statement.EntityNotFound",
    }
)
# The promise (docs/operations.md): a client hears of an outage within this many seconds of the graph server going
# away. The defaults below make it up; tests/graph/test_retry.py adds them up against it.
OUTAGE_BOUND_SECONDS = 10
# A retrieval's read, every try and wait together: a server that went away without closing its sockets (frozen,
# partitioned, hung in its shutdown) never answers, and Bolt has no read timeout of its own (only a Neo4j server's
# hint sets one). 8 s plus sending the frames keeps "server gone → client's error event" within the documented 10 s.
DEFAULT_READ_DEADLINE_SECONDS = 8
# Everything a graph call can raise; which of them are worth another try is is_transient's call.
GRAPH_FAILURES: tuple[type[BaseException], ...] = (neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError)

RETRYING, GAVE_UP, PERMANENT, RECOVERED = "retrying", "gave_up", "permanent", "recovered"


# ArcadeDB refuses a query that would hold too much in heap with Neo.DatabaseError.General.UnknownError; only the
# text says why. Final: one buffer past arcadedb.queryMaxHeapElementsAllowedPerOp ("Limit of allowed elements for
# in-heap ORDER BY in a single query exceeded"), or past the whole arcadedb.queryMaxHeapRAM ("Query heap budget
# exceeded: the in-heap ORDER BY needs N more, and its query would hold more than the whole budget ..."). The
# other heap-budget message ("... Retry once they complete") means other queries hold the budget now: transient.
ARCADEDB_SIZE_REFUSALS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"Query heap budget exceeded: the in-heap (?P<what>.+?) needs .*more than the whole budget"),
        "arcadedb.queryMaxHeapRAM",
    ),
    (
        re.compile(r"Limit of allowed elements for in-heap (?P<what>.+?) in a single query exceeded"),
        "arcadedb.queryMaxHeapElementsAllowedPerOp",
    ),
)
# ArcadeDB checks a connection's user again at every transaction, and a server shutting down (SIGTERM) fails that
# check before its sockets close: the transaction is answered with Neo.ClientError.Security.Unauthorized ("The
# credentials of this connection are no longer valid") and the connection is put back to AUTHENTICATION, so its
# next one is refused with Neo.ClientError.Request.Invalid ("BEGIN not expected in state: AUTHENTICATION").
# Neither is about the query: the server is going away, and the next try meets it as it is then (gone, or back).
# Refused credentials at a log-in come with another message and stay permanent.
ARCADEDB_LOST_LOGINS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Neo.ClientError.Security.Unauthorized", re.compile(r"credentials of this connection are no longer valid")),
    ("Neo.ClientError.Request.Invalid", re.compile(r"not expected in state: AUTHENTICATION")),
)
# Neo4j's per-transaction limit (db.memory.transaction.max) is a ClientError; its pool-wide limit
# (Neo.TransientError.General.MemoryPoolOutOfMemoryError) is contention, so it stays transient.
NEO4J_TRANSACTION_MEMORY = "Neo.ClientError.General.TransactionOutOfMemoryError"
NEO4J_TRANSACTION_MEMORY_SETTING = "db.memory.transaction.max"


def query_too_large(error: BaseException) -> QueryTooLarge | None:
    """The typed refusal when the server refused the query for the memory it needs on its own, else None."""
    if not isinstance(error, neo4j_errors.Neo4jError):
        return None
    if error.code == NEO4J_TRANSACTION_MEMORY:
        return QueryTooLarge("transaction", setting=NEO4J_TRANSACTION_MEMORY_SETTING)
    if isinstance(error, neo4j_errors.DatabaseError):
        for pattern, setting in ARCADEDB_SIZE_REFUSALS:
            match = pattern.search(error.message or "")
            if match:
                return QueryTooLarge(match["what"], setting=setting)
    return None


def login_lost(error: BaseException) -> bool:
    """Whether the server dropped the log-in of the connection a transaction ran on (ARCADEDB_LOST_LOGINS)."""
    if not isinstance(error, neo4j_errors.Neo4jError):
        return False
    return any(error.code == code and pattern.search(error.message or "") for code, pattern in ARCADEDB_LOST_LOGINS)


def write_conflict(error: BaseException) -> bool:
    """Whether the server refused the work because another transaction changed what it touched (CONFLICT_CODES):
    the same work may succeed once that one is done, and failing in the end is a conflict (409), not an outage."""
    return isinstance(error, neo4j_errors.Neo4jError) and error.code in CONFLICT_CODES


def is_transient(error: BaseException, *, read: bool = False) -> bool:
    """Whether the same work may succeed if tried again unchanged: the server was away, or failed by itself.

    A client error (bad syntax, a broken constraint, refused credentials) fails the same way every time, and so
    does a query too large for the server's memory budget. IncompleteCommit is a lost connection during COMMIT:
    a write may have landed, so trying it again could write it twice; it is reported, not retried. A `read`
    wrote nothing, so its lost COMMIT is the server going away like any lost connection. A client error that
    only says the connection lost its log-in is the server going away too (login_lost): tried again.
    """
    if isinstance(error, neo4j_errors.IncompleteCommit):
        return read
    if query_too_large(error) is not None:
        return False
    if login_lost(error) or write_conflict(error):
        return True
    if isinstance(error, neo4j_errors.ServiceUnavailable | neo4j_errors.SessionExpired):
        return True
    if isinstance(error, neo4j_errors.TransientError):
        return error.is_retryable()  # a terminated or stopped transaction is "transient" by code but final
    if isinstance(error, neo4j_errors.DatabaseError):
        # Otherwise the server failed, not the query: ArcadeDB answers a query running as it shuts down with
        # Neo.DatabaseError.General.UnknownError. A failure that persists ends as GraphUnavailable.
        return True
    return isinstance(error, ConnectionError | TimeoutError)


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int  # tries in all, the first included
    backoff: float  # seconds before the second try; doubled before each later one
    deadline: float | None = None  # seconds async work may take, tries and waits together; None: no bound
    conflict_attempts: int = DEFAULT_CONFLICT_ATTEMPTS  # tries in all while every failure is a write conflict

    def delay(self, failed_attempt: int) -> float:
        """The wait after the given attempt (1-based) failed: backoff × 2^(attempt − 1)."""
        return self.backoff * 2 ** (failed_attempt - 1)

    def conflict_delay(self, failed_attempt: int) -> float:
        """The wait after a conflict: at random below the backoff's (at most CONFLICT_MAX_DELAY_SECONDS)."""
        return random.uniform(0.0, min(CONFLICT_MAX_DELAY_SECONDS, self.delay(failed_attempt)))

    @property
    def window(self) -> float:
        """How long a failing server is waited for in all: the sum of every delay."""
        return sum(self.delay(attempt) for attempt in range(1, self.attempts))


def retry_policy() -> RetryPolicy:
    """The policy of the settings: MEMORIA_GRAPH_RETRY_ATTEMPTS, _RETRY_BACKOFF_MS and _READ_DEADLINE."""
    graph = settings.MEMORIA_GRAPH
    attempts = int(graph.get("RETRY_ATTEMPTS", DEFAULT_ATTEMPTS))
    backoff_ms = float(graph.get("RETRY_BACKOFF_MS", DEFAULT_BACKOFF_MS))
    deadline = float(graph.get("READ_DEADLINE", DEFAULT_READ_DEADLINE_SECONDS))
    conflict_attempts = int(graph.get("CONFLICT_ATTEMPTS", DEFAULT_CONFLICT_ATTEMPTS))
    return RetryPolicy(
        attempts=max(1, attempts),
        backoff=max(0.0, backoff_ms) / 1000,
        deadline=max(0.1, deadline),
        conflict_attempts=max(1, conflict_attempts),
    )


class _Tries:
    """The bookkeeping both loops share: which attempt this is, and what a failure leads to."""

    def __init__(self, what: str, policy: RetryPolicy | None, *, read: bool) -> None:
        self.what = what
        self.read = read
        self.policy = policy or retry_policy()
        self.attempt = 0

    def _log(self, level: int, outcome: str, message: str, *args: object, limit: int | None = None) -> None:
        """`limit`: the tries allowed for this failure (a write conflict's differ from an outage's)."""
        attempts = limit if limit is not None else self.policy.attempts
        extra = {"graph_work": self.what, "attempt": self.attempt, "attempts": attempts, "outcome": outcome}
        logger.log(level, message, *args, extra=extra)

    def next(self) -> None:
        self.attempt += 1

    def failed(self, error: BaseException) -> float:
        """The wait before the next try; raises when permanent (QueryTooLarge for a query over the server's memory
        budget, else the error itself) and, once the tries are spent, WriteConflict (409, retry) after conflicts
        or GraphUnavailable (503) after an outage.

        Only the log gets the driver's text: it names the server's host and port, which clients must not see.
        """
        if not is_transient(error, read=self.read):
            message = "%s failed with a permanent error, not retried: %s: %s"
            self._log(logging.WARNING, PERMANENT, message, self.what, type(error).__name__, error)
            refusal = query_too_large(error)
            if refusal is not None:
                raise refusal from error
            raise error
        conflict = write_conflict(error)
        limit = self.policy.conflict_attempts if conflict else self.policy.attempts
        if self.attempt >= limit:
            message = "%s failed %d times in a row; giving up: %s"
            self._log(logging.ERROR, GAVE_UP, message, self.what, self.attempt, error, limit=limit)
            if conflict or isinstance(error, neo4j_errors.TransientError):
                # The server answered every time: concurrent writers (a deadlock, a conflicting page), not an outage.
                raise WriteConflict(
                    f"{self.what} met concurrent writes {self.attempt} times in a row; nothing was written, try again"
                ) from error
            raise GraphUnavailable(
                f"{self.what} failed {self.attempt} times in a row ({type(error).__name__})"
            ) from error
        delay = self.policy.conflict_delay(self.attempt) if conflict else self.policy.delay(self.attempt)
        self._log(
            logging.WARNING,
            RETRYING,
            "%s failed (attempt %d of %d), retrying in %.2f s: %s",
            self.what,
            self.attempt,
            limit,
            delay,
            error,
            limit=limit,
        )
        return delay

    def out_of_time(self, error: BaseException | None) -> GraphUnavailable:
        """The outage when the deadline passed: mid-try (no answer at all) or before a try it left no time for."""
        deadline = self.policy.deadline
        shown = f"{type(error).__name__}: {error}" if error is not None else "no answer"
        message = "%s got no answer within its deadline of %.1f s (attempt %d of %d); giving up: %s"
        self._log(logging.ERROR, GAVE_UP, message, self.what, deadline, self.attempt, self.policy.attempts, shown)
        return GraphUnavailable(f"{self.what} got no answer from the graph server within {deadline:g} s")

    def succeeded(self) -> None:
        if self.attempt > 1:
            self._log(logging.INFO, RECOVERED, "%s succeeded on attempt %d", self.what, self.attempt)


def with_retry(work: Callable[[], T], *, what: str, policy: RetryPolicy | None = None, read: bool = False) -> T:
    """`work()`, tried again after transient graph failures; `work` must be safe to repeat (one transaction).
    `read`: it writes nothing, so even a connection lost during its COMMIT is tried again."""
    tries = _Tries(what, policy, read=read)
    while True:
        tries.next()
        try:
            result = work()
        except GRAPH_FAILURES as error:
            time.sleep(tries.failed(error))
            continue
        tries.succeeded()
        return result


async def with_retry_async(
    work: Callable[[], Awaitable[T]], *, what: str, policy: RetryPolicy | None = None, read: bool = False
) -> T:
    """The async twin of with_retry: the same policy and log, waiting without blocking the event loop, and all of
    it within the policy's deadline, so a server that stops answering without closing its sockets is an outage
    within seconds instead of a read that waits forever. A try cut off by the deadline is cancelled (the driver
    drops its connection) and GraphUnavailable is raised."""
    tries = _Tries(what, policy, read=read)
    loop = asyncio.get_running_loop()
    deadline = tries.policy.deadline
    ends = None if deadline is None else loop.time() + deadline
    while True:
        tries.next()
        window = asyncio.timeout_at(ends)
        try:
            async with window:
                result = await work()
        except GRAPH_FAILURES as error:  # TimeoutError is an OSError: the window's own expiry lands here too
            if window.expired():
                raise tries.out_of_time(None) from error
            delay = tries.failed(error)
            if ends is not None and loop.time() + delay >= ends:
                raise tries.out_of_time(error) from error
            await asyncio.sleep(delay)
            continue
        tries.succeeded()
        return result
