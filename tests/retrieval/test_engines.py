"""Choosing the engine: `auto` takes a current view and falls back to Cypher, saying why; `view` insists (503)."""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.core.exceptions import ImproperlyConfigured

from memoria.errors import GraphUnavailable, ProjectionLoading
from memoria.graph.embedded import EmbeddedServer
from memoria.projection.cache import ProjectionCache
from memoria.projection.projection import Projection
from memoria.retrieval.budget import BudgetLimits, RetrievalBudget
from memoria.retrieval.engines import (
    AUTO,
    CYPHER,
    VIEW,
    EngineChoice,
    default_engine,
    engine_choose,
    engine_choose_async,
    engine_events,
)
from tests.projection.graphs import random_memory, store
from tests.projection.test_cache import GatedLoader, one_more_fact


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
    assert set(described["view"]) == {"version", "current_version", "age_seconds", "load_seconds", "update"}


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


async def collected(memory: str, requested: str, cache: ProjectionCache) -> tuple[list[str], list[dict]]:
    """engine_events over a stand-in run that notes which engine it got and reads a few budget rows."""
    budget = RetrievalBudget(BudgetLimits(max_seconds=30, max_rows=1000))
    ran: list[str] = []

    async def run(choice: EngineChoice):
        ran.append(choice.name)
        budget.charge(10)
        yield {"type": "retrieval_started", "engine": choice.as_dict()}
        yield {"type": "retrieval_finished", "rows": budget.rows_read}

    events = [
        event async for event in engine_events(group=memory, requested=requested, budget=budget, run=run, cache=cache)
    ]
    return ran, events


async def test_a_view_is_checked_while_it_runs_and_a_stale_one_is_never_shown(memory: str) -> None:
    cache = ProjectionCache()
    assert (await collected(memory, VIEW, cache))[0] == ["view"]  # nothing loaded: chosen first, then run
    ran, events = await collected(memory, AUTO, cache)
    assert ran == ["view"] and events[0]["engine"]["name"] == "view" and events[-1]["rows"] == 10
    before = events[0]["engine"]["view"]["version"]
    store(memory, one_more_fact(memory, 3))
    ran, events = await collected(memory, AUTO, cache)
    # The run on the old view is discarded, its rows given back; the answer comes from the view reloaded within
    # auto's wait (a small group's load is quick) or, on a slow machine, from Cypher — never from the stale view.
    assert ran[0] == "view" and len(ran) == 2 and events[-1]["rows"] == 10 and len(events) == 2
    engine = events[0]["engine"]
    assert engine["view"]["version"] > before if ran[1] == "view" else engine["fallback"]
    assert (await collected(memory, CYPHER, cache))[0] == ["cypher"]


async def test_a_frozen_server_ends_the_version_check_as_an_outage_at_the_read_deadline(
    memory: str, graph_server: EmbeddedServer, settings
) -> None:
    """A loaded view's version is read on the loop, where Bolt has no read timeout: a server that stops answering
    without closing its sockets (SIGSTOP) ends the check at the read deadline, as an outage that no other engine
    could answer either, instead of holding the retrieval until the server comes back."""
    settings.MEMORIA_GRAPH = {**settings.MEMORIA_GRAPH, "READ_DEADLINE": 1.0}
    cache = ProjectionCache()
    assert (await engine_choose_async(group=memory, requested=VIEW, cache=cache)).name == VIEW  # loaded, current
    pid = graph_server.recorded_pid()
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        for check in (
            lambda: engine_choose_async(group=memory, requested=AUTO, cache=cache),
            lambda: collected(memory, AUTO, cache),  # the check made while the view's exploration runs
        ):
            started = time.monotonic()
            with pytest.raises(GraphUnavailable, match="version read got no answer"):
                await check()
            assert time.monotonic() - started < 3.0  # the 1 s deadline, with room for a loaded machine
    finally:
        os.kill(pid, signal.SIGCONT)


def test_the_servers_default_engine_comes_from_settings(settings) -> None:
    settings.MEMORIA_ACTIVATION_ENGINE = ""
    assert default_engine() == AUTO
    settings.MEMORIA_ACTIVATION_ENGINE = "view"
    assert default_engine() == VIEW
    settings.MEMORIA_ACTIVATION_ENGINE = "gpu"
    with pytest.raises(ImproperlyConfigured, match="must be one of auto, cypher, view"):
        default_engine()
