"""ppr_run over a stored group: igraph's scores on the stored edges, seeds checked against the group, fresh reads."""

from __future__ import annotations

import igraph
import pytest
from django.core.management import call_command

from memoria.errors import InvalidInput
from memoria.graph import driver, kinds
from memoria.ppr.request import PprRequest, SeedWeight
from memoria.ppr.service import ppr_run
from memoria.projection.cache import READY, ProjectionCache
from memoria.reindex import group_reindex
from tests.projection.graphs import random_memory, store, stored_edges


@pytest.fixture
def memory(group: str) -> str:
    store(group, random_memory(group, entities=120, episodes=15, facts=400, seed=21))
    return group


def igraph_scores(group: str, seeds: dict[str, float] | None, *, directed: bool, mentions: bool) -> dict[str, float]:
    """igraph's PPR on the edges as stored, read row by row (not through the projection)."""
    edges = [edge for edge in stored_edges(group).elements() if mentions or edge[2] == kinds.RELATES]
    ids = sorted(row["id"] for row in driver.read("MATCH (n:Memory {group_id: $g}) RETURN n.id AS id", g=group))
    position = {node_id: index for index, node_id in enumerate(ids)}
    graph = igraph.Graph(n=len(ids), edges=[(position[e[0]], position[e[1]]) for e in edges], directed=True)
    reset = None
    if seeds:
        reset = [0.0] * len(ids)
        for node_id, weight in seeds.items():
            reset[position[node_id]] = weight
    scores = graph.personalized_pagerank(
        directed=directed, damping=0.5, reset=reset, weights=[e[3] for e in edges], implementation="prpack"
    )
    return dict(zip(ids, scores, strict=True))


@pytest.mark.parametrize(("directed", "mentions"), [(False, True), (True, True), (False, False)])
def test_scores_are_igraphs_on_the_stored_graph(memory: str, directed: bool, mentions: bool) -> None:
    seeds = {f"{memory}-e4": 0.7, f"{memory}-e9": 0.3, f"{memory}-p2": 0.0}
    request = PprRequest(
        group=memory,
        seeds=tuple(SeedWeight(i, w) for i, w in seeds.items()),
        top_k=1000,
        directed=directed,
        mentions=mentions,
    )
    answer = ppr_run(request, cache=ProjectionCache(), wait=30)
    expected = igraph_scores(memory, seeds, directed=directed, mentions=mentions)
    got = {node.id: node.score for node in answer.scores}
    assert set(got) == set(expected)
    assert sum(abs(got[node_id] - expected[node_id]) for node_id in expected) <= 1e-6
    assert answer.result.converged and answer.result.error_bound <= 1e-6
    assert answer.seed_source == "caller"
    assert [(s.id, s.weight) for s in answer.seeds] == [(f"{memory}-e4", 0.7), (f"{memory}-e9", 0.3)]
    scores = [node.score for node in answer.scores]
    assert scores == sorted(scores, reverse=True)
    assert {node.kind for node in answer.scores} == {kinds.ENTITY, kinds.EPISODE}
    assert answer.nodes == 135 and answer.edges == 400 + 45
    assert answer.freshness.state == READY


def test_no_seeds_ranks_by_uniform_restart_and_top_k_cuts(memory: str) -> None:
    answer = ppr_run(PprRequest(group=memory, top_k=5), cache=ProjectionCache(), wait=30)
    expected = igraph_scores(memory, None, directed=False, mentions=True)
    best = sorted(expected, key=lambda node_id: (-expected[node_id], node_id))[:5]
    assert [node.id for node in answer.scores] == best
    assert answer.seed_source == "uniform" and answer.seeds == ()


def test_seeds_must_be_nodes_of_the_group(memory: str, group: str) -> None:
    other = f"{group}-other"
    store(other, random_memory(other, entities=3, episodes=0, facts=2, seed=1))
    request = PprRequest(
        group=memory, seeds=(SeedWeight(f"{memory}-e1"), SeedWeight("nowhere"), SeedWeight(f"{other}-e0"))
    )
    try:
        with pytest.raises(InvalidInput) as caught:
            ppr_run(request, cache=ProjectionCache(), wait=30)
    finally:
        driver.write("MATCH (n:Memory {group_id: $g}) DETACH DELETE n", g=other)
    assert caught.value.problems == [
        f"seeds[1].id: no node 'nowhere' in group {memory!r}",
        f"seeds[2].id: no node '{other}-e0' in group {memory!r}",
    ]


def test_a_seed_written_after_the_load_is_found(memory: str) -> None:
    cache = ProjectionCache()
    ppr_run(PprRequest(group=memory), cache=cache, wait=30)
    store(
        memory,
        {
            "nodes": [{"id": f"{memory}-late", "name": "late", "labels": ["Entity"]}],
            "edges": [{"source": f"{memory}-late", "target": f"{memory}-e0", "relation": "r", "weight": 1.0}],
        },
    )
    answer = ppr_run(PprRequest(group=memory, seeds=(SeedWeight(f"{memory}-late"),)), cache=cache, wait=30)
    assert answer.freshness.state == READY and answer.scores[0].id == f"{memory}-late"
    assert answer.scores[1].id == f"{memory}-e0"


def test_seeds_come_from_hybrid_search_for_a_query(group: str) -> None:
    call_command("load_demo", "--group", group, "--quiet", stdout=open("/dev/null", "w"))  # noqa: SIM115
    group_reindex(group=group)
    answer = ppr_run(
        PprRequest(group=group, query="stockouts at the Lyon warehouse", top_k=10), cache=ProjectionCache(), wait=30
    )
    assert answer.seed_source == "search"
    assert 1 <= len(answer.seeds) <= 5
    assert sum(seed.weight for seed in answer.seeds) == pytest.approx(1.0)
    # A seed keeps at least its restart share (1 − damping) · weight, so the heaviest one ranks among the top.
    scores = {node.id: node.score for node in answer.scores}
    heaviest = max(answer.seeds, key=lambda seed: seed.weight)
    assert scores[heaviest.id] >= 0.5 * heaviest.weight
