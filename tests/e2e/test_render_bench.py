"""`bench render` draws a synthetic graph through the real graph view in Chromium and reports its figures."""

from __future__ import annotations

import concurrent.futures
import io
import re

import pytest
from django.core.management import CommandError, call_command

from memoria.bench.render import render_graph


def test_the_synthetic_graph_is_shaped_as_the_api_sends_it() -> None:
    graph = render_graph(nodes=40, edges=120)
    assert graph == render_graph(nodes=40, edges=120)  # seeded
    assert len(graph["nodes"]) == 40 and len(graph["edges"]) == 120
    ids = {node["id"] for node in graph["nodes"]}
    ends = [(edge["source"], edge["target"]) for edge in graph["edges"]]
    assert all(source in ids and target in ids and source != target for source, target in ends)
    assert sum(node["degree"] for node in graph["nodes"]) == 240
    assert all(0.25 <= edge["weight"] <= 1 for edge in graph["edges"])
    assert any(edge["invalid_at"] for edge in graph["edges"]) and any(not edge["invalid_at"] for edge in graph["edges"])


def test_bench_render_reports_a_first_render_per_size() -> None:
    out = io.StringIO()
    # The command drives Chromium with Playwright's sync API, which refuses a thread where an event loop runs
    # (pytest-playwright leaves one in the main thread): run it in a thread of its own, as a shell would.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(call_command, "bench", "render", "--edges", "30", "90", "--runs", "1", stdout=out).result()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("machine: ")
    figures = [re.search(r"(\d+) nodes +(\d+) edges \| first render +(\d+) ms wall", line) for line in lines[2:]]
    assert [(int(m[1]), int(m[2])) for m in figures] == [(10, 30), (30, 90)]
    assert all(int(m[3]) > 0 for m in figures)
    with pytest.raises(CommandError, match="--edges"):
        call_command("bench", "render", "--edges", "2")
    with pytest.raises(CommandError, match="missing"):
        call_command("bench", "render", "--chromium", "/nowhere/chromium")
