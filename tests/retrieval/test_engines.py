"""Choosing the engine: `auto` takes a current view and falls back to Cypher, saying why; `view` insists (503)."""

from __future__ import annotations

import pytest

from memoria.errors import GraphUnavailable, ProjectionLoading
from memoria.graphindex.cache import ProjectionCache
from memoria.graphindex.projection import Projection
from memoria.retrieval.engines import AUTO, CYPHER, VIEW, engine_choose, engine_choose_async
from tests.graphindex.graphs import random_memory, store
from tests.graphindex.test_cache import GatedLoader, one_more_fact


@pytest.fixture
def memory(group: str) -> str:
    store(group, random_memory(group, entities=20, episodes=2, facts=40, seed=4))
    return group


def failing_loader(*, group: str, progress: object = None) -> Projection:
    raise GraphUnavailable("the graph server went away")


def test_cypher_is_never_a_view(memory: str) -> None:
    choice = engine_choose(group=memory, requested=CYPHER, cache=ProjectionCache(loader=failing_loader))
    assert choice.name == CYPHER and choice.projection is None
    assert choice.as_dict() == {"name": "cypher", "requested": "cypher", "view": None, "fallback": None}


def test_auto_and_view_take_a_current_projection(memory: str) -> None:
    cache = ProjectionCache()
    view = engine_choose(group=memory, requested=VIEW, cache=cache)
    assert view.name == VIEW and view.freshness.version == view.freshness.current_version
    auto = engine_choose(group=memory, requested=AUTO, cache=cache, max_wait=0)
    assert auto.name == VIEW and auto.projection is view.projection
    described = auto.as_dict()
    assert described["requested"] == AUTO and described["fallback"] is None
    assert set(described["view"]) == {"version", "current_version", "age_seconds", "load_seconds"}


def test_while_the_view_loads_auto_runs_cypher_and_view_is_refused(memory: str) -> None:
    loader = GatedLoader()
    loader.gate.clear()
    cache = ProjectionCache(loader=loader)
    try:
        auto = engine_choose(group=memory, requested=AUTO, cache=cache)
        assert auto.name == CYPHER and "is loading" in auto.fallback
        assert auto.as_dict()["requested"] == AUTO
        with pytest.raises(ProjectionLoading):
            engine_choose(group=memory, requested=VIEW, cache=cache, max_wait=0.05)
    finally:
        loader.gate.set()
    assert engine_choose(group=memory, requested=VIEW, cache=cache).name == VIEW


def test_a_write_makes_the_view_stale_until_reloaded(memory: str) -> None:
    cache = ProjectionCache()
    before = engine_choose(group=memory, requested=VIEW, cache=cache)
    store(memory, one_more_fact(memory, 1))
    after = engine_choose(group=memory, requested=VIEW, cache=cache)  # waits for the reload: never a stale view
    assert after.projection is not before.projection
    assert after.freshness.version > before.freshness.version


def test_a_view_that_cannot_load_falls_back_or_is_a_503(memory: str) -> None:
    cache = ProjectionCache(loader=failing_loader)
    auto = engine_choose(group=memory, requested=AUTO, cache=cache, max_wait=5)
    assert auto.name == CYPHER and "went away" in auto.fallback
    with pytest.raises(GraphUnavailable):
        engine_choose(group=memory, requested=VIEW, cache=cache, max_wait=5)


async def test_on_the_loop_a_current_view_is_taken_without_a_thread(memory: str) -> None:
    cache = ProjectionCache()
    loaded = engine_choose(group=memory, requested=VIEW, cache=cache)
    choice = await engine_choose_async(group=memory, requested=AUTO, cache=cache)
    assert choice.name == VIEW and choice.projection is loaded.projection
    store(memory, one_more_fact(memory, 2))  # stale now: the slow path waits for the reload (auto: briefly)
    after = await engine_choose_async(group=memory, requested=VIEW, cache=cache)
    assert after.projection is not loaded.projection
    assert (await engine_choose_async(group=memory, requested=CYPHER, cache=cache)).name == CYPHER
