"""Leiden communities (graspologic-native) on the real server: clusters found, deterministic, resolution validated."""

from __future__ import annotations

import io
import itertools
import math
import random

import pytest
from django.core.management import CommandError, call_command

from memoria.errors import InvalidInput
from memoria.ingest import communities
from memoria.ingest.communities import LEIDEN, communities_build, leiden
from tests.ingest.test_communities import add_memory, clique, edge, ids, memberships, stored

LEFT = {
    key: (key.title(), f"{key.title()} belongs to the left cluster.") for key in ("ant", "bee", "cat", "dog", "elk")
}
RIGHT = {key: (key.title(), "") for key in ("fox", "gnu", "hen", "ibis", "jay")}


@pytest.fixture
def bridged(group: str) -> str:
    """Two cliques of five, every pair tied by two facts, joined by one fact; and one entity with no facts."""
    again = [edge(group, a, b, "works_with", ["left"]) for a, b in itertools.combinations(LEFT, 2)]
    again += [edge(group, a, b, "works_with", ["right"]) for a, b in itertools.combinations(RIGHT, 2)]
    edges = [
        *clique(group, list(LEFT), ["left"]),
        *clique(group, list(RIGHT), ["right"]),
        *again,
        edge(group, "elk", "fox", "meets", ["bridge"]),
    ]
    add_memory(group, {**LEFT, **RIGHT, "lonely": ("Lonely", "")}, edges)
    return group


def planted(seed: int, *, clusters: int = 5, size: int = 12, inside: float = 0.5, across: float = 0.02) -> dict:
    """Random weights (1–3 facts) over planted clusters; a node's cluster is the prefix of its id."""
    rng = random.Random(seed)
    nodes = [f"c{cluster}-{index:02d}" for cluster in range(clusters) for index in range(size)]
    weights = {}
    for a, b in itertools.combinations(nodes, 2):
        if rng.random() < (inside if a[:2] == b[:2] else across):
            weights[(a, b)] = rng.randint(1, 3)
    return weights


def agreement(labels: dict[str, str]) -> float:
    """The fraction of node pairs put together or apart as planted."""
    pairs = list(itertools.combinations(sorted(labels), 2))
    return sum((a[:2] == b[:2]) == (labels[a] == labels[b]) for a, b in pairs) / len(pairs)


def test_leiden_finds_two_dense_clusters_joined_by_one_weak_edge(bridged: str) -> None:
    report = communities_build(group=bridged, algorithm=LEIDEN)
    assert memberships(bridged) == {frozenset(ids(bridged, LEFT)), frozenset(ids(bridged, RIGHT))}
    assert (report.algorithm, report.resolution, report.iterations) == (LEIDEN, 1.0, communities.LEIDEN_ITERATIONS)
    assert (report.clustered_entities, report.unclustered_entities) == (10, 1)  # MIN_MEMBERS drops the lone one
    by_members = {frozenset(row["members"]): row for row in stored(bridged)}
    left = by_members[frozenset(ids(bridged, LEFT))]
    # Downstream of the clustering nothing differs: the extractive summary, the embedded name.
    assert left["summary"].endswith("Frequent topics: left.") and len(left["vector"]) > 0


def test_a_leiden_build_is_deterministic_and_keeps_the_ids(bridged: str) -> None:
    first = communities_build(group=bridged, algorithm=LEIDEN)
    second = communities_build(group=bridged, algorithm=LEIDEN)
    assert second.communities == first.communities and second.removed == 2


def test_leiden_labels_depend_only_on_the_graph() -> None:
    weights = planted(3)
    nodes = sorted({node for pair in weights for node in pair})
    expected, _ = leiden(nodes, weights)
    shuffled = list(weights.items())
    random.Random(9).shuffle(shuffled)
    assert leiden(reversed(nodes), dict(shuffled)) == (expected, communities.LEIDEN_ITERATIONS)
    assert len(set(expected.values())) > 1


@pytest.mark.parametrize("seed", range(5))
def test_leiden_recovers_planted_clusters(seed: int) -> None:
    labels, _ = leiden({node for pair in planted(seed) for node in pair}, planted(seed))
    assert agreement(labels) >= 0.95


def test_a_higher_resolution_gives_more_communities() -> None:
    weights = planted(1)
    nodes = {node for pair in weights for node in pair}
    counts = [len(set(leiden(nodes, weights, resolution=r)[0].values())) for r in (0.2, 1.0, 5.0)]
    assert counts[0] < counts[1] < counts[2]


def test_entities_without_facts_stay_alone_and_an_empty_graph_is_no_error() -> None:
    labels, cycles = leiden(["b", "a"], {})
    assert (labels, cycles) == ({"a": "a", "b": "b"}, 0)
    labels, _ = leiden(["a", "b", "c"], {("a", "b"): 2})
    assert labels == {"a": "a", "b": "a", "c": "c"}


@pytest.mark.parametrize(
    ("algorithm", "resolution", "message"),
    [
        (LEIDEN, 0, "resolution: must be greater than 0"),
        (LEIDEN, -1.5, "resolution: must be greater than 0"),
        (LEIDEN, math.nan, "resolution: nan is not a number"),
        (LEIDEN, math.inf, "resolution: inf is not a number"),
        (LEIDEN, "2", "resolution: '2' is not a number"),
        ("label_propagation", 1.0, "resolution: only the leiden algorithm takes one"),
        ("louvain", None, "algorithm: 'louvain' is not one of label_propagation, leiden"),
    ],
)
def test_bad_options_are_refused_and_keep_the_old_communities(
    bridged: str, algorithm: str, resolution: object, message: str
) -> None:
    communities_build(group=bridged)
    before = stored(bridged)
    with pytest.raises(InvalidInput, match=f"^{message}"):
        communities_build(group=bridged, algorithm=algorithm, resolution=resolution)
    assert stored(bridged) == before


def test_the_command_builds_leiden_communities_at_a_resolution(bridged: str) -> None:
    out = io.StringIO()
    call_command("build_communities", "--group", bridged, "--algorithm", "leiden", "--resolution", "0.5", stdout=out)
    assert f"group {bridged}: 2 communities of 10 entities" in out.getvalue()
    assert f"Leiden at resolution 0.5, {communities.LEIDEN_ITERATIONS} cycles" in out.getvalue()
    assert len(stored(bridged)) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--algorithm", "leiden", "--resolution", "0"], "resolution: must be greater than 0"),
        (["--resolution", "2"], "resolution: only the leiden algorithm takes one"),
        (["--algorithm", "louvain"], "invalid choice: 'louvain'"),
        (["--algorithm", "leiden", "--resolution", "high"], "invalid float value: 'high'"),
    ],
)
def test_the_command_refuses_bad_options_and_writes_nothing(bridged: str, args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("build_communities", "--group", bridged, *args)
    assert stored(bridged) == []
