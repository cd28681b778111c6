"""The process's group views, least recently used dropped first past a memory budget.

A group whose view alone would not fit is refused with ViewTooLarge, and its
searches run on the graph server's indexes instead (memoria/search/service.py
says so in the answer), so a budget never turns into an error for the caller.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from memoria.embeddings import configured_model_id
from memoria.graph.schema import embedding_dimensions
from memoria.readmodel import DEFAULT_VIEW_MAX_BYTES
from memoria.readmodel.group_view import GroupView, ViewState
from memoria.readmodel.scope_view import ScopeView


class ViewTooLarge(Exception):
    """The group's view does not fit the memory budget even alone."""


@dataclass(frozen=True)
class ViewSize:
    group: str
    bytes: int
    items: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {"group": self.group, "bytes": self.bytes, "items": self.items}


class ViewCache:
    def __init__(self, *, max_bytes: int | None = None, dimensions: int | None = None) -> None:
        budget = _setting("MEMORIA_VIEW_MAX_BYTES", DEFAULT_VIEW_MAX_BYTES)
        self.max_bytes = max_bytes if max_bytes is not None else budget
        self.dimensions = dimensions or embedding_dimensions()
        self._views: OrderedDict[str, GroupView] = OrderedDict()
        self._vector_models: dict[str, str] = {}  # the model whose vectors each view holds (the configured one then)
        self._lock = threading.Lock()

    @contextmanager
    def reading(
        self, group: str, *scopes: str, catch_up: bool = True, stamps: dict[str, int] | None = None
    ) -> Iterator[tuple[dict[str, ScopeView], ViewState]]:
        """The group's scopes, current as of now (or as of `stamps`, the group's stamps as the caller read them for
        this request); raises ViewTooLarge (and drops the view) past the budget."""
        model = configured_model_id()
        with self._lock:
            view = self._views.get(group)
            if view is None or self._vector_models.get(group) != model:  # another model's vectors: a view anew
                view = self._views[group] = GroupView(group, dimensions=self.dimensions)
                self._vector_models[group] = model
            self._views.move_to_end(group)
        with view.reading(*scopes, catch_up=catch_up, stamps=stamps) as read:
            size = view.nbytes
            if size > self.max_bytes:
                with self._lock:
                    self._views.pop(group, None)
                raise ViewTooLarge(f"the view of group {group!r} needs {size} bytes; the budget is {self.max_bytes}")
            yield read
        with self._lock:
            self._evict(keep=group)

    def forget(self, group: str) -> None:
        with self._lock:
            self._views.pop(group, None)

    def sizes(self) -> list[ViewSize]:
        with self._lock:
            views = list(self._views.values())
        return [
            ViewSize(view.group, view.nbytes, {name: len(scope) for name, scope in view.scopes.items()})
            for view in views
        ]

    def _evict(self, *, keep: str) -> None:
        """With the lock held: drop least recently used views until the rest fit."""
        total = sum(view.nbytes for view in self._views.values())
        for group in list(self._views):
            if total <= self.max_bytes:
                break
            if group != keep:
                total -= self._views.pop(group).nbytes


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


_cache: ViewCache | None = None
_cache_lock = threading.Lock()


def view_cache() -> ViewCache:
    """The process-wide cache, made on first use."""
    global _cache
    with _cache_lock:
        if _cache is None:
            _cache = ViewCache()
        return _cache
