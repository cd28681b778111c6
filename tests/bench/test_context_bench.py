"""`bench context` on a small synthetic memory: it times every series, reports the tokens of blocks that stay in
their budget, and refuses bad options."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from memoria.bench.context import BUDGETS, context_benchmark
from memoria.bench.search import build_memory
from memoria.graph import driver


@pytest.fixture
def small() -> tuple:
    group, memory = build_memory(facts=300, say=lambda _: None)
    yield group, memory
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


def test_every_budget_is_timed_beside_its_search(small: tuple) -> None:
    group, memory = small
    results = context_benchmark(group=group, memory=memory, runs=3, warmup=1)
    for budget in BUDGETS:
        block = results[f"get_context at budget {budget}"]
        assert block["runs"] == 3 and 0 < block["p50_ms"] <= block["p95_ms"]
        assert 0 < block["tokens"] <= budget and block["ratio_p95"] > 0
    assert results["the block's search alone"]["runs"] == 3


def test_bad_options_are_refused() -> None:
    with pytest.raises(CommandError, match="--facts and --runs must be positive"):
        call_command("bench", "context", "--runs", "0", stdout=io.StringIO())
