"""The process's projections, shared by every request: loaded lazily in the background, replaced when stale.

A request asks for a group's projection and says how long it may wait. The
group's version is read from the server first (one small indexed read); a
projection of that version is used at once. Otherwise a background load starts
(one per group at a time) and the request waits up to its budget: if the load
finishes in time it gets the fresh projection, else the stale one, said to be
stale, or, with nothing loaded yet, ProjectionLoading (an HTTP 503 with
Retry-After). A load that started before the latest write is followed by
another as soon as someone asks again.

A group already loaded is brought up to date incrementally when the writes
since name the nodes they touched (memoria/projection/update.py): a small
write costs a fraction of a second instead of a full reload; anything else
(a restore, a community build, too much touched) loads the group whole.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from django.conf import settings

from memoria.errors import GraphUnavailable, MemoriaError, ProjectionLoading
from memoria.graph.versions import COMPACT_AFTER, GroupVersion, group_stamps_compact, group_version
from memoria.heap import long_lived_frozen
from memoria.observability import in_context
from memoria.projection.projection import Projection, projection_load
from memoria.projection.update import projection_update

logger = logging.getLogger(__name__)

DEFAULT_WAIT_SECONDS = 10.0
# Projections kept in memory, counted in edges, least recently used going first. With the facts' columns an edge
# holds about 300 bytes (measured at 100k/500k: 142 MiB counted by Projection.memory_bytes, default walk and
# activation's incidence included; the process grew by 286 MiB), so the default is about 1.4 GiB of projections.
DEFAULT_MAX_EDGES = 5_000_000

READY = "ready"  # the projection used is of the current version
STALE = "stale"  # a newer version exists and is loading (or will load on the next request)
LOADING = "loading"
FAILED = "failed"


@dataclass(frozen=True)
class Freshness:
    """How current the projection behind an answer is, for the answer to say."""

    group: str
    state: str
    version: int | None  # of the projection used
    current_version: int  # read from the server for this request
    age_seconds: float | None  # since the projection finished loading
    load_seconds: float | None  # how long that load (or incremental update) took
    update: str | None  # how that projection was made: "full" (a load) or "incremental" (from the previous one)
    loading: bool  # a (re)load is running now
    progress: float | None  # of the running load, 0..1
    error: str | None = None  # of the last failed load

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Entry:
    projection: Projection | None = None
    loading: bool = False
    done: threading.Event = field(default_factory=threading.Event)
    progress: float | None = None
    error: str | None = None


Loader = Callable[..., Projection]
Updater = Callable[..., Projection | None]  # (previous projection, progress=) → updated, or None: load in full


class ProjectionCache:
    """Thread-safe; one instance per process (`projection_cache()`), or one per test."""

    def __init__(
        self,
        *,
        loader: Loader = projection_load,
        updater: Updater | None = projection_update,
        max_edges: int | None = None,
    ) -> None:
        self._loader = loader
        self._updater = updater  # None: every reload is a full load
        budget = _setting("MEMORIA_PROJECTION_MAX_EDGES", DEFAULT_MAX_EDGES)
        self._max_edges = max_edges if max_edges is not None else budget
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self, group: str, *, wait: float | None = None, fresh: bool = False, version: GroupVersion | None = None
    ) -> tuple[Projection, Freshness]:
        """The group's projection and how fresh it is; `fresh` refuses a stale one (ProjectionLoading instead).
        `version` is the group's version as the caller read it for this request, else it is read now."""
        budget = request_wait_seconds() if wait is None else wait
        current = version or group_version(group=group)
        deadline = time.monotonic() + max(0.0, budget)
        failed = False  # a load this request waited for failed: do not start another in a loop
        while True:
            with self._lock:
                entry = self._entries.setdefault(group, _Entry())
                self._entries.move_to_end(group)
                projection = entry.projection
                if projection is not None and projection.version >= current.version:
                    return projection, self._freshness(group, entry, current.version)
                if not entry.loading:
                    if failed:
                        break
                    self._start(group, entry, compact=current.stamps > COMPACT_AFTER)
                done = entry.done
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not done.wait(remaining):
                break
            with self._lock:
                failed = entry.error is not None and not entry.loading
        with self._lock:
            if entry.projection is None and entry.error is not None and not entry.loading:
                raise GraphUnavailable(f"the graph projection of group {group!r} failed to load: {entry.error}")
            if entry.projection is None or fresh:
                raise ProjectionLoading(self._loading_message(group, entry))
            return entry.projection, self._freshness(group, entry, current.version)

    def current(self, group: str, version: int) -> tuple[Projection, Freshness] | None:
        """The group's projection if it is of `version` (read by the caller) or newer, without waiting or reading."""
        with self._lock:
            entry = self._entries.get(group)
            if entry is None or entry.projection is None or entry.projection.version < version:
                return None
            self._entries.move_to_end(group)
            return entry.projection, self._freshness(group, entry, version)

    def peek(self, group: str) -> Projection | None:
        with self._lock:
            entry = self._entries.get(group)
            return entry.projection if entry else None

    def forget(self, group: str) -> None:
        with self._lock:
            self._entries.pop(group, None)

    @property
    def max_edges(self) -> int:
        return self._max_edges

    def sizes(self) -> list[dict[str, Any]]:
        """Loaded projections, least recently used first: group, version, nodes and edges."""
        with self._lock:
            loaded = [entry.projection for entry in self._entries.values() if entry.projection is not None]
        return [{"group": p.group, "version": p.version, "nodes": p.size, "edges": p.edge_count} for p in loaded]

    def _start(self, group: str, entry: _Entry, *, compact: bool) -> None:
        """With the lock held: begin a background load of the group's current version."""
        entry.loading = True
        entry.done = threading.Event()
        entry.progress = 0.0
        previous = entry.projection

        def report(done: int, total: int) -> None:
            entry.progress = done / total if total else 1.0

        def run() -> None:
            try:
                updated = None
                if previous is not None and self._updater is not None:
                    updated = self._updater(previous, progress=report)
                # Folding after the update: the stamps it caught up with are then all named by the fold.
                if compact:
                    group_stamps_compact(group=group)
                whole = updated is None
                projection = self._loader(group=group, progress=report) if updated is None else updated
                projection.walk(directed=False, mentions=True)  # the default walk, ready before the first request
                if whole:
                    long_lived_frozen()  # after a whole load, not each write's update (memoria/heap.py)
            except (MemoriaError, OSError) as error:
                logger.warning("projection of group %s failed to load: %s", group, error)
                with self._lock:
                    entry.error = str(error)
                    entry.loading = False
                    entry.done.set()
                return
            with self._lock:
                if entry.projection is None or projection.version >= entry.projection.version:
                    entry.projection = projection
                entry.error = None
                entry.loading = False
                entry.progress = None
                entry.done.set()
                self._evict()

        # in_context: the load's queries log the id of the request or retrieval that started it
        threading.Thread(target=in_context(run), name=f"memoria-projection-{group}", daemon=True).start()

    def _evict(self) -> None:
        """With the lock held: drop least recently used projections past the edge budget (never the newest)."""
        total = sum(e.projection.edge_count for e in self._entries.values() if e.projection is not None)
        for group in list(self._entries)[:-1]:
            if total <= self._max_edges:
                break
            entry = self._entries[group]
            if entry.projection is not None and not entry.loading:
                total -= entry.projection.edge_count
                del self._entries[group]

    def _freshness(self, group: str, entry: _Entry, current: int) -> Freshness:
        projection = entry.projection
        assert projection is not None
        return Freshness(
            group=group,
            state=READY if projection.version >= current else STALE,
            version=projection.version,
            current_version=current,
            age_seconds=round(time.time() - projection.loaded_at, 3),
            load_seconds=round(projection.load_seconds, 3),
            update=projection.update,
            loading=entry.loading,
            progress=entry.progress,
            error=entry.error,
        )

    def _loading_message(self, group: str, entry: _Entry) -> str:
        shown = f", {entry.progress:.0%} done" if entry.progress is not None else ""
        return f"the graph projection of group {group!r} is loading{shown}; try again shortly"


def _setting(name: str, default: float) -> Any:
    return getattr(settings, name, default)


def request_wait_seconds() -> float:
    """How long a request may wait for its group's projection to load (MEMORIA_PROJECTION_WAIT_SECONDS)."""
    return float(_setting("MEMORIA_PROJECTION_WAIT_SECONDS", DEFAULT_WAIT_SECONDS))


_cache: ProjectionCache | None = None
_cache_lock = threading.Lock()


def projection_cache() -> ProjectionCache:
    """The process-wide cache, made on first use."""
    global _cache
    with _cache_lock:
        if _cache is None:
            _cache = ProjectionCache()
        return _cache
