"""A second group holding the same memory: what a view of the first must never show."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from memoria.graph import driver
from tests.search.memory import store_search_memory


@pytest.fixture(scope="module")
def other_memory(graph_server: object) -> Iterator[str]:
    name = f"o-{uuid.uuid4().hex[:10]}"
    store_search_memory(name)
    yield name
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)
