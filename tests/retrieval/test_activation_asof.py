"""Activation at a moment: on random graphs with random fact intervals, the Cypher engine, the view engine and the
in-process reference give the same paths for random as_of and known_at, and every fact counting changes nothing."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.retrieval.activation import Seed
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.reference import EdgeData, ReferenceGraph
from tests.graph.timed import COLUMNS, TIMES, random_times, times_write
from tests.retrieval.test_activation import paths_of
from tests.retrieval.test_view_levels import both_engines, comparable, random_memory


def with_random_intervals(group: str, reference: ReferenceGraph, rng: random.Random) -> list[EdgeData]:
    """Each stored fact given random times (some missing), written to the server; the facts as the reference holds
    them."""
    edges = {edge.id: edge for around in reference.adjacency.values() for edge, _ in around}
    timed = [replace(edge, **random_times(rng)) for edge in edges.values()]
    times_write(group, {edge.id: {name: getattr(edge, name) for name in COLUMNS} for edge in timed})
    return timed


@pytest.mark.parametrize("case", range(4))
async def test_engines_and_reference_agree_at_random_moments(group: str, case: int) -> None:
    rng = random.Random(2000 + case)
    nodes, untimed = random_memory(group, rng, tagged=case % 2 == 0, ties=case < 2)
    edges = with_random_intervals(group, untimed, rng)
    params = ActivationParams(
        max_depth=rng.randint(2, 5), min_activation=rng.choice([0.001, 0.005]), max_branches=rng.randint(1, 3)
    )
    query_tags = ["t1", "t2", "t5"] if case % 2 == 0 else []
    seeds = [Seed(node_id, round(rng.uniform(0.3, 1.0), 3)) for node_id in rng.sample(nodes, 4)]
    moments = [EVERY_FACT, *(AsOf(rng.choice(TIMES), rng.choice(TIMES)) for _ in range(3))]
    for moment in moments:
        cypher, view = await both_engines(group, seeds=seeds, query_tags=query_tags, params=params, moment=moment)
        assert comparable(view) == comparable(cypher)
        assert cypher[0]["time"] == moment.as_dict()
        reference = ReferenceGraph(edges, nodes, moment)
        for seed in seeds:
            expected = reference.explore(seed.id, seed.score, query_tags, params)
            assert paths_of(view, seed.id) == sorted((p.nodes, p.energies, p.end_reason) for p in expected)
    # With every fact counting the intervals change nothing: the reference without them gives the same paths.
    cypher, _ = await both_engines(group, seeds=seeds, query_tags=query_tags, params=params)
    for seed in seeds:
        expected = untimed.explore(seed.id, seed.score, query_tags, params)
        assert paths_of(cypher, seed.id) == sorted((p.nodes, p.energies, p.end_reason) for p in expected)


async def test_explain_and_pruning_agree_at_a_moment(group: str) -> None:
    rng = random.Random(77)
    nodes, untimed = random_memory(group, rng, tagged=False, ties=True)
    edges = with_random_intervals(group, untimed, rng)
    moment = AsOf("2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z")
    seeds = [Seed(node_id, 1.0) for node_id in nodes[:5]]
    for explain in (False, True):
        params = ActivationParams(min_activation=0.05)
        cypher, view = await both_engines(group, seeds=seeds, params=params, explain=explain, moment=moment)
        assert comparable(view) == comparable(cypher)
        reference = ReferenceGraph(edges, nodes, moment)
        for seed in seeds:
            expected = reference.explore(seed.id, seed.score, [], params)
            assert paths_of(view, seed.id) == sorted((p.nodes, p.energies, p.end_reason) for p in expected)
