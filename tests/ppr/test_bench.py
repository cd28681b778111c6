"""`bench ppr` at a size a test can afford: it builds its graph, times every contender and checks their scores."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from memoria.bench.activation import bench_group
from memoria.graph import driver
from memoria.graph.versions import group_version


@pytest.fixture
def tiny_graph() -> Iterator[tuple[int, int]]:
    yield 300, 1200
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=bench_group(300, 1200))


def bench(*arguments: str) -> str:
    out = io.StringIO()
    call_command("bench", "ppr", *arguments, stdout=out)
    return out.getvalue()


def test_the_command_builds_its_graph_and_compares_with_igraph_and_networkx(tiny_graph: tuple[int, int]) -> None:
    nodes, edges = tiny_graph
    options = ("--nodes", str(nodes), "--edges", str(edges), "--runs", "4", "--warmup", "1", "--reference-runs", "2")
    printed = bench(*options)
    assert printed.startswith("machine: ") and "cores" in printed
    assert f"built group {bench_group(nodes, edges)}" in printed
    assert group_version(group=bench_group(nodes, edges)).version >= 1  # a rebuild tells running servers
    assert f"ppr, {nodes} nodes / {edges} edges, undirected, damping 0.5, 5 seeds per run, 4 timed runs" in printed
    ours = re.search(r"ours, 1 thread \(4 runs\) +p50 +[\d.]+ ms .*max L1 to igraph (\S+)", printed)
    assert ours and float(ours.group(1)) <= 1e-6
    assert re.search(r"igraph PRPACK \(4 runs\) +p50 .* ours faster: p50 +[\d.]+x", printed)
    networkx = re.search(r"networkx pagerank \(2 runs\) .* max L1 to igraph (\S+)", printed)
    assert networkx and float(networkx.group(1)) <= 1e-5
    assert "ppr_run, whole call (4 runs)" in printed
    again = bench(*options, "--directed")
    assert f"reusing group {bench_group(nodes, edges)}" in again and "directed, damping 0.5" in again
    assert "power, " in again


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("--runs", "0"), "--runs must be positive"),
        (("--nodes", "0"), "--nodes"),
        (("--nodes", "1"), "--nodes must be at least 2"),
        (("--reference-runs", "-1"), "--reference-runs not negative"),
        (("--warmup", "-1"), "--warmup must not be negative"),
    ],
)
def test_bad_options_are_refused_before_anything_runs(arguments: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        bench(*arguments)
