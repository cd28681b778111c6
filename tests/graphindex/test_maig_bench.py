"""`bench maig` on a small synthetic group: every step is reported and the group is loaded back whole."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from memoria.bench.maig import synthetic_graph
from memoria.graph import driver
from tests.conftest import count_group


def test_bench_maig_reports_each_step_and_reloads_the_group() -> None:
    out = io.StringIO()
    try:
        call_command("bench", "maig", "--edges", "300", "--runs", "2", stdout=out)
        text = out.getvalue()
        for step in ("encode", "decode", "export_graph --format maig", "validated document", "emptied group"):
            assert step in text
        # MAIG carries edges only: the group comes back with the nodes that have an edge.
        edges = synthetic_graph(group="bench-maig-300", edges=300)["edges"]
        ends = {edge["source"] for edge in edges} | {edge["target"] for edge in edges}
        assert count_group("bench-maig-300") == {"nodes": len(ends), "edges": 300}
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group="bench-maig-300")


def test_bench_maig_refuses_nonsense_sizes() -> None:
    with pytest.raises(CommandError, match="--edges and --runs must be positive"):
        call_command("bench", "maig", "--edges", "0")
