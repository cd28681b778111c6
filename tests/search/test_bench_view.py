"""`bench view` at a size a test can afford: random vectors written, the build and every series printed."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from memoria.bench.search import WALKING, bench_group
from memoria.bench.view import VIEW_RECIPES
from memoria.graph import driver
from memoria.readmodel.cache import view_cache
from memoria.search.config import Scope
from memoria.search.recipes import SCOPE_DEFAULT_RECIPES

FACTS = 40


@pytest.fixture
def tiny_group() -> Iterator[str]:
    group = bench_group(FACTS)
    yield group
    view_cache().forget(group)
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


def test_the_command_prints_the_build_and_every_series(tiny_group: str) -> None:
    out = io.StringIO()
    options = ("--facts", str(FACTS), "--runs", "2", "--warmup", "0", "--random-vectors")
    call_command("bench", "view", *options, stdout=out)
    printed = out.getvalue()
    assert "random unit vectors written" in printed
    assert f"view: a {FACTS}-fact group (load average " in printed
    assert f"'facts': {FACTS}" in printed and "graph projection build" in printed and "RSS +" in printed
    assert "exact cosine alone" in printed and "query embedding alone" in printed
    for name in VIEW_RECIPES:
        assert f"search {name} " in printed and f"search {name} (query vector known)" in printed
    missing = "MATCH (:Memory {group_id: $group})-[r:RELATES]->() WHERE r.fact_embedding IS NULL RETURN count(r) AS c"
    assert driver.read(missing, group=tiny_group)[0]["c"] == 0


def test_the_episodes_default_is_timed_on_queries_that_make_it_walk() -> None:
    # At 1,500 facts some people and organisations are rare enough to seed the gated walk: the default episodes
    # recipe is timed again on questions naming them, with and without the query embedding.
    facts = 1500
    group = bench_group(facts)
    try:
        out = io.StringIO()
        options = ("--facts", str(facts), "--runs", "2", "--warmup", "0", "--random-vectors")
        call_command("bench", "view", *options, stdout=out)
        printed = out.getvalue()
        walking = f"search {SCOPE_DEFAULT_RECIPES[Scope.EPISODES]}{WALKING}"
        assert f"{walking} p50" in printed and f"{walking} (query vector known) p50" in printed
    finally:
        view_cache().forget(group)
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


def test_the_command_refuses_nonsense() -> None:
    with pytest.raises(CommandError, match="--facts and --runs must be positive"):
        call_command("bench", "view", "--facts", "0")
