"""Structured logs that tie every Cypher round trip to the request or retrieval that caused it.

The ids live in context variables: asyncio tasks and `asyncio.to_thread` copy them, so one
retrieval's seeds, threads and queries all log the id their consumer or request set, without
any engine function taking it as an argument. Plain thread pools do not copy them:
`in_context` wraps work submitted to one.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from typing import Any, ParamSpec, TypeVar

from django.conf import settings

P = ParamSpec("P")
T = TypeVar("T")

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("memoria_request_id", default=None)
retrieval_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("memoria_retrieval_id", default=None)

# An incoming X-Request-ID is kept only when it looks like an id: it lands in every log line, so no spaces,
# quotes or control characters that could forge or break a line.
REQUEST_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")

CYPHER_LOGGER = "memoria.cypher"
DEFAULT_SLOW_CYPHER_MS = 1000  # MEMORIA_SLOW_CYPHER_MS: a round trip this slow logs at WARNING, even with DEBUG off
cypher_logger = logging.getLogger(CYPHER_LOGGER)
QUERY_WORDS_CHARS = 80

# Attributes every LogRecord has: whatever else a record carries came from `extra=` and is logged as a field.
_STANDARD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


def new_request_id() -> str:
    return uuid.uuid4().hex


def request_id_accept(incoming: str | None) -> str:
    """The caller's id when it is a sane one (a proxy's or load balancer's), else a new one."""
    if incoming and REQUEST_ID.match(incoming):
        return incoming
    return new_request_id()


@contextlib.contextmanager
def _bound(var: contextvars.ContextVar[str | None], value: str) -> Iterator[str]:
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)


def request_id_bound(request_id: str) -> contextlib.AbstractContextManager[str]:
    """Everything logged inside carries this request id."""
    return _bound(request_id_var, request_id)


def retrieval_id_bound(retrieval_id: str) -> contextlib.AbstractContextManager[str]:
    """Everything logged inside carries this retrieval id."""
    return _bound(retrieval_id_var, retrieval_id)


async def retrieval_id_events(retrieval_id: str, events: AsyncIterator[T]) -> AsyncIterator[T]:
    """`events` with the retrieval id bound while each step of it runs (the tasks and threads it starts copy it),
    and unbound between steps, so nothing leaks into the consumer's context even if the stream is abandoned."""
    iterator = aiter(events)
    while True:
        token = retrieval_id_var.set(retrieval_id)
        try:
            event = await anext(iterator)
        except StopAsyncIteration:
            return
        finally:
            retrieval_id_var.reset(token)
        yield event


def in_context(work: Callable[P, T]) -> Callable[P, T]:
    """`work` bound to a copy of the caller's context, for a thread pool, which would run it without the ids.

    Each call runs in a copy of its own: one context cannot be entered by two threads at once.
    """
    context = contextvars.copy_context()

    @functools.wraps(work)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return context.copy().run(work, *args, **kwargs)

    return run


# -- Cypher round trips -------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def _query_identity(query: str) -> tuple[str, str]:
    """The query's first words (what a reader recognises) and a short digest (what a log search groups by)."""
    words = " ".join(query.split())
    shown = words if len(words) <= QUERY_WORDS_CHARS else words[: QUERY_WORDS_CHARS - 1] + "…"
    return shown, hashlib.sha1(words.encode(), usedforsecurity=False).hexdigest()[:10]


class cypher_round_trip:
    """Time one round trip to the graph server and log it: DEBUG normally, WARNING past MEMORIA_SLOW_CYPHER_MS.

    `with cypher_round_trip(query) as trip: ...; trip.rows = n`. A class, not a generator context manager:
    it runs on every query, and costs about 4 µs when the log is off and the query was fast.
    """

    __slots__ = ("kind", "outcome", "query", "rows", "started")

    def __init__(self, query: str, *, kind: str = "query") -> None:
        self.query = query
        self.kind = kind
        self.rows: int | None = None  # set by the caller when it knows

    def __enter__(self) -> cypher_round_trip:
        self.started = time.perf_counter()
        return self

    def __exit__(self, error_type: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        duration_ms = (time.perf_counter() - self.started) * 1000
        slow_ms = getattr(settings, "MEMORIA_SLOW_CYPHER_MS", DEFAULT_SLOW_CYPHER_MS)
        level = logging.WARNING if duration_ms >= slow_ms else logging.DEBUG
        if not cypher_logger.isEnabledFor(level):
            return
        shown, digest = _query_identity(self.query)
        cypher_logger.log(
            level,
            "cypher %s %.1f ms, %s rows: %s",
            self.kind,
            duration_ms,
            "?" if self.rows is None else self.rows,
            shown,
            extra={
                "query": shown,
                "query_id": digest,
                "kind": self.kind,
                "duration_ms": round(duration_ms, 3),
                "rows": self.rows,
                "outcome": "ok" if error_type is None else error_type.__name__,
            },
        )


# -- logging configuration pieces (named in settings.LOGGING) -------------------


class ContextIdsFilter(logging.Filter):
    """Stamps each record with the request and retrieval ids of the context it was logged in."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
        if not hasattr(record, "retrieval_id"):
            record.retrieval_id = retrieval_id_var.get()
        return True


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the context ids when set, and any `extra` fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRIBUTES and key not in line and value is not None:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str, ensure_ascii=False)


class PlainFormatter(logging.Formatter):
    """Human-readable lines for development, the ids in brackets when set."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(ids)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        ids = [
            f"{name}={value}"
            for name in ("request_id", "retrieval_id")
            if (value := getattr(record, name, None)) is not None
        ]
        record.ids = f" [{' '.join(ids)}]" if ids else ""
        return super().format(record)
