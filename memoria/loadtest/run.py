"""One load run against running servers: warm-up, a watcher, then retrievals, searches and ingests to the deadline."""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from memoria.loadtest.clients import (
    INGEST,
    SEARCH,
    IngestLedger,
    Pace,
    RetrievalTally,
    WatchTally,
    ingest_once,
    paced,
    retrieval_client,
    search_once,
    watch_group,
)
from memoria.loadtest.report import Recorder

# Unfinished REST requests allowed per kind: what the rate sends within one operation timeout (at least 8).
MIN_IN_FLIGHT = 8
HTTP_THREADS = 32
WARM_UP_TIMEOUT = 180.0  # the first search in a fresh daphne loads the embedding model


class LoadRunError(RuntimeError):
    """The run could not start (a warm-up request failed): nothing was measured."""


@dataclass(frozen=True)
class LoadPlan:
    urls: tuple[str, ...]  # daphne base URLs; clients are spread over them, the watcher sits on the last
    token: str
    group: str
    queries: tuple[str, ...]  # texts for retrievals, searches and episode contents
    label: str  # unique per run: the prefix of its retrieval and episode ids
    duration: float
    ws_clients: int
    searches_per_second: float
    ingest_per_second: float
    timeout: float


@dataclass
class LoadOutcome:
    seconds: float = 0.0
    recorder: Recorder = field(default_factory=Recorder)
    retrievals: RetrievalTally = field(default_factory=RetrievalTally)
    watch: WatchTally = field(default_factory=WatchTally)
    ledger: IngestLedger = field(default_factory=IngestLedger)


def in_flight_limit(rate: float, timeout: float) -> int:
    """Requests sent within one timeout: more unfinished than that means the server has fallen behind."""
    return max(MIN_IN_FLIGHT, math.ceil(rate * timeout))


def new_run_label() -> str:
    return "lt" + uuid.uuid4().hex[:10]


def episode_for(plan: LoadPlan, number: int) -> dict[str, str]:
    """A new episode with a run-unique id and name that mentions two of the group's names (so entities merge)."""
    first = plan.queries[number % len(plan.queries)]
    second = plan.queries[(number * 7 + 3) % len(plan.queries)]
    return {
        "id": f"{plan.label}-ep-{number:06d}-{uuid.uuid4().hex[:8]}",
        "name": f"load test {plan.label} episode {number}",
        "content": f"Load test note {number}: {first} was reviewed together with {second}.",
        "source": "text",
    }


async def warm_up(plan: LoadPlan, executor: ThreadPoolExecutor) -> None:
    """One search and one retrieval per server before the clock starts: loads models, opens graph connections."""
    recorder, tally = Recorder(), RetrievalTally()
    loop = asyncio.get_running_loop()
    for server, url in enumerate(plan.urls):
        common = {"http_base": url, "token": plan.token, "group": plan.group, "recorder": recorder}
        await search_once(executor=executor, query=plan.queries[0], timeout=WARM_UP_TIMEOUT, **common)
        await retrieval_client(
            server=server,
            label=f"{plan.label}-warm{server}",
            queries=list(plan.queries),
            first_query=0,
            deadline=loop.time() + WARM_UP_TIMEOUT,
            limit=1,
            timeout=WARM_UP_TIMEOUT,
            tally=tally,
            **common,
        )
    if recorder.error_count():
        problems = "; ".join(f"{op}: {message}" for op, messages in recorder.errors.items() for message in messages)
        raise LoadRunError(f"warm-up failed: {problems}")


async def load_run(plan: LoadPlan) -> LoadOutcome:
    # Not a `with`: on Ctrl-C it would wait for blocked requests; they fail fast once the servers are stopped.
    executor = ThreadPoolExecutor(max_workers=HTTP_THREADS, thread_name_prefix="loadtest-http")
    try:
        return await _load_run(plan, executor)
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


async def _load_run(plan: LoadPlan, executor: ThreadPoolExecutor) -> LoadOutcome:
    outcome = LoadOutcome()
    await warm_up(plan, executor)
    ready, stop = asyncio.Event(), asyncio.Event()
    watcher = asyncio.create_task(
        watch_group(
            http_base=plan.urls[-1],
            token=plan.token,
            group=plan.group,
            timeout=plan.timeout,
            ready=ready,
            stop=stop,
            tally=outcome.watch,
        )
    )
    await ready.wait()
    loop = asyncio.get_running_loop()
    began = loop.time()
    deadline = began + plan.duration
    recorder = outcome.recorder
    common = {"token": plan.token, "group": plan.group, "timeout": plan.timeout, "recorder": recorder}
    clients = [
        retrieval_client(
            http_base=plan.urls[index % len(plan.urls)],
            server=index % len(plan.urls),
            label=f"{plan.label}-c{index}",
            queries=list(plan.queries),
            first_query=index,
            deadline=deadline,
            tally=outcome.retrievals,
            **common,
        )
        for index in range(plan.ws_clients)
    ]

    def pacer(operation: str, rate: float, start: Callable[[int], Awaitable[None]]) -> Awaitable[int]:
        pace = Pace(rate=rate, began=began, deadline=deadline, max_in_flight=in_flight_limit(rate, plan.timeout))
        return paced(pace, recorder=recorder, operation=operation, start=start)

    async def search_number(n: int) -> None:
        query = plan.queries[n % len(plan.queries)]
        await search_once(executor=executor, http_base=plan.urls[n % len(plan.urls)], query=query, **common)

    async def ingest_number(n: int) -> None:
        episode, url = episode_for(plan, n), plan.urls[n % len(plan.urls)]
        await ingest_once(executor=executor, http_base=url, episode=episode, ledger=outcome.ledger, **common)

    searches = pacer(SEARCH, plan.searches_per_second, search_number)
    ingests = pacer(INGEST, plan.ingest_per_second, ingest_number)
    try:
        await asyncio.gather(*clients, searches, ingests)
        outcome.seconds = loop.time() - began
        await _watch_settle(outcome, plan.timeout)
    finally:
        stop.set()
        await watcher
    return outcome


async def _watch_settle(outcome: LoadOutcome, timeout: float) -> None:
    """Wait (up to one operation timeout) until the watcher has the end of every retrieval run on the first server."""
    expected = outcome.retrievals.completed.get(0, {}).keys()
    loop = asyncio.get_running_loop()
    until = loop.time() + timeout
    while loop.time() < until and outcome.watch.error is None and not expected <= outcome.watch.finished.keys():
        await asyncio.sleep(0.1)
