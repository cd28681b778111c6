"""Run by the scratch venv's interpreter (tests/clients/test_python_client.py), not by pytest: it exercises the
installed memoria_client against a running daphne and prints one JSON object of what it saw.

argv: base_url token group seed_id hidden_group
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import memoria_client
from memoria_client import (
    AsyncRetrievalStream,
    ErrorEvent,
    MemoriaClient,
    NotFound,
    RetrievalFinished,
    RetrievalStarted,
    Throttled,
)


def rest(base: str, token: str, group: str, hidden: str) -> dict:
    seen: dict = {}
    retries: list[tuple[int, float]] = []
    client = MemoriaClient(base, token, on_retry=lambda error, wait: retries.append((error.status, wait)))
    seen["groups"] = [summary.group for summary in client.groups()]

    results = client.search(group, "n1", limit=5)  # the first (slow: it loads the query encoder)
    seen["hits"] = [
        {"class": type(hit).__name__, "group": hit.group, "id": hit.id, "score": hit.score} for hit in results.all()
    ]
    # Searches back to back, at most one a second allowed: one soon meets a 429, waited out and answered. Several
    # tries, since on a loaded machine one search can outlast the second.
    for _ in range(5):
        started = time.monotonic()
        client.search(group, "n2", limit=5)
        if retries:
            seen["throttled_seconds"] = time.monotonic() - started
            break
    seen["throttled_retries"] = retries[:]

    impatient = MemoriaClient(base, token, max_tries=1)  # the bound: one try, so the 429 is raised
    seen["bounded"] = None
    for _ in range(5):
        try:
            impatient.search(group, "n3", limit=5)
        except Throttled as error:
            seen["bounded"] = {"status": error.status, "code": error.code, "retry_after": error.retry_after}
            break

    retries.clear()
    try:
        client.node(hidden, f"{hidden}-n1")
        seen["hidden"] = None
    except NotFound as error:
        seen["hidden"] = {"status": error.status, "detail": error.detail, "retries": len(retries)}
    return seen


async def stream(base: str, token: str, group: str, seed: str) -> dict:
    seen: dict = {}
    async with AsyncRetrievalStream(base, token) as socket:
        events = [event async for event in socket.retrieve(group, seeds=[{"id": seed, "score": 1.0}])]
        seen["events"] = [type(event).__name__ for event in events]
        seen["first_group"] = events[0].group if isinstance(events[0], RetrievalStarted) else None
        seen["last"] = {"type": events[-1].type, "status": getattr(events[-1], "status", None)}

        # A wide, deep, explained run, cancelled as soon as it starts.
        wide = {"explain": True, "params": {"max_depth": 10, "min_activation": 0.000001, "max_branches": 20}}
        long = await socket.start(group, seeds=[{"id": seed, "score": 1.0}], **wide)
        ended = None
        async for event in socket.events_of(long):
            if isinstance(event, RetrievalStarted):
                await socket.cancel(long)
            if isinstance(event, RetrievalFinished):
                ended = event.status
        seen["cancelled"] = ended
        await socket.cancel(long)  # no longer running: the server says so in an error frame
        answer = await socket.next_event(20)
        seen["cancel_again"] = answer.code if isinstance(answer, ErrorEvent) else answer.type
    return seen


def main() -> None:
    base, token, group, seed, hidden = sys.argv[1:6]
    report = {"module": memoria_client.__file__}
    report |= asyncio.run(stream(base, token, group, seed))
    report |= rest(base, token, group, hidden)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
