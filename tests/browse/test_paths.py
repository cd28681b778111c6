"""Shortest and strongest paths on the real graph server, on a hand-built graph where they differ."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from memoria.browse.filters import EdgeFilter
from memoria.browse.paths import PathMode, PathQuery, path_find, shortest_path, strongest_path
from memoria.errors import InvalidInput, NodeNotFound
from memoria.graph import driver
from memoria.requests.moment import AsOfInput
from tests.browse.graphs import entity, fact, load

#   A ─0.3─ B ─0.3─ D          shortest A→D: two hops; A-F-D (0.25) is stronger than A-B-D (0.09)
#   A ─0.5─ F ─0.5─ D
#   A ─0.9─ C ─0.9─ E ─0.9─ D  strongest A→D: three hops, 0.729 (E-D stored as D→E: direction does not matter)
#   A ─0.3─ M ─1.0─ T, E ─0.9─ M   strongest A→T in 3 hops is A-M-T, although C-E reaches M more cheaply
#   X alone
NAMES = "ABCDEFMTX"


@pytest.fixture
def graph(group: str) -> dict[str, str]:
    ids = {name: f"{group}-{name}" for name in NAMES}
    edges = [
        fact(ids["A"], ids["B"], 0.3),
        fact(ids["B"], ids["D"], 0.3),
        fact(ids["A"], ids["F"], 0.5, invalid_at="2025-02-01T00:00:00Z"),
        fact(ids["F"], ids["D"], 0.5, category="TEMPORAL"),
        fact(ids["A"], ids["C"], 0.9, category="CAUSALITY"),
        fact(ids["C"], ids["E"], 0.9, category="CAUSALITY"),
        fact(ids["D"], ids["E"], 0.9, category="CAUSALITY"),
        fact(ids["A"], ids["M"], 0.3),
        fact(ids["E"], ids["M"], 0.9),
        fact(ids["M"], ids["T"], 1.0),
    ]
    load(group, nodes=[entity(node_id, name) for name, node_id in ids.items()], edges=edges)
    return ids


def between(group: str, graph: dict[str, str], ends: str, **bounds: object) -> PathQuery:
    return PathQuery(group=group, source=graph[ends[0]], target=graph[ends[1]], **bounds)


def names(graph: dict[str, str], nodes: tuple[str, ...]) -> str:
    back = {node_id: name for name, node_id in graph.items()}
    return "".join(back[node] for node in nodes)


def test_shortest_takes_the_fewest_hops_and_the_strongest_of_those(group: str, graph: dict[str, str]) -> None:
    result = shortest_path(query=between(group, graph, "AD"))
    assert result.found and names(graph, result.nodes) == "AFD"
    assert result.hops == 2 and result.strength == pytest.approx(0.25)
    assert [step.weight for step in result.steps] == [0.5, 0.5]
    assert result.levels <= 2


def test_strongest_maximises_the_product_of_weights(group: str, graph: dict[str, str]) -> None:
    result = strongest_path(query=between(group, graph, "AD"))
    assert result.found and names(graph, result.nodes) == "ACED"
    assert result.strength == pytest.approx(0.9**3)
    # The last fact is stored D→E: the step walks it backwards and keeps its stored direction.
    last = result.steps[-1]
    assert (last.node, last.neighbour, last.source, last.target) == (graph["E"], graph["D"], graph["D"], graph["E"])


def test_strongest_respects_max_hops(group: str, graph: dict[str, str]) -> None:
    assert names(graph, strongest_path(query=between(group, graph, "AD", max_hops=2)).nodes) == "AFD"
    # The cheapest way to M (A-C-E-M) leaves no hop for M-T within three; the dearer A-M does.
    within_three = strongest_path(query=between(group, graph, "AT", max_hops=3))
    assert names(graph, within_three.nodes) == "AMT" and within_three.strength == pytest.approx(0.3)
    within_four = strongest_path(query=between(group, graph, "AT", max_hops=4))
    assert names(graph, within_four.nodes) == "ACEMT" and within_four.strength == pytest.approx(0.9**3)


def test_filters_take_facts_out_of_paths(group: str, graph: dict[str, str]) -> None:
    at_march = EdgeFilter(moment=AsOfInput(as_of="2025-03-01T00:00:00Z").resolved())  # A-F ended in February
    assert names(graph, shortest_path(query=between(group, graph, "AD", edge_filter=at_march)).nodes) == "ABD"
    heavy = EdgeFilter(min_weight=0.6)
    assert names(graph, shortest_path(query=between(group, graph, "AD", edge_filter=heavy)).nodes) == "ACED"
    causal = EdgeFilter(categories=("CAUSALITY",))
    result = strongest_path(query=between(group, graph, "AT", edge_filter=causal))
    assert not result.found


def test_bounds_and_missing_paths_are_told_apart(group: str, graph: dict[str, str]) -> None:
    alone = shortest_path(query=between(group, graph, "AX"))
    assert not alone.found and alone.cut is None and alone.strength is None
    too_far = shortest_path(query=between(group, graph, "AT", max_hops=1))
    assert not too_far.found and too_far.cut == "max_hops"
    crowded = shortest_path(query=between(group, graph, "AT", max_visited=3))
    assert not crowded.found and crowded.cut == "max_visited"
    assert not strongest_path(query=between(group, graph, "AX")).found
    same = path_find(query=between(group, graph, "AA"), mode="strongest")
    assert same.found and same.hops == 0 and same.nodes == (graph["A"],)


def test_ends_and_arguments_are_checked(group: str, graph: dict[str, str]) -> None:
    other = f"{group}-elsewhere"
    load(f"{group}-b", nodes=[entity(other)], edges=[])
    try:
        with pytest.raises(NodeNotFound):
            path_find(query=PathQuery(group=group, source=graph["A"], target=other), mode=PathMode.SHORTEST)
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=f"{group}-b")
    with pytest.raises(InvalidInput, match="mode"):
        path_find(query=between(group, graph, "AD"), mode="longest")
    with pytest.raises(InvalidInput, match="max_hops"):
        between(group, graph, "AD", max_hops=11)


def _brute_force(edges: list[tuple[int, int, float]], source: int, target: int, max_hops: int) -> tuple[int, float]:
    """Fewest hops and greatest strength over every simple path of at most max_hops hops (0, 0.0 when none)."""
    adjacency: dict[int, list[tuple[int, float]]] = {}
    for a, b, weight in edges:
        adjacency.setdefault(a, []).append((b, weight))
        adjacency.setdefault(b, []).append((a, weight))
    fewest, strongest = 0, 0.0
    stack = [(source, (source,), 1.0)]
    while stack:
        node, seen, strength = stack.pop()
        if node == target:
            hops = len(seen) - 1
            fewest = hops if not fewest else min(fewest, hops)
            strongest = max(strongest, strength)
            continue
        if len(seen) - 1 == max_hops:
            continue
        for neighbour, weight in adjacency.get(node, ()):
            if neighbour not in seen:
                stack.append((neighbour, (*seen, neighbour), strength * weight))
    return fewest, strongest


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_both_modes_agree_with_brute_force_on_random_graphs(group: str, seed: int) -> None:
    rng = random.Random(seed)
    count = 12
    pairs = rng.sample(list(itertools.combinations(range(count), 2)), 22)
    edges = [(a, b, round(rng.uniform(0.25, 1.0), 3)) for a, b in pairs]
    node_id = [f"{group}-{index}" for index in range(count)]
    load(
        group,
        nodes=[entity(node) for node in node_id],
        edges=[fact(node_id[a], node_id[b], weight) for a, b, weight in edges],
    )
    for source, target in rng.sample(list(itertools.combinations(range(count), 2)), 6):
        for max_hops in (2, 4):
            fewest, strongest = _brute_force(edges, source, target, max_hops)
            query = PathQuery(group=group, source=node_id[source], target=node_id[target], max_hops=max_hops)
            short, strong = shortest_path(query=query), strongest_path(query=query)
            assert short.found == strong.found == bool(fewest)
            if fewest:
                assert short.hops == fewest
                assert strong.hops <= max_hops
                assert math.isclose(strong.strength, strongest, rel_tol=1e-9)
                assert strong.nodes[0] == node_id[source] and strong.nodes[-1] == node_id[target]
