"""The Cypher engine's shortcut at a recent moment: a scan of the group's bounded facts turns the moment's
predicate into a list of excluded fact ids, and the paths stay those of the view engine and the reference."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import pytest

from memoria.graph import driver
from memoria.graph.asof import AsOf
from memoria.graph.driver import async_driver_for_work
from memoria.graph.versions import group_version_bump
from memoria.requests.moment import AsOfInput
from memoria.retrieval import ended_facts
from memoria.retrieval.activation import Seed
from memoria.retrieval.ended_facts import (
    BoundedFacts,
    BoundedFactsCache,
    FilterMode,
    _BoundedFact,
    bounded_facts_cache,
    fact_filter,
)
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.reference import EdgeData, ReferenceGraph
from tests.graph.timed import COLUMNS, TIMES, times_write
from tests.retrieval.test_activation import paths_of
from tests.retrieval.test_view_levels import both_engines, comparable, random_memory

FUTURE = ["2031-02-01T00:00:00Z", "2032-06-01T00:00:00Z"]  # after any "now" these tests run at


def with_recent_ends(group: str, reference: ReferenceGraph, rng: random.Random) -> list[EdgeData]:
    """Most facts untimed (counting at any recent moment); some ended in the past, some starting or recorded in
    the future, some ended and expired: each way a fact can fail the definition at now."""
    edges = {edge.id: edge for around in reference.adjacency.values() for edge, _ in around}
    timed = []
    for edge in edges.values():
        times: dict[str, str | None] = dict.fromkeys(COLUMNS)
        roll = rng.random()
        if roll < 0.15:
            times["invalid_at"] = rng.choice(TIMES)
        elif roll < 0.22:
            times["valid_at"] = rng.choice(FUTURE)
        elif roll < 0.28:
            times["created_at"] = rng.choice(FUTURE)
        elif roll < 0.34:
            times["invalid_at"], times["expired_at"] = rng.choice(TIMES), rng.choice([*TIMES, *FUTURE])
        elif roll < 0.5:
            times["valid_at"], times["created_at"] = rng.choice(TIMES), rng.choice(TIMES)
        timed.append(replace(edge, **times))
    times_write(group, {edge.id: {name: getattr(edge, name) for name in COLUMNS} for edge in timed})
    return timed


async def filter_now(group: str, moment: AsOf, cache: BoundedFactsCache | None = None):
    async with async_driver_for_work() as graph:
        return await fact_filter(graph, group=group, moment=moment, cache=cache)


@pytest.mark.parametrize("case", range(3))
async def test_excluded_ids_give_the_paths_of_the_predicate(group: str, case: int) -> None:
    rng = random.Random(3100 + case)
    nodes, untimed = random_memory(group, rng, tagged=case == 1, ties=case == 2)
    edges = with_recent_ends(group, untimed, rng)
    assert bounded_facts_cache().refresh(group) is not None  # the scan, read after the times were written
    now = AsOfInput().resolved()
    found = await filter_now(group, now)
    assert found.mode is FilterMode.EXCLUDED and found.excluded
    out = {
        edge.id for edge in edges if not now.counts(edge.valid_at, edge.invalid_at, edge.created_at, edge.expired_at)
    }
    assert set(found.excluded) == out
    params = ActivationParams(max_depth=rng.randint(3, 5), min_activation=0.002, max_branches=rng.randint(1, 3))
    query_tags = ["t1", "t2", "t5"] if case == 1 else []
    seeds = [Seed(node_id, round(rng.uniform(0.3, 1.0), 3)) for node_id in rng.sample(nodes, 4)]
    cypher, view = await both_engines(group, seeds=seeds, query_tags=query_tags, params=params, moment=now)
    assert comparable(view) == comparable(cypher)
    reference = ReferenceGraph(edges, nodes, now)
    for seed in seeds:
        expected = reference.explore(seed.id, seed.score, query_tags, params)
        assert paths_of(cypher, seed.id) == sorted((p.nodes, p.energies, p.end_reason) for p in expected)


async def test_a_write_or_a_question_about_the_past_sends_the_predicate(group: str) -> None:
    rng = random.Random(31)
    random_memory(group, rng, tagged=False, ties=False)
    cache = BoundedFactsCache()
    now = AsOfInput().resolved()
    assert (await filter_now(group, now, cache)).mode is FilterMode.PREDICATE  # no scan yet: one is started
    for _ in range(100):  # the scan it started, in a worker thread
        if (scan := cache.get(group)) is not None:
            break
        await asyncio.sleep(0.05)
    assert scan is not None and scan.facts == ()  # nothing bounded: every fact counts from the scan on
    assert (await filter_now(group, AsOfInput().resolved(), cache)).mode is FilterMode.EVERY_FACT
    assert (await filter_now(group, AsOf(TIMES[0], TIMES[0]), cache)).mode is FilterMode.PREDICATE
    assert (await filter_now(group, AsOf(FUTURE[0], TIMES[0]), cache)).mode is FilterMode.PREDICATE
    driver.write_transaction(lambda tx: group_version_bump(tx, group))  # a write that returned must be seen
    assert (await filter_now(group, AsOfInput().resolved(), cache)).mode is FilterMode.PREDICATE


def test_the_excluded_facts_lower_the_degree_of_both_ends() -> None:
    ended = _BoundedFact("f", "a", "b", None, TIMES[0], None, None)
    later = _BoundedFact("g", "b", "c", FUTURE[0], None, None, None)
    found = BoundedFacts(1, TIMES[-1], (ended, later)).filter_at(AsOfInput().resolved())
    assert found.mode is FilterMode.EXCLUDED and found.excluded == ("f", "g")
    assert [found.degree(node, 5) for node in "abcd"] == [4, 3, 4, 5]


async def test_a_group_with_too_many_bounded_facts_keeps_the_predicate(
    group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(32)
    _, untimed = random_memory(group, rng, tagged=False, ties=False)
    edges = with_recent_ends(group, untimed, rng)
    bounded = sum(1 for edge in edges if edge.invalid_at or edge.valid_at in FUTURE or edge.created_at in FUTURE)
    monkeypatch.setattr(ended_facts, "MAX_BOUNDED", bounded - 1)
    cache = BoundedFactsCache()
    scan = cache.refresh(group)
    assert scan is not None and scan.facts is None
    assert (await filter_now(group, AsOfInput().resolved(), cache)).mode is FilterMode.PREDICATE
    monkeypatch.setattr(ended_facts, "MAX_BOUNDED", bounded)
    scan = cache.refresh(group)
    assert scan is not None and scan.facts is not None and len(scan.facts) == bounded
