"""The projection cache on the real server: shared loads, a write makes the next use see the change, staleness said."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from memoria.errors import GraphUnavailable, ProjectionLoading
from memoria.graph import driver
from memoria.graph.versions import group_version
from memoria.projection.cache import READY, STALE, ProjectionCache
from memoria.projection.projection import Projection, projection_load
from tests.projection.graphs import random_memory, store


class GatedLoader:
    """The real loader, counted, that can be held at its start until the test lets it go."""

    def __init__(self) -> None:
        self.calls = 0
        self.gate = threading.Event()
        self.gate.set()

    def __call__(self, *, group: str, progress: Callable[[int, int], None] | None = None) -> Projection:
        self.calls += 1
        assert self.gate.wait(30), "the test never opened the gate"
        return projection_load(group=group, progress=progress)


def one_more_fact(group: str, index: int) -> dict:
    return {
        "nodes": [],
        "edges": [{"source": f"{group}-e0", "target": f"{group}-e1", "relation": f"new{index}", "weight": 0.5}],
    }


@pytest.fixture
def memory(group: str) -> str:
    store(group, random_memory(group, entities=30, episodes=4, facts=60, seed=9))
    return group


def test_requests_share_one_load(memory: str) -> None:
    loader = GatedLoader()
    loader.gate.clear()
    cache = ProjectionCache(loader=loader)
    answers: list[tuple[Projection, object]] = []
    threads = [threading.Thread(target=lambda: answers.append(cache.get(memory, wait=30))) for _ in range(4)]
    for thread in threads:
        thread.start()
    loader.gate.set()
    for thread in threads:
        thread.join()
    assert loader.calls == 1
    assert len({id(projection) for projection, _ in answers}) == 1
    projection, freshness = answers[0]
    assert freshness.state == READY and freshness.version == freshness.current_version == projection.version
    assert freshness.version == group_version(group=memory).version > 0
    assert cache.get(memory, wait=0)[0] is projection  # loaded once, then served from memory


def test_a_write_bumps_the_version_and_the_next_use_sees_it(memory: str) -> None:
    cache = ProjectionCache()
    before, first = cache.get(memory, wait=30)
    store(memory, one_more_fact(memory, 1))
    after, second = cache.get(memory, wait=30)
    assert second.version == first.version + 1 and second.state == READY
    assert after.edge_count == before.edge_count + 1


def test_a_stale_projection_is_served_and_said_to_be_stale(memory: str) -> None:
    loader = GatedLoader()
    cache = ProjectionCache(loader=loader, updater=None)  # every reload a full one, held at the gate
    old, _ = cache.get(memory, wait=30)
    store(memory, one_more_fact(memory, 2))
    loader.gate.clear()
    served, freshness = cache.get(memory, wait=0.2)
    assert served is old
    assert freshness.state == STALE and freshness.loading and freshness.version == freshness.current_version - 1
    with pytest.raises(ProjectionLoading, match="loading"):
        cache.get(memory, wait=0.1, fresh=True)
    loader.gate.set()
    current, freshness = cache.get(memory, wait=30)
    assert freshness.state == READY and not freshness.loading and current.edge_count == old.edge_count + 1
    assert loader.calls == 2


def test_nothing_loaded_yet_answers_loading(memory: str) -> None:
    loader = GatedLoader()
    loader.gate.clear()
    cache = ProjectionCache(loader=loader)
    with pytest.raises(ProjectionLoading, match=f"group '{memory}' is loading"):
        cache.get(memory, wait=0.1)
    loader.gate.set()
    projection, freshness = cache.get(memory, wait=30)
    assert freshness.state == READY and projection.size == 34
    assert loader.calls == 1


def test_a_failed_load_is_reported_not_retried_in_a_loop(memory: str) -> None:
    calls = []

    def failing(*, group: str, progress: object = None) -> Projection:
        calls.append(group)
        raise GraphUnavailable("server went away")

    cache = ProjectionCache(loader=failing)
    with pytest.raises(GraphUnavailable, match="server went away"):
        cache.get(memory, wait=5)
    assert len(calls) == 1


def test_least_recently_used_projections_go_past_the_edge_budget(group: str) -> None:
    groups = [f"{group}-{index}" for index in range(3)]
    for name in groups:
        store(name, random_memory(name, entities=10, episodes=0, facts=20, seed=1))
    cache = ProjectionCache(max_edges=45)
    try:
        for name in groups:
            cache.get(name, wait=30)
        assert cache.peek(groups[0]) is None  # 60 edges > 45: the least recently used went
        assert cache.peek(groups[1]) is not None and cache.peek(groups[2]) is not None
        cache.get(groups[1], wait=30)
        cache.get(groups[0], wait=30)
        assert cache.peek(groups[2]) is None and cache.peek(groups[1]) is not None
    finally:
        for name in groups:
            driver.write("MATCH (n:Memory {group_id: $g}) DETACH DELETE n", g=name)
