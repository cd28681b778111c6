"""What a load run measured: latencies and errors per operation, the episode and watcher checks, and their text form."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

ERROR_SAMPLES = 5  # distinct error messages shown per operation


def retries_text(retries: dict[int, int]) -> str:
    if not retries:
        return ""
    return "; retried after " + ", ".join(f"HTTP {status} ×{count}" for status, count in sorted(retries.items()))


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile of unsorted values (0 for none): p99 of 100 samples is the 99th, not a blend."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


@dataclass
class Recorder:
    """Every operation's latency (successes) and error messages, by operation name."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, Counter[str]] = field(default_factory=dict)

    def ok(self, operation: str, seconds: float) -> None:
        self.latencies.setdefault(operation, []).append(seconds)
        self.errors.setdefault(operation, Counter())

    def fail(self, operation: str, message: str) -> None:
        self.latencies.setdefault(operation, [])
        self.errors.setdefault(operation, Counter())[message] += 1

    def error_count(self) -> int:
        return sum(sum(messages.values()) for messages in self.errors.values())


@dataclass(frozen=True)
class OperationStats:
    name: str
    ok: int
    errors: int
    per_second: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    error_samples: tuple[str, ...]


def operation_stats(recorder: Recorder, *, seconds: float) -> list[OperationStats]:
    stats = []
    for name in sorted(recorder.latencies):
        values = recorder.latencies[name]
        errors = recorder.errors.get(name, Counter())
        stats.append(
            OperationStats(
                name=name,
                ok=len(values),
                errors=sum(errors.values()),
                per_second=len(values) / seconds if seconds > 0 else 0.0,
                p50_ms=percentile(values, 0.50) * 1000,
                p95_ms=percentile(values, 0.95) * 1000,
                p99_ms=percentile(values, 0.99) * 1000,
                max_ms=max(values, default=0.0) * 1000,
                error_samples=tuple(f"{count}× {message}" for message, count in errors.most_common(ERROR_SAMPLES)),
            )
        )
    return stats


@dataclass(frozen=True)
class EpisodeCheck:
    """Ingested episodes against the graph: each acknowledged one stored exactly once, nothing stored twice."""

    sent: int
    acknowledged: int
    stored: int
    lost: tuple[str, ...]  # acknowledged, not stored
    duplicated: tuple[str, ...]  # stored more than once
    unexpected: tuple[str, ...]  # stored with the run's prefix but never sent
    stored_despite_error: int  # the request failed client-side but the episode landed (once)

    @property
    def passed(self) -> bool:
        return not (self.lost or self.duplicated or self.unexpected)


@dataclass(frozen=True)
class WatchCheck:
    """Did a watcher on the last daphne see the retrievals that ran on the first?"""

    watcher_server: int
    source_server: int
    completed: int  # retrievals the clients saw complete on the source server
    seen: int  # of those, how many the watcher saw finish
    events: int  # every event the watcher received
    lag_p50_ms: float = 0.0  # watcher's arrival of a retrieval's end minus the client's
    lag_max_ms: float = 0.0
    error: str | None = None
    checked: bool = True  # False when the run had no websocket clients: nothing to watch

    @property
    def passed(self) -> bool:
        return not self.checked or (self.error is None and self.completed > 0 and self.seen == self.completed)


@dataclass(frozen=True)
class LoadReport:
    settings: dict[str, Any]
    seconds: float
    operations: list[OperationStats]
    retrieval_events: int
    ingest_retries: dict[int, int]  # ingest requests sent again, by the status (409, 503) that asked: not errors
    episodes: EpisodeCheck
    watch: WatchCheck

    @property
    def errors(self) -> int:
        return sum(operation.errors for operation in self.operations)

    @property
    def passed(self) -> bool:
        return self.errors == 0 and self.episodes.passed and self.watch.passed

    def failures(self) -> list[str]:
        problems = []
        if self.errors:
            problems.append(f"{self.errors} failed operation(s)")
        if self.episodes.lost:
            problems.append(f"{len(self.episodes.lost)} acknowledged episode(s) not stored")
        if self.episodes.duplicated:
            problems.append(f"{len(self.episodes.duplicated)} episode(s) stored more than once")
        if self.episodes.unexpected:
            problems.append(f"{len(self.episodes.unexpected)} episode(s) stored that were never sent")
        if not self.watch.passed:
            problems.append(f"the watcher saw {self.watch.seen} of {self.watch.completed} retrievals")
        return problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "seconds": round(self.seconds, 3),
            "errors": self.errors,
            "passed": self.passed,
            "retrieval_events": self.retrieval_events,
            "ingest_retries": {str(status): count for status, count in sorted(self.ingest_retries.items())},
            "operations": [
                vars(operation) | {"error_samples": list(operation.error_samples)} for operation in self.operations
            ],
            "episodes": vars(self.episodes) | {"passed": self.episodes.passed},
            "watch": vars(self.watch) | {"passed": self.watch.passed},
        }

    def lines(self) -> list[str]:
        out = [
            "load test: " + ", ".join(f"{key} {value}" for key, value in self.settings.items()),
            f"measured for {self.seconds:.1f} s; {self.retrieval_events} retrieval event(s) received",
            f"  {'operation':12s} {'ok':>7s} {'errors':>6s} {'per s':>8s} {'p50 ms':>9s} {'p95 ms':>9s} "
            f"{'p99 ms':>9s} {'max ms':>9s}",
        ]
        for op in self.operations:
            out.append(
                f"  {op.name:12s} {op.ok:7d} {op.errors:6d} {op.per_second:8.2f} {op.p50_ms:9.1f} {op.p95_ms:9.1f} "
                f"{op.p99_ms:9.1f} {op.max_ms:9.1f}"
            )
            out.extend(f"      error: {sample}" for sample in op.error_samples)
        episodes = self.episodes
        out.append(
            f"episodes: {episodes.sent} sent, {episodes.acknowledged} acknowledged, {episodes.stored} stored; "
            f"lost {len(episodes.lost)}, duplicated {len(episodes.duplicated)}, unexpected {len(episodes.unexpected)}"
            + (
                f", {episodes.stored_despite_error} stored although the request failed"
                if episodes.stored_despite_error
                else ""
            )
            + retries_text(self.ingest_retries)
        )
        out.extend(f"  lost: {episode_id}" for episode_id in episodes.lost[:ERROR_SAMPLES])
        out.extend(f"  duplicated: {episode_id}" for episode_id in episodes.duplicated[:ERROR_SAMPLES])
        watch = self.watch
        if not watch.checked:
            out.append("watch: no websocket clients, nothing to check")
        else:
            out.append(
                f"watch: a watcher on daphne #{watch.watcher_server} saw {watch.seen} of the {watch.completed} "
                f"retrievals completed on daphne #{watch.source_server} ({watch.events} event(s); its lag behind "
                f"the client p50 {watch.lag_p50_ms:.0f} ms, max {watch.lag_max_ms:.0f} ms)"
                + (f"; {watch.error}" if watch.error else "")
            )
        out.append("PASSED" if self.passed else "FAILED: " + "; ".join(self.failures()))
        return out
