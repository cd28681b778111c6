"""The one place that decides which graph failures are retried, how often, and how long to wait between tries.

A server that is restarting or failing over answers again within seconds, so a
transient failure is retried with the seed's backoff (0.05 s × 2^attempt, seed
000 §8) a bounded number of times; a bad query or a broken constraint fails the
same way every time, so it is raised at once. The driver's own retries are off
(memoria.graph.driver), so attempts are counted here and nowhere else.

Every failed attempt is logged on `memoria.graph.retry` with `graph_work`,
`attempt`, `attempts` and `outcome` (retrying | gave_up | permanent |
recovered) as record attributes: operators see outages in the log, and tests
count attempts from it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from neo4j import exceptions as neo4j_errors

from memoria.errors import GraphUnavailable, WriteConflict

T = TypeVar("T")

logger = logging.getLogger(__name__)

DEFAULT_ATTEMPTS = 4  # waits 0.05 + 0.1 + 0.2 s: an outage still answers 503 in well under a second
DEFAULT_BACKOFF_MS = 50
# Everything a graph call can raise; which of them are worth another try is is_transient's call.
GRAPH_FAILURES: tuple[type[BaseException], ...] = (neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError)

RETRYING, GAVE_UP, PERMANENT, RECOVERED = "retrying", "gave_up", "permanent", "recovered"


def is_transient(error: BaseException) -> bool:
    """Whether the same work may succeed if tried again unchanged: the server was away, or failed by itself.

    A client error (bad syntax, a broken constraint, refused credentials) fails the same way every time.
    IncompleteCommit is a lost connection during COMMIT: the write may have
    landed, so trying again could write it twice; it is reported, not retried.
    """
    if isinstance(error, neo4j_errors.IncompleteCommit):
        return False
    if isinstance(error, neo4j_errors.ServiceUnavailable | neo4j_errors.SessionExpired):
        return True
    if isinstance(error, neo4j_errors.TransientError):
        return error.is_retryable()  # a terminated or stopped transaction is "transient" by code but final
    if isinstance(error, neo4j_errors.DatabaseError):
        # The server failed, not the query: ArcadeDB answers a query running as it shuts down with
        # Neo.DatabaseError.General.UnknownError. A failure that persists ends as GraphUnavailable.
        return True
    return isinstance(error, ConnectionError | TimeoutError)


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int  # tries in all, the first included
    backoff: float  # seconds before the second try; doubled before each later one

    def delay(self, failed_attempt: int) -> float:
        """The wait after the given attempt (1-based) failed: backoff × 2^(attempt − 1)."""
        return self.backoff * 2 ** (failed_attempt - 1)

    @property
    def window(self) -> float:
        """How long a failing server is waited for in all: the sum of every delay."""
        return sum(self.delay(attempt) for attempt in range(1, self.attempts))


def retry_policy() -> RetryPolicy:
    """The policy of the settings: MEMORIA_GRAPH_RETRY_ATTEMPTS and MEMORIA_GRAPH_RETRY_BACKOFF_MS."""
    graph = settings.MEMORIA_GRAPH
    attempts = int(graph.get("RETRY_ATTEMPTS", DEFAULT_ATTEMPTS))
    backoff_ms = float(graph.get("RETRY_BACKOFF_MS", DEFAULT_BACKOFF_MS))
    return RetryPolicy(attempts=max(1, attempts), backoff=max(0.0, backoff_ms) / 1000)


class _Tries:
    """The bookkeeping both loops share: which attempt this is, and what a failure leads to."""

    def __init__(self, what: str, policy: RetryPolicy | None) -> None:
        self.what = what
        self.policy = policy or retry_policy()
        self.attempt = 0

    def _log(self, level: int, outcome: str, message: str, *args: object) -> None:
        extra = {"graph_work": self.what, "attempt": self.attempt, "attempts": self.policy.attempts, "outcome": outcome}
        logger.log(level, message, *args, extra=extra)

    def next(self) -> None:
        self.attempt += 1

    def failed(self, error: BaseException) -> float:
        """The wait before the next try; raises the error itself when permanent and, once the tries are spent,
        WriteConflict (409, retry) after conflicts or GraphUnavailable (503) after an outage."""
        if not is_transient(error):
            message = "%s failed with a permanent error, not retried: %s: %s"
            self._log(logging.WARNING, PERMANENT, message, self.what, type(error).__name__, error)
            raise error
        if self.attempt >= self.policy.attempts:
            message = "%s failed %d times in a row; giving up: %s"
            self._log(logging.ERROR, GAVE_UP, message, self.what, self.attempt, error)
            if isinstance(error, neo4j_errors.TransientError):
                # The server answered every time: concurrent writers (a deadlock, a conflicting page), not an outage.
                raise WriteConflict(
                    f"{self.what} met concurrent writes {self.attempt} times in a row; nothing was written, try again"
                ) from error
            raise GraphUnavailable(
                f"graph server is unavailable ({self.what} failed {self.attempt} times in a row): {error}"
            ) from error
        delay = self.policy.delay(self.attempt)
        self._log(
            logging.WARNING,
            RETRYING,
            "%s failed (attempt %d of %d), retrying in %.2f s: %s",
            self.what,
            self.attempt,
            self.policy.attempts,
            delay,
            error,
        )
        return delay

    def succeeded(self) -> None:
        if self.attempt > 1:
            self._log(logging.INFO, RECOVERED, "%s succeeded on attempt %d", self.what, self.attempt)


def with_retry(work: Callable[[], T], *, what: str, policy: RetryPolicy | None = None) -> T:
    """`work()`, tried again after transient graph failures; `work` must be safe to repeat (one transaction)."""
    tries = _Tries(what, policy)
    while True:
        tries.next()
        try:
            result = work()
        except GRAPH_FAILURES as error:
            time.sleep(tries.failed(error))
            continue
        tries.succeeded()
        return result


async def with_retry_async(work: Callable[[], Awaitable[T]], *, what: str, policy: RetryPolicy | None = None) -> T:
    """The async twin of with_retry: the same policy and log, waiting without blocking the event loop."""
    tries = _Tries(what, policy)
    while True:
        tries.next()
        try:
            result = await work()
        except GRAPH_FAILURES as error:
            await asyncio.sleep(tries.failed(error))
            continue
        tries.succeeded()
        return result
