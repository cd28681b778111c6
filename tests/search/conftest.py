"""Two groups holding the same small memory, written once per session: one searched, one that must never show."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from memoria.graph import driver
from tests.search.memory import store_search_memory


@pytest.fixture(scope="session")
def memory_groups(graph_server: object) -> Iterator[tuple[str, str]]:
    groups = tuple(f"s-{uuid.uuid4().hex[:10]}" for _ in range(2))
    for group in groups:
        store_search_memory(group)
    yield groups
    for group in groups:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


@pytest.fixture
def searched(memory_groups: tuple[str, str]) -> str:
    return memory_groups[0]


@pytest.fixture
def other(memory_groups: tuple[str, str]) -> str:
    return memory_groups[1]
