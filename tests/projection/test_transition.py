"""The walk's matrices: slots ordered by degree, summed edges given back by position, halves that add up."""

from __future__ import annotations

from collections import Counter

import igraph
import numpy as np
import pytest

from memoria.ppr.pagerank import personalized_pagerank
from memoria.projection.transition import transition_graph, walk_pattern


@pytest.fixture
def edges() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    sources = rng.integers(0, 300, 2000)
    targets = rng.integers(0, 300, 2000)
    return sources, targets, rng.uniform(0.25, 1.0, 2000)


@pytest.mark.parametrize("directed", [False, True])
def test_slots_are_a_permutation_by_edge_count(edges, directed: bool) -> None:
    sources, targets, weights = edges
    walk = transition_graph(size=310, sources=sources, targets=targets, weights=weights, directed=directed)
    assert sorted(walk.node.tolist()) == list(range(310))
    assert np.array_equal(walk.slot[walk.node], np.arange(310))
    touched = np.bincount(sources, minlength=310) + np.bincount(targets, minlength=310)
    assert np.all(np.diff(touched[walk.node]) <= 0)  # hubs first
    assert set(walk.node[walk.dangling].tolist()) >= set(range(300, 310))  # never touched: nothing to walk


@pytest.mark.parametrize("directed", [False, True])
def test_weighted_edges_are_the_input_with_parallel_edges_summed(edges, directed: bool) -> None:
    sources, targets, weights = edges
    walk = transition_graph(size=310, sources=sources, targets=targets, weights=weights, directed=directed)
    expected: Counter = Counter()
    for source, target, weight in zip(sources.tolist(), targets.tolist(), weights.tolist(), strict=True):
        key = (source, target) if directed else (min(source, target), max(source, target))
        expected[key] += weight
    got = walk.weighted_edges()
    assert len(got[0]) == len(expected)
    for source, target, weight in zip(*got, strict=True):
        assert weight == pytest.approx(expected[(int(source), int(target))], rel=1e-12)


@pytest.mark.parametrize("directed", [False, True])
def test_halves_multiply_like_the_whole(edges, directed: bool) -> None:
    sources, targets, weights = edges
    walk = transition_graph(size=310, sources=sources, targets=targets, weights=weights, directed=directed)
    x = np.random.default_rng(4).random(310)
    matrices = [(walk.backward, walk.backward_halves)]
    if not directed:
        matrices.append((walk.symmetric, walk.symmetric_halves))
    for whole, halves in matrices:
        assert halves[0].shape[0] + halves[1].shape[0] == 310
        assert halves[0].nnz + halves[1].nnz == whole.nnz
        assert np.allclose(np.concatenate([halves[0] @ x, halves[1] @ x]), whole @ x, rtol=0, atol=1e-15)
    one = personalized_pagerank(walk, {3: 1.0, 7: 0.5}, threads=1)
    two = personalized_pagerank(walk, {3: 1.0, 7: 0.5}, threads=2)
    assert np.abs(one.scores - two.scores).sum() < 1e-12 and one.iterations == two.iterations


@pytest.mark.parametrize("directed", [False, True])
def test_one_pattern_serves_any_weights(edges, directed: bool) -> None:
    sources, targets, weights = edges
    pattern = walk_pattern(size=310, sources=sources, targets=targets, directed=directed)
    for trial in range(3):
        scaled = weights * np.random.default_rng(trial).uniform(0, 2, len(weights))
        scaled[trial::7] = 0.0
        graph = igraph.Graph(n=310, edges=list(zip(sources.tolist(), targets.tolist(), strict=True)), directed=True)
        reset = [0.0] * 310
        reset[5], reset[9] = 1.0, 0.5
        expected = graph.personalized_pagerank(directed=directed, damping=0.5, reset=reset, weights=scaled.tolist())
        got = personalized_pagerank(pattern.walk(scaled), {5: 1.0, 9: 0.5})
        assert np.abs(got.scores - np.array(expected)).sum() <= 1e-6
    with pytest.raises(ValueError, match="expected 2000 weights"):
        pattern.walk(weights[:5])
    with pytest.raises(ValueError, match="non-negative"):
        pattern.walk(-weights)
