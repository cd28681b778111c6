"""A group's search view (its scopes loaded on demand), kept current by the group's version stamps.

Every use first compares the stamps on the server with those the view has
caught up with (one small indexed read): new stamps that name the nodes they
touched are applied by re-reading just those nodes' items; anything else (an
import, a restore, stamps folded away unseen) drops the loaded scopes, which
load again on demand. So a write that has returned is seen by the next request
in this process and in every other one: the lag is one stamp read.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

from memoria.graph.versions import COMPACT_AFTER, group_stamps, group_stamps_compact, stamps_touched
from memoria.heap import long_lived_frozen
from memoria.readmodel.scope_view import ScopeView
from memoria.readmodel.scopes import SCOPES, pages_touching, scope_pages

try:
    _LIBC: ctypes.CDLL | None = ctypes.CDLL("libc.so.6")
    _LIBC.malloc_trim  # noqa: B018 - glibc only
except (OSError, AttributeError):
    _LIBC = None


@dataclass(frozen=True)
class ViewState:
    """What an answer says about the view behind it."""

    engine: str  # "view"
    group: str
    version: int  # the sum of the stamps the view has caught up with
    age_seconds: float  # since the oldest of its loaded scopes was loaded whole
    refresh_ms: float  # what catching up took for this request
    refreshed_items: int  # items re-read to catch up
    rebuilt: bool  # the view was dropped and loaded again for this request

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def heap_release() -> None:
    """Hand the heap that a build's decoded pages freed back to the system (glibc keeps it otherwise: measured
    80 MiB of a 100k-fact build's resident memory); elsewhere there is nothing to do."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


class GroupView:
    """Thread-safe through one lock: a request holds it while it refreshes and reads."""

    def __init__(self, group: str, *, dimensions: int) -> None:
        self.group = group
        self.dimensions = dimensions
        self.scopes: dict[str, ScopeView] = {}
        self.loaded_at: dict[str, float] = {}
        self.stamps: dict[str, int] = {}  # stamps the loaded scopes have caught up with
        self.lock = threading.RLock()

    @property
    def nbytes(self) -> int:
        return sum(scope.nbytes for scope in self.scopes.values())

    @property
    def version(self) -> int:
        return sum(self.stamps.values())

    @contextmanager
    def reading(
        self, *scope_names: str, catch_up: bool = True, stamps: dict[str, int] | None = None
    ) -> Iterator[tuple[dict[str, ScopeView], ViewState]]:
        """The named scopes, current as of this call (or, without `catch_up`, as of the caller's last one: a
        request that caught up once reads on without asking the server again), locked for the block. `stamps`
        are the group's stamps as the caller read them for this request, else they are read now."""
        with self.lock:
            started = time.perf_counter()
            refreshed, rebuilt = self._catch_up(stamps) if catch_up or not self.stamps else (0, False)
            built = [name for name in scope_names if name not in self.scopes]
            for name in built:
                self._load(name)
            if built:
                long_lived_frozen()  # once for the scopes this read built, each a full collection (memoria/heap.py)
            state = ViewState(
                engine="view",
                group=self.group,
                version=self.version,
                age_seconds=round(time.time() - min(self.loaded_at[n] for n in scope_names), 3) if scope_names else 0.0,
                refresh_ms=round((time.perf_counter() - started) * 1000, 3),
                refreshed_items=refreshed,
                rebuilt=rebuilt,
            )
            yield {name: self.scopes[name] for name in scope_names}, state

    def _load(self, name: str) -> None:
        scope = ScopeView(SCOPES[name], dimensions=self.dimensions)
        scope.put(scope_pages(SCOPES[name], group=self.group))
        scope.commit()
        heap_release()
        self.scopes[name] = scope
        self.loaded_at[name] = time.time()

    def _catch_up(self, read: dict[str, int] | None = None) -> tuple[int, bool]:
        """Bring loaded scopes up to the stamps on the server: (items re-read, whether the view was dropped)."""
        current = read if read is not None else group_stamps(group=self.group)
        if not self.scopes:
            self.stamps = current
            return 0, False
        touched = stamps_touched(group=self.group, seen=self.stamps, current=current)
        if touched is None:
            self.scopes.clear()
            self.loaded_at.clear()
            self.stamps = current
            return 0, True
        refreshed = 0
        if touched:
            nodes = sorted(touched)
            for scope in self.scopes.values():
                before = scope.ids_touching(nodes)
                fresh = list(pages_touching(scope.spec, group=self.group, node_ids=nodes))
                scope.remove(before - {item.id for page in fresh for item in page.items})
                refreshed += scope.put(fresh)
                scope.commit()
        self.stamps = current
        if len(current) > COMPACT_AFTER:
            # Folded stamps name the ones they replace, so this view (and others that saw them) keep up.
            group_stamps_compact(group=self.group)
        return refreshed, False
