"""PPR agrees with igraph's PRPACK (what HippoRAG calls) within 1e-6 in L1, and its error bound really bounds."""

from __future__ import annotations

import igraph
import numpy as np
import pytest

from memoria.ppr.pagerank import (
    CONJUGATE_GRADIENT,
    POWER,
    personalization,
    personalized_pagerank,
)
from memoria.projection.transition import transition_graph

L1_AGREEMENT = 1e-6


def random_graph(rng: np.random.Generator, size: int, edges: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random weighted edges with what real graphs have: hubs, parallel edges, self-loops, zero weights, sinks."""
    hubs = rng.choice(size, max(1, size // 20), replace=False)
    sources = rng.integers(0, size, edges)
    targets = np.where(rng.random(edges) < 0.3, rng.choice(hubs, edges), rng.integers(0, size, edges))
    weights = rng.uniform(0.25, 1.0, edges)
    weights[rng.random(edges) < 0.05] = 0.0
    # A tenth of the nodes never start an edge: dangling when directed; some touch no edge at all.
    sinks = rng.choice(size, size // 10, replace=False)
    keep = ~np.isin(sources, sinks)
    return sources[keep], targets[keep], weights[keep]


def igraph_ppr(
    size: int, sources: np.ndarray, targets: np.ndarray, weights: np.ndarray, reset: np.ndarray | None, **options
) -> np.ndarray:
    graph = igraph.Graph(n=size, edges=list(zip(sources.tolist(), targets.tolist(), strict=True)), directed=True)
    restart = None if reset is None else reset.tolist()
    scores = graph.personalized_pagerank(weights=weights.tolist(), reset=restart, implementation="prpack", **options)
    return np.array(scores)


def seeds_for(rng: np.random.Generator, size: int, count: int, *, zero_share: float = 0.0) -> dict[int, float]:
    chosen = rng.choice(size, count, replace=False)
    weights = rng.uniform(0.1, 1.0, count)
    weights[rng.random(count) < zero_share] = 0.0
    if not weights.any():
        weights[0] = 0.5
    return {int(node): float(weight) for node, weight in zip(chosen, weights, strict=True)}


def dense_reset(size: int, seeds: dict[int, float]) -> np.ndarray:
    reset = np.zeros(size)
    for node, weight in seeds.items():
        reset[node] = weight
    return reset


CASES = [
    # (directed, method, damping)
    (False, CONJUGATE_GRADIENT, 0.5),
    (False, POWER, 0.5),
    (True, POWER, 0.5),
    (False, CONJUGATE_GRADIENT, 0.85),
    (True, POWER, 0.85),
    (True, POWER, 0.15),
]


@pytest.mark.parametrize(("directed", "method", "damping"), CASES)
@pytest.mark.parametrize("trial", range(4))
def test_agrees_with_igraph_on_random_weighted_graphs(directed: bool, method: str, damping: float, trial: int) -> None:
    rng = np.random.default_rng(1000 + trial)
    size = int(rng.integers(50, 3000))
    sources, targets, weights = random_graph(rng, size, int(size * rng.uniform(1.5, 6)))
    graph = transition_graph(size=size, sources=sources, targets=targets, weights=weights, directed=directed)
    assert len(graph.dangling) > 0  # the case PRPACK treats specially is exercised
    seeds = seeds_for(rng, size, int(rng.integers(1, 8)), zero_share=0.3)
    expected = igraph_ppr(size, sources, targets, weights, dense_reset(size, seeds), directed=directed, damping=damping)
    result = personalized_pagerank(graph, seeds, damping=damping, method=method)
    assert result.converged
    assert result.error_bound <= 1e-6
    assert np.abs(result.scores - expected).sum() <= L1_AGREEMENT
    assert result.scores.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("directed", [False, True])
def test_no_seeds_is_pagerank_with_uniform_restart(directed: bool) -> None:
    rng = np.random.default_rng(7)
    size = 800
    sources, targets, weights = random_graph(rng, size, 3000)
    graph = transition_graph(size=size, sources=sources, targets=targets, weights=weights, directed=directed)
    expected = igraph_ppr(size, sources, targets, weights, None, directed=directed, damping=0.5)
    for seeds in (None, {}):
        result = personalized_pagerank(graph, seeds)
        assert np.abs(result.scores - expected).sum() <= L1_AGREEMENT


@pytest.mark.parametrize("directed", [False, True])
def test_seeds_on_dangling_and_isolated_nodes(directed: bool) -> None:
    # 0→1→2 and 3→4; node 5 touches nothing; 2 and 4 have no way out when directed.
    sources, targets, weights = np.array([0, 1, 3]), np.array([1, 2, 4]), np.array([1.0, 0.5, 0.25])
    graph = transition_graph(size=6, sources=sources, targets=targets, weights=weights, directed=directed)
    for seeds in ({2: 1.0}, {5: 1.0}, {2: 0.3, 5: 0.7}, {4: 1.0, 0: 0.0}):
        expected = igraph_ppr(6, sources, targets, weights, dense_reset(6, seeds), directed=directed, damping=0.5)
        for method in (POWER, CONJUGATE_GRADIENT) if not directed else (POWER,):
            result = personalized_pagerank(graph, seeds, method=method)
            assert np.abs(result.scores - expected).sum() <= L1_AGREEMENT, (seeds, method)


@pytest.mark.parametrize(("directed", "method"), [(False, CONJUGATE_GRADIENT), (False, POWER), (True, POWER)])
def test_the_error_bound_holds_when_stopped_early(directed: bool, method: str) -> None:
    rng = np.random.default_rng(11)
    size = 2000
    sources, targets, weights = random_graph(rng, size, 9000)
    graph = transition_graph(size=size, sources=sources, targets=targets, weights=weights, directed=directed)
    seeds = seeds_for(rng, size, 3)
    exact = igraph_ppr(size, sources, targets, weights, dense_reset(size, seeds), directed=directed, damping=0.5)
    bounds = []
    for cap in (1, 2, 3, 5, 8):
        result = personalized_pagerank(graph, seeds, method=method, max_iterations=cap)
        assert result.iterations == cap and not result.converged
        assert np.abs(result.scores - exact).sum() <= result.error_bound
        bounds.append(result.error_bound)
    assert bounds == sorted(bounds, reverse=True)


def test_a_small_reachable_set_stays_local() -> None:
    # A long directed chain plus a large dense part the seed can never reach.
    rng = np.random.default_rng(3)
    chain = np.arange(0, 20)
    dense_sources = rng.integers(100, 5000, 60_000)
    dense_targets = rng.integers(100, 5000, 60_000)
    sources = np.concatenate([chain, dense_sources])
    targets = np.concatenate([chain + 1, dense_targets])
    weights = np.ones(len(sources))
    graph = transition_graph(size=5000, sources=sources, targets=targets, weights=weights, directed=True)
    result = personalized_pagerank(graph, {0: 1.0})
    assert result.converged and result.frontier_iterations == result.iterations
    expected = igraph_ppr(5000, sources, targets, weights, dense_reset(5000, {0: 1.0}), directed=True, damping=0.5)
    assert np.abs(result.scores - expected).sum() <= L1_AGREEMENT
    assert result.scores[100:].sum() == 0.0


def test_personalization_normalises_and_falls_back_to_uniform() -> None:
    restart = personalization(4, {2: 3.0, 0: 1.0, 3: 0.0})
    assert restart.nodes.tolist() == [0, 2] and restart.weights.tolist() == [0.25, 0.75]
    for seeds in (None, {}, {1: 0.0}):
        uniform = personalization(4, seeds)
        assert uniform.weights.tolist() == [0.25] * 4


@pytest.mark.parametrize(
    ("seeds", "message"),
    [({9: 1.0}, "positions"), ({1: -1.0}, "non-negative"), ({1: float("nan")}, "finite")],
)
def test_bad_seeds_are_refused(seeds: dict[int, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        personalization(4, seeds)


def test_bad_edges_and_options_are_refused() -> None:
    one, two = np.array([0]), np.array([1])
    with pytest.raises(ValueError, match="non-negative"):
        transition_graph(size=2, sources=one, targets=two, weights=np.array([-1.0]), directed=True)
    with pytest.raises(ValueError, match="size"):
        transition_graph(size=2, sources=one, targets=np.array([2]), weights=np.array([1.0]), directed=True)
    graph = transition_graph(size=2, sources=one, targets=two, weights=np.array([1.0]), directed=True)
    with pytest.raises(ValueError, match="damping"):
        personalized_pagerank(graph, damping=1.0)
    with pytest.raises(ValueError, match="undirected"):
        personalized_pagerank(graph, method=CONJUGATE_GRADIENT)


def test_an_empty_graph_has_no_scores() -> None:
    empty = transition_graph(size=0, sources=np.array([]), targets=np.array([]), weights=np.array([]), directed=False)
    result = personalized_pagerank(empty)
    assert result.scores.size == 0 and result.converged


@pytest.mark.parametrize(("directed", "method"), [(False, CONJUGATE_GRADIENT), (False, POWER), (True, POWER)])
def test_the_iteration_hook_sees_each_iterate_and_can_stop_the_solve(directed: bool, method: str) -> None:
    rng, size = np.random.default_rng(5), 500
    edges = random_graph(rng, size, 2500)
    graph = transition_graph(size=size, sources=edges[0], targets=edges[1], weights=edges[2], directed=directed)
    seeds = seeds_for(rng, size, 3)
    exact = igraph_ppr(size, *edges, dense_reset(size, seeds), directed=directed, damping=0.5)
    seen: list[tuple[int, float, np.ndarray]] = []
    result = personalized_pagerank(
        graph, seeds, method=method, on_iteration=lambda i, bound, scores: seen.append((i, bound, scores()))
    )
    assert [i for i, _, _ in seen] == list(range(1, result.iterations + 1))
    for _, bound, scores in seen:  # every iterate shown is a distribution; power's are within their bound
        assert scores.sum() == pytest.approx(1.0) and np.all(scores >= -1e-12)
        assert method != POWER or np.abs(scores - exact).sum() <= bound + 1e-12
    assert seen[-1][1] == result.error_bound and np.allclose(seen[-1][2], result.scores)

    class Stop(Exception):
        pass

    def stop_at_two(i: int, bound: float, scores: object) -> None:
        if i == 2:
            raise Stop

    with pytest.raises(Stop):
        personalized_pagerank(graph, seeds, method=method, on_iteration=stop_at_two)
