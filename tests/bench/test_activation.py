"""`bench activation` at a size a test can afford, on each engine: it builds its graph and checks the reference."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import pytest
from django.core.management import call_command

from memoria.bench.activation import bench_group
from memoria.graph import driver
from memoria.projection.cache import projection_cache


@pytest.fixture
def tiny_graph() -> Iterator[tuple[int, int]]:
    yield 200, 800
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=bench_group(200, 800))
    projection_cache().forget(bench_group(200, 800))


@pytest.mark.parametrize("engine", ["view", "cypher", "auto"])
def test_the_command_times_the_engine_asked_and_matches_the_reference(tiny_graph: tuple[int, int], engine: str) -> None:
    nodes, edges = tiny_graph
    out = io.StringIO()
    options = ("--nodes", str(nodes), "--edges", str(edges), "--runs", "4", "--warmup", "1", "--clients", "2")
    call_command("bench", "activation", *options, "--engine", engine, stdout=out)
    printed = out.getvalue()
    ran = "cypher" if engine == "cypher" else "view"
    assert f"engine asked: {engine}; ran: {ran}" in printed
    assert ("view: loaded in" in printed) == (engine != "cypher")
    assert len(re.findall(r"\| mismatches 0$", printed, flags=re.MULTILINE)) == 2
    assert re.search(r"concurrent +2 clients, 10 explorations, 0 errors", printed)
