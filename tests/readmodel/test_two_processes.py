"""Fresh reads across processes: a view loaded in another process sees a write made here on its next request.

The other process is a real Python process on the same test settings and graph server; it loads its view of the
group, waits while this one writes, then searches. Views catch up from the group's stamps before every read, so
the lag between two processes is one stamp read: none that a client can observe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from tests.conftest import ROOT
from tests.search.memory import node_id, store_search_memory

OTHER_PROCESS = """
import json, sys, time
import django
django.setup()
from memoria.search.recipes import recipe
from memoria.search.service import search

group = sys.argv[1]
first = search(query="fjordline", groups=[group], config=recipe("facts_hybrid_rrf"))
print(json.dumps({"ready": True, "hits": [h.id for h in first.facts], "engine": first.engine["name"]}), flush=True)
sys.stdin.readline()
started = time.perf_counter()
found = search(query="fjordline", groups=[group], config=recipe("facts_hybrid_rrf"))
print(json.dumps({
    "hits": [h.id for h in found.facts],
    "engine": found.engine,
    "ms": (time.perf_counter() - started) * 1000,
}), flush=True)
"""


def test_a_write_here_is_seen_by_the_next_search_of_another_process(group: str) -> None:
    store_search_memory(group)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "PYTHONPATH": str(ROOT)}
    other = subprocess.Popen(
        [sys.executable, "-c", OTHER_PROCESS, group],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        before = json.loads(other.stdout.readline())
        assert before["engine"] == "view" and node_id(group, "ferry") not in before["hits"]
        fact = {
            "id": node_id(group, "ferry"),
            "source": node_id(group, "gloves"),
            "target": node_id(group, "rotterdam"),
            "relation": "ships_via",
            "weight": 0.5,
            "fact": "Safety gloves also ship on the Fjordline ferry",
        }
        graph_document_import(document=parse_graph_document({"nodes": [], "edges": [fact]}, group=group), group=group)
        written = time.perf_counter()
        other.stdin.write("go\n")
        other.stdin.flush()
        after = json.loads(other.stdout.readline())
        lag_ms = (time.perf_counter() - written) * 1000
    finally:
        other.kill()
        other.wait(timeout=30)
    assert after["hits"][0] == node_id(group, "ferry")
    view = after["engine"]["views"][group]
    assert not view["rebuilt"] and view["refreshed_items"] >= 1  # caught up by re-reading what the write touched
    print(f"write → visible in the other process: {lag_ms:.0f} ms (its search took {after['ms']:.1f} ms)")
