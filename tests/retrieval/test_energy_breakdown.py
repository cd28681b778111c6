"""Every candidate and hop carries all the factors of its transfer energy, as the server computed them."""

from __future__ import annotations

import math
import random

from memoria.retrieval.activation import Seed
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.selection import BELOW_THRESHOLD, BRANCH_LIMIT, CLAIMED
from tests.retrieval.test_activation import collect, load, random_graph


def product(item: dict) -> float:
    """The seed's formula over the shipped factors, in the engine's order of operations."""
    return (item["parent_activation"] * item["weight"] / item["sqrt_degree"]) * item["tag_similarity"]


async def test_factors_multiply_to_the_energy_and_chain_along_paths(group: str) -> None:
    nodes, edges = random_graph(random.Random(11), 30, 110)
    load(group, nodes, edges)
    query_tags = ["t1", "t2", "t3"]
    seeds = [Seed(f"{group}-{nodes[0]}", 0.9), Seed(f"{group}-{nodes[5]}", 0.6)]
    params = ActivationParams(max_depth=4, min_activation=0.002, max_branches=2)
    events = await collect(group=group, seeds=seeds, query_tags=query_tags, params=params, explain=True)

    reasons: set[str | None] = set()
    candidates = 0
    for event in events:
        if event["type"] != "level_expanded":
            continue
        for parent in event["parents"]:
            for candidate in parent["candidates"]:
                candidates += 1
                reasons.add(candidate["reason"])
                assert candidate["parent_activation"] == parent["activation"]
                assert candidate["degree"] == parent["degree"]
                assert candidate["sqrt_degree"] == math.sqrt(candidate["degree"])
                assert product(candidate) == candidate["transfer_energy"]
                assert set(candidate["shared_tags"]) <= set(query_tags)
    assert candidates > 20
    assert {None, BELOW_THRESHOLD, BRANCH_LIMIT} <= reasons <= {None, BELOW_THRESHOLD, BRANCH_LIMIT, CLAIMED}

    scores = {seed.id: seed.score for seed in seeds}
    hops = 0
    for event in events:
        if event["type"] != "path_completed":
            continue
        energy = scores[event["seed_id"]]
        for hop in event["path"]["hops"]:
            hops += 1
            assert hop["parent_activation"] == energy  # R of a hop is what the previous hop delivered
            assert product(hop) == hop["transfer_energy"]
            energy = hop["transfer_energy"]
        assert energy == event["path"]["energy"]
    assert hops > 5
