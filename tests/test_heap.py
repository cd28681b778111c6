"""What a process loads to serve is frozen out of the cyclic collector's walks (memoria/heap.py), on the real graph
server: after a group's projection loads and after a search view's scope loads."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from memoria.projection.cache import ProjectionCache
from memoria.readmodel.cache import ViewCache
from tests.linking.memory import two_hop_group


@pytest.fixture(scope="module")
def two_hop(graph_server: object) -> Iterator[str]:
    with two_hop_group() as group:
        yield group


@pytest.fixture
def nothing_frozen() -> Iterator[None]:
    gc.unfreeze()  # what earlier tests froze goes back to the collector, so a count above zero is this test's
    yield
    gc.freeze()


def test_a_projection_load_freezes_what_the_process_holds(two_hop: str, nothing_frozen: None) -> None:
    assert gc.get_freeze_count() == 0
    projection, _ = ProjectionCache().get(two_hop, wait=30)
    assert projection.size > 0
    assert gc.get_freeze_count() > 0
    assert all(projection is not young for young in gc.get_objects(generation=0))  # in the permanent generation


def test_a_view_scope_load_freezes_its_items(two_hop: str, nothing_frozen: None) -> None:
    assert gc.get_freeze_count() == 0
    with ViewCache().reading(two_hop, "episodes") as (scopes, _state):
        item = next(iter(scopes["episodes"].items.values()))
    assert gc.get_freeze_count() > 0
    assert all(item is not young for young in gc.get_objects(generation=0))  # in the permanent generation now


def test_cyclic_garbage_frozen_with_the_rest_is_collected_at_the_next_freeze(nothing_frozen: None) -> None:
    # A request in flight when a load finishes is frozen with it; once it ends as cyclic garbage, the next freeze
    # still collects it, so no garbage outlives a load.
    import weakref

    from memoria.heap import long_lived_frozen

    class Node:
        pass

    node = Node()
    node.self = node  # a cycle: only the collector frees it
    alive = weakref.ref(node)
    long_lived_frozen()
    del node
    gc.collect()
    assert alive() is not None  # frozen: an ordinary collection skips it
    long_lived_frozen()
    assert alive() is None
