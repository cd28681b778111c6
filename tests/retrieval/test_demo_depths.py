"""The demo shows the algorithm: the README's sample queries, with default parameters, walk several levels deep.

Run for real: the demo loaded and embedded into a fresh group, seeds and query tags found from each query's text,
the retrieval's events read from the graph server. On the demo before incidents were added, every query stopped at
depth 2 (median 2), so this fails there.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command

from memoria.datasets.demo import SAMPLE_QUERIES
from memoria.graph import driver
from memoria.retrieval.depths import QueryDepth, median_deepest, query_depths


@pytest.fixture(scope="module")
def demo_group() -> Iterator[str]:
    """One embedded demo for the module (embedding it takes a minute on two cores), deleted afterwards."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    call_command("load_demo", "--group", name, "--quiet", stdout=open("/dev/null", "w"))  # noqa: SIM115
    yield name
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)


@pytest.fixture(scope="module")
def measured(demo_group: str) -> list[QueryDepth]:
    return async_to_sync(query_depths)(group=demo_group, queries=list(SAMPLE_QUERIES))


def test_sample_queries_reach_depth_three_or_more(measured: list[QueryDepth]) -> None:
    deepest = {item.query: item.deepest for item in measured}
    assert median_deepest(measured) >= 3, deepest
    assert all(2 <= depth <= 5 for depth in deepest.values()), deepest


def test_the_frontier_branches_and_is_pruned(measured: list[QueryDepth]) -> None:
    """Something to watch: nodes that spread to several neighbours, and paths cut by the energy threshold."""
    for item in measured:
        assert item.branching >= 3, item
        assert item.end_reasons.get("below_threshold", 0) >= 3, item
