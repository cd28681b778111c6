"""Recent retrievals of each group, as the events watchers were sent, so a watcher who arrives late can replay them.

Every event published to a group's watchers passes through `RetrievalJournal.record`.
A retrieval takes milliseconds, so a watch page opened a moment later would
otherwise see nothing: the journal keeps the running ones and the last few
finished ones, bounded in count, age and size. It lives in the process that ran
the retrieval: with several server processes, each lists its own.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memoria.retrieval.event_types import EventType

RECENT_RUNS = 20  # per group, running and finished together
KEEP_FINISHED_SECONDS = 15 * 60
MAX_RUN_EVENTS = 2000
MAX_RUN_CANDIDATES = 20_000  # explain mode ships every candidate; past this a run's levels are no longer kept

# Copied from retrieval_started into a run's summary.
SUMMARY_KEYS = ("algorithm", "requested_by", "query", "seeds", "query_tags", "params", "seed_source", "explain", "time")


@dataclass(frozen=True)
class JournalLimits:
    recent_runs: int = RECENT_RUNS
    keep_finished_seconds: float = KEEP_FINISHED_SECONDS
    max_run_events: int = MAX_RUN_EVENTS
    max_run_candidates: int = MAX_RUN_CANDIDATES


@dataclass
class JournalRun:
    """One retrieval's events so far; `finished` is its retrieval_finished event once it has one."""

    started: dict[str, Any]
    started_at: float
    events: list[dict[str, Any]] = field(default_factory=list)
    finished: dict[str, Any] | None = None
    candidates: int = 0
    truncated: bool = False

    def keep(self, event: dict[str, Any], limits: JournalLimits) -> None:
        """Store an event unless the run is over its budget; its end is always stored, so a replay finishes."""
        weight = sum(len(parent["candidates"]) for parent in event.get("parents", ()))
        if event["type"] != EventType.RETRIEVAL_FINISHED and (
            len(self.events) >= limits.max_run_events - 1 or self.candidates + weight > limits.max_run_candidates
        ):
            self.truncated = True
            return
        self.candidates += weight
        self.events.append(event)

    def summary(self) -> dict[str, Any]:
        finished = self.finished or {}
        return {
            "retrieval_id": self.started["retrieval_id"],
            **{key: self.started.get(key) for key in SUMMARY_KEYS},
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started_at)),
            "status": finished.get("status", "running"),
            "elapsed_ms": finished.get("elapsed_ms"),
            "paths": finished.get("paths"),
            "events": len(self.events),
            "truncated": self.truncated,
        }


class RetrievalJournal:
    """Thread-safe: the REST view publishes from a worker thread, sockets from the server's loop."""

    def __init__(self, *, limits: JournalLimits | None = None, clock: Callable[[], float] = time.time) -> None:
        self.limits = limits or JournalLimits()
        self.clock = clock
        self.lock = threading.Lock()
        self.groups: dict[str, OrderedDict[str, JournalRun]] = {}

    def record(self, group: str, event: dict[str, Any]) -> None:
        """Note one published event; events of a retrieval whose start was not seen are ignored."""
        retrieval_id = event.get("retrieval_id")
        if not isinstance(retrieval_id, str):
            return
        with self.lock:
            runs = self.groups.setdefault(group, OrderedDict())
            if event.get("type") == EventType.RETRIEVAL_STARTED:
                runs.pop(retrieval_id, None)  # an id used again is a new run, and the newest
                runs[retrieval_id] = JournalRun(started=event, started_at=self.clock())
                self._evict(runs)
            run = runs.get(retrieval_id)
            if run is None or run.finished is not None:
                return
            run.keep(event, self.limits)
            if event.get("type") == EventType.RETRIEVAL_FINISHED:
                run.finished = event

    def _evict(self, runs: OrderedDict[str, JournalRun]) -> None:
        """Old finished runs go first; past the count, the oldest runs of all (memory stays bounded)."""
        oldest_kept = self.clock() - self.limits.keep_finished_seconds
        for key in [key for key, run in runs.items() if run.finished and run.started_at < oldest_kept]:
            del runs[key]
        while len(runs) > self.limits.recent_runs:
            finished = next((key for key, run in runs.items() if run.finished), None)
            del runs[finished if finished is not None else next(iter(runs))]

    def runs(self, group: str) -> list[dict[str, Any]]:
        """Summaries of the group's journaled retrievals, newest first."""
        with self.lock:
            return [run.summary() for run in reversed(self.groups.get(group, {}).values())]

    def replay(self, group: str, retrieval_id: str) -> dict[str, Any] | None:
        """A retrieval's events so far (None when the journal does not hold it)."""
        with self.lock:
            run = self.groups.get(group, {}).get(retrieval_id)
            if run is None:
                return None
            return {
                "retrieval_id": retrieval_id,
                "events": list(run.events),
                "finished": run.finished is not None,
                "truncated": run.truncated,
            }


retrieval_journal = RetrievalJournal()
