"""A fresh copy of the curation memory per test (changes are the point here, so nothing is shared)."""

from __future__ import annotations

import pytest

from memoria.reindex import group_reindex
from tests.curation.memory import store_curation_memory


@pytest.fixture
def memory(group: str) -> str:
    store_curation_memory(group)
    return group


@pytest.fixture
def embedded_memory(memory: str) -> str:
    """The memory with every text embedded, for tests of which vectors a change keeps."""
    group_reindex(group=memory)
    return memory
