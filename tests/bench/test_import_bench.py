"""`bench import` on a small synthetic memory: every phase is timed, every item embedded, the reference run on the
same texts, and the throwaway group is gone afterwards, also when a run fails."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from memoria.bench import graph_import
from memoria.bench.graph_import import bench_group, import_benchmark, import_report, item_texts
from memoria.bench.search import synthetic_memory
from memoria.graph import driver

COUNT_NODES = "MATCH (n:Memory {group_id: $group}) RETURN count(n) AS c"


def test_every_phase_is_timed_and_the_group_is_deleted() -> None:
    said: list[str] = []
    results = import_benchmark(facts=60, runs=2, say=said.append)
    texts = item_texts(synthetic_memory(group=bench_group(60), facts=60).document)
    assert results["texts"] == len(texts) and len(results["runs"]) == 2 == len(results["references"])
    for run in results["runs"]:
        assert run["items"] == len(texts)  # every node and fact got its vector
        assert 0 < run["texts"] <= len(texts) and run["calls"] >= 1
        assert all(run[phase] > 0 for phase in ("parse", "write", "embedding", "model", "store", "index", "total"))
        assert run["total"] >= run["write"] + run["embedding"]
    lines = import_report(results, load="load average 1.00, 1.00, 1.00")
    assert any("reference: the model alone" in line for line in lines)
    assert any("against it" in line for line in lines)
    assert any("CPU per text in the model" in line for line in lines)
    assert len(results["reference_cpus"]) == 2 and all(run["model_cpu"] > 0 for run in results["runs"])
    assert driver.read(COUNT_NODES, group=bench_group(60))[0]["c"] == 0


def test_a_failed_run_still_deletes_the_group(monkeypatch: pytest.MonkeyPatch) -> None:
    def reference_fails(texts: list[str], model: object) -> tuple[float, float]:
        raise RuntimeError("the reference run failed")

    monkeypatch.setattr(graph_import, "_reference_once", reference_fails)
    with pytest.raises(RuntimeError, match="the reference run failed"):
        import_benchmark(facts=30, runs=1, say=lambda _: None)
    assert driver.read(COUNT_NODES, group=bench_group(30))[0]["c"] == 0


def test_bad_options_are_refused() -> None:
    with pytest.raises(CommandError, match="--facts and --runs must be positive"):
        call_command("bench", "import", "--facts", "0", stdout=io.StringIO())
