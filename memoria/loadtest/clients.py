"""The load's clients: websocket retrievals (closed loop), paced REST searches and ingests (open loop), a watcher.

Each client stops by itself at the deadline and every wait has a timeout, so a run is bounded in time and count.
"""

from __future__ import annotations

import asyncio
import http.client
import urllib.parse
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from memoria_client import (
    AsyncRetrievalStream,
    AsyncWatchStream,
    ErrorEvent,
    MemoriaClient,
    MemoriaError,
    RetrievalFinished,
    Watching,
)

from memoria.loadtest.report import Recorder

WS_RETRIEVE = "retrieve"
WS_CONNECT = "ws_connect"
SEARCH = "search"
INGEST = "ingest"
SEARCH_LIMIT = 10
# 409 (concurrent ingests kept colliding) and 503 (the graph's transient errors outlasted the server's retries):
# nothing was written and the API asks to try again, as a polite client does. Other statuses are final.
RETRY_STATUSES = (409, 503)
INGEST_ATTEMPTS = 4
INGEST_RETRY_PAUSE = 0.5  # seconds, times the attempt number


@dataclass
class RetrievalTally:
    """Retrieval ids that completed (with the loop time the client saw it), by the server (index into the URL list)
    they ran on, and events received."""

    completed: dict[int, dict[str, float]] = field(default_factory=dict)
    events: int = 0


