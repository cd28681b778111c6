"""Which engine runs an Activation Energy retrieval: Cypher over Bolt, or numpy over the group's in-memory view.

Both give identical events, paths and energies (tests/retrieval/test_view_engine.py holds them to it), so the
choice is about cost and freshness only. `auto` takes the view when the group's projection is of the current
version or becomes so within a short wait (a missing one starts loading in the background), and otherwise
runs Cypher and says why: a view still loading, a load that failed or a server that cannot tell its version
never fails a retrieval that Cypher can answer. An explicit `view` waits as long as the projection cache lets
requests wait, then raises ProjectionLoading (or GraphUnavailable for a failed load): a 503, never a 500. The
version read on the loop is under the read deadline (memoria.graph.retry): a server that gave it no answer, or
failed every try, is away for Cypher too, so the retrieval ends with GraphUnavailable there and runs nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from neo4j import exceptions as neo4j_errors

from memoria.errors import GraphUnavailable, MemoriaError
from memoria.graph.driver import async_driver_for_work
from memoria.graph.versions import group_version_read_async
from memoria.projection.cache import Freshness, ProjectionCache, projection_cache, request_wait_seconds
from memoria.projection.projection import Projection
from memoria.retrieval.budget import RetrievalBudget
from memoria.retrieval.event_types import RetrievalEvent

logger = logging.getLogger(__name__)

AUTO = "auto"
CYPHER = "cypher"
VIEW = "view"
ENGINES = (AUTO, CYPHER, VIEW)
# Long enough for a small group's first load (the demo's takes about 0.1 s), short enough that a big group's
# first request is answered by Cypher while its view loads behind it.
AUTO_WAIT_SECONDS = 0.25


@dataclass(frozen=True)
class EngineChoice:
    requested: str
    projection: Projection | None = None  # the view's, when the view engine runs
    freshness: Freshness | None = None
    fallback: str | None = None  # why `auto` ran the Cypher engine

    @property
    def name(self) -> str:
        return VIEW if self.projection is not None else CYPHER

    def as_dict(self) -> dict[str, Any]:
        """What answers say of the engine: which ran, what was asked, and the view's version and age."""
        view = None
        if self.freshness is not None:
            view = {
                "version": self.freshness.version,
                "current_version": self.freshness.current_version,
                "age_seconds": self.freshness.age_seconds,
                "load_seconds": self.freshness.load_seconds,
                "update": self.freshness.update,
            }
        return {"name": self.name, "requested": self.requested, "view": view, "fallback": self.fallback}


CYPHER_ENGINE = EngineChoice(CYPHER)
READ_ERRORS = (neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError)


def default_engine() -> str:
    """The engine of a request that names none: `auto`, unless MEMORIA_ACTIVATION_ENGINE says otherwise."""
    engine = getattr(settings, "MEMORIA_ACTIVATION_ENGINE", "") or AUTO
    if engine not in ENGINES:
        raise ImproperlyConfigured(f"MEMORIA_ACTIVATION_ENGINE={engine!r}: must be one of {', '.join(ENGINES)}")
    return engine


async def _version_read(group: str) -> int:
    """The group's version, read on the event loop with the shared driver: no thread hop is paid."""
    async with async_driver_for_work() as driver:
        return await group_version_read_async(driver, group)


async def engine_choose_async(
    *, group: str, requested: str = AUTO, cache: ProjectionCache | None = None, max_wait: float | None = None
) -> EngineChoice:
    """engine_choose for the event loop: a loaded view's version is checked with one async read; anything else —
    no view, a stale one, a read refused for good — goes to engine_choose in a thread. An outage (GraphUnavailable)
    ends the choice: every engine would need the server."""
    if requested == CYPHER:
        return CYPHER_ENGINE
    cache = cache or projection_cache()
    if cache.peek(group) is not None:
        try:
            version = await _version_read(group)
        except READ_ERRORS as error:
            logger.info("version of group %s not read on the loop: %s", group, error)
        else:
            if (found := cache.current(group, version)) is not None:
                return EngineChoice(requested, *found)
    return await asyncio.to_thread(engine_choose, group=group, requested=requested, cache=cache, max_wait=max_wait)


async def engine_events(
    *,
    group: str,
    requested: str,
    budget: RetrievalBudget,
    run: Callable[[EngineChoice], AsyncIterator[RetrievalEvent]],
    cache: ProjectionCache | None = None,
) -> AsyncIterator[RetrievalEvent]:
    """The events of `run` on the engine chosen for `requested`, with a loaded view's freshness checked *while*
    it runs: the view's exploration is buffered until the version read confirms the view is current, then
    yielded; a newer version discards it (its rows given back to the budget) and the choice is made again.
    Nothing is yielded from a view not known to be current, so a write that has returned is still seen, and
    the round trip no longer adds to the exploration's time (at 100k/500k on a loaded machine it was half of
    an exploration with query tags)."""
    cache = cache or projection_cache()
    loaded = cache.peek(group) if requested != CYPHER else None
    found = cache.current(group, loaded.version) if loaded is not None else None
    if found is not None:
        version_read = asyncio.create_task(_version_read(group))
        rows_before, exhausted_before = budget.rows_read, budget.exhausted
        try:
            buffered = [event async for event in run(EngineChoice(requested, *found))]
            version = await version_read
        except READ_ERRORS as error:
            logger.info("version of group %s not read on the loop: %s", group, error)
        else:
            if version <= found[0].version:
                for event in buffered:
                    yield event
                return
        finally:
            version_read.cancel()
        budget.rows_read, budget.exhausted = rows_before, exhausted_before  # the discarded run read nothing
    engine = await engine_choose_async(
        group=group, requested=requested, cache=cache, max_wait=budget.remaining_seconds()
    )
    async for event in run(engine):
        yield event


def engine_choose(
    *, group: str, requested: str = AUTO, cache: ProjectionCache | None = None, max_wait: float | None = None
) -> EngineChoice:
    """Blocks (a version read, perhaps a wait for a load): call it off the event loop. `max_wait` (the budget's
    time left) caps the wait."""
    if requested == CYPHER:
        return CYPHER_ENGINE
    cache = cache or projection_cache()
    wait = AUTO_WAIT_SECONDS if requested == AUTO else request_wait_seconds()
    if max_wait is not None:
        wait = max(0.0, min(wait, max_wait))
    try:
        projection, freshness = cache.get(group, wait=wait, fresh=True)
    except (MemoriaError, *READ_ERRORS) as error:
        if requested == VIEW:
            if isinstance(error, MemoriaError):
                raise
            raise GraphUnavailable(f"the view of group {group!r} cannot be read: {error}") from error
        logger.info("activation on group %s runs on Cypher: %s", group, error)
        return EngineChoice(AUTO, fallback=str(error))
    return EngineChoice(requested, projection, freshness)
