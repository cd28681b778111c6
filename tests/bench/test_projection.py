"""`bench projection` at a size a test can afford: it writes, updates, loads and finds no difference."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from django.core.management import call_command

from memoria.bench.activation import bench_group
from memoria.graph import driver


@pytest.fixture
def tiny_graph() -> Iterator[tuple[int, int]]:
    yield 150, 600
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=bench_group(150, 600))


def test_the_command_times_both_and_the_update_matches_the_load(tiny_graph: tuple[int, int]) -> None:
    nodes, edges = tiny_graph
    out = io.StringIO()
    call_command("bench", "projection", "--nodes", str(nodes), "--edges", str(edges), "--runs", "2", stdout=out)
    printed = out.getvalue()
    assert "incremental update" in printed and "full reload" in printed
    assert "mismatches with the full load: 0" in printed
    assert f"{nodes} nodes / {edges + 2 * 10} edges" in printed