async def retrieval_client(
    *,
    http_base: str,
    server: int,
    label: str,
    token: str,
    group: str,
    queries: list[str],
    first_query: int,
    deadline: float,
    timeout: float,
    recorder: Recorder,
    tally: RetrievalTally,
    limit: int | None = None,
) -> None:
    """One socket running activation retrievals back to back until the deadline (or `limit` of them), one at a time."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    stream = AsyncRetrievalStream(http_base, token, open_timeout=timeout)
    try:
        await stream.open()
    except (OSError, TimeoutError, MemoriaError) as error:
        recorder.fail(WS_CONNECT, f"{type(error).__name__}: {error}")
        return
    recorder.ok(WS_CONNECT, loop.time() - started)
    done = tally.completed.setdefault(server, {})
    count = 0
    try:
        while loop.time() < deadline and (limit is None or count < limit):
            retrieval_id = f"{label}-{count}"
            query = queries[(first_query + count) % len(queries)]
            started = loop.time()
            await stream.start(group, retrieval_id=retrieval_id, query=query)
            try:
                problem = await asyncio.wait_for(_until_finished(stream, retrieval_id, tally), timeout)
            except TimeoutError:
                recorder.fail(WS_RETRIEVE, f"no retrieval_finished within {timeout:.0f} s")
                return  # the socket's state is unknown: stop this client rather than misattribute later frames
            if problem is None:
                recorder.ok(WS_RETRIEVE, loop.time() - started)
                done[retrieval_id] = loop.time()
            else:
                recorder.fail(WS_RETRIEVE, problem)
            count += 1
    except MemoriaError as error:  # the client's StreamError: "socket closed: ..."
        recorder.fail(WS_RETRIEVE, str(error))
    finally:
        await stream.close()


async def _until_finished(stream: AsyncRetrievalStream, retrieval_id: str, tally: RetrievalTally) -> str | None:
    """None when the retrieval completed; otherwise what went wrong. Frames of an earlier retrieval are skipped
    (and counted: the tally is of every event received)."""
    async for event in stream.events():
        tally.events += 1
        if isinstance(event, ErrorEvent) and event.retrieval_id in (None, retrieval_id):
            return f"error frame {event.code}: {event.message}"
        if isinstance(event, RetrievalFinished) and event.retrieval_id == retrieval_id:
            return None if event.status == "completed" else f"retrieval {event.status}: {event.error}"
    return "socket closed before retrieval_finished"


@dataclass
class WatchTally:
    finished: dict[str, float] = field(default_factory=dict)  # retrieval id → loop time its end reached the watcher
    events: int = 0
    error: str | None = None


async def watch_group(
    *,
    http_base: str,
    token: str,
    group: str,
    timeout: float,
    ready: asyncio.Event,
    stop: asyncio.Event,
    tally: WatchTally,
) -> None:
    """Collect the ids of every retrieval that finishes in the group, whichever server ran it, until `stop`."""
    try:
        async with AsyncWatchStream(http_base, token, group, open_timeout=timeout) as stream:
            first = await stream.next_event(timeout)
            if not isinstance(first, Watching):
                tally.error = f"watch refused: {first.data}"
                return
            ready.set()
            while not stop.is_set():
                try:
                    event = await stream.next_event(0.2)
                except TimeoutError:
                    continue
                tally.events += 1
                if isinstance(event, RetrievalFinished) and event.retrieval_id is not None:
                    tally.finished[event.retrieval_id] = asyncio.get_running_loop().time()
    except (OSError, TimeoutError, MemoriaError) as error:
        tally.error = f"watcher: {type(error).__name__}: {error}"
    finally:
        ready.set()  # never leave the run waiting for a watcher that failed


def brief(body: Any) -> str:
    """A response body on one short line, for error messages (an HTML error page included)."""
    return " ".join(str(body).split())[:160]


def http_json(base: str, method: str, path: str, *, token: str, body: Any = None, timeout: float) -> tuple[int, Any]:
    """One request on its own loopback connection through the client's transport, without its retries (the load
    test counts every status itself); blocking: run in a thread. Returns status and decoded JSON."""
    response = MemoriaClient(base, token, timeout=timeout).send(method, path, body=body)
    return response.status, response.body


@dataclass(frozen=True)
class Pace:
    """Requests per second from `began` (the run's start) to `deadline`, at most `max_in_flight` unfinished."""

    rate: float
    began: float
    deadline: float
    max_in_flight: int


async def paced(pace: Pace, *, recorder: Recorder, operation: str, start: Callable[[int], Awaitable[None]]) -> int:
    """Start `start(n)` at the pace's rate until its deadline, whether earlier ones finished or not (open loop).

    Due times count from the run's start, so a run sends exactly rate × duration whenever this starts.
    Past `max_in_flight` unfinished ones, a due start is skipped and counted as an error: the server is not keeping
    up, and the load stays bounded. Returns how many were started; waits for them all.
    """
    rate, began, deadline, max_in_flight = pace.rate, pace.began, pace.deadline, pace.max_in_flight
    if rate <= 0:
        return 0
    loop = asyncio.get_running_loop()
    running: set[asyncio.Task[None]] = set()
    count = 0
    while True:
        due = began + count / rate
        if due >= deadline:
            break
        await asyncio.sleep(max(0.0, due - loop.time()))
        if len(running) >= max_in_flight:
            recorder.fail(operation, f"not sent: {max_in_flight} requests already waiting")
        else:
            task = asyncio.create_task(start(count))
            running.add(task)
            task.add_done_callback(running.discard)
        count += 1
    await asyncio.gather(*running)
    return count


async def search_once(
    *, executor: Executor, http_base: str, token: str, group: str, query: str, timeout: float, recorder: Recorder
) -> None:
    loop = asyncio.get_running_loop()
    path = "/api/search?" + urllib.parse.urlencode({"q": query, "group": group, "limit": SEARCH_LIMIT})
    started = loop.time()
    try:
        status, body = await loop.run_in_executor(
            executor, lambda: http_json(http_base, "GET", path, token=token, timeout=timeout)
        )
    except (OSError, http.client.HTTPException) as error:
        recorder.fail(SEARCH, f"{type(error).__name__}: {error}")
        return
    if status == 200:
        recorder.ok(SEARCH, loop.time() - started)
    else:
        recorder.fail(SEARCH, f"HTTP {status}: {brief(body)}")


@dataclass
class IngestLedger:
    """Episode ids sent, and those the server acknowledged as newly added."""

    sent: list[str] = field(default_factory=list)
    acknowledged: list[str] = field(default_factory=list)
    retries: Counter[int] = field(default_factory=Counter)  # requests sent again, by the status that asked for it


async def ingest_once(
    *,
    executor: Executor,
    http_base: str,
    token: str,
    group: str,
    episode: dict[str, str],
    timeout: float,
    recorder: Recorder,
    ledger: IngestLedger,
) -> None:
    loop = asyncio.get_running_loop()
    path = f"/api/groups/{urllib.parse.quote(group)}/episodes"
    ledger.sent.append(episode["id"])
    started = loop.time()
    for attempt in range(1, INGEST_ATTEMPTS + 1):
        try:
            status, body = await loop.run_in_executor(
                executor, lambda: http_json(http_base, "POST", path, token=token, body=episode, timeout=timeout)
            )
        except (OSError, http.client.HTTPException) as error:
            recorder.fail(INGEST, f"{type(error).__name__}: {error}")
            return
        if status not in RETRY_STATUSES or attempt == INGEST_ATTEMPTS:
            break
        ledger.retries[status] += 1
        await asyncio.sleep(INGEST_RETRY_PAUSE * attempt)
    if status == 201 and isinstance(body, dict) and body.get("added") == 1:
        recorder.ok(INGEST, loop.time() - started)
        ledger.acknowledged.append(episode["id"])
    elif status == 200 and attempt > 1:
        recorder.fail(INGEST, "stored already when retried (a refused attempt wrote it)")
    else:
        recorder.fail(INGEST, f"HTTP {status}: {brief(body)}")
