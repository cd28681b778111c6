"""The view engine against the Cypher engine and the reference, on the real server: identical event streams.

Seeds run concurrently, so events of different seeds interleave differently from run to run; each seed's own
events, in order, and everything else must be the same, timings and round trips aside.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.core.management import call_command

from memoria.graph import driver
from memoria.interchange.exporter import graph_document_export
from memoria.projection.projection import projection_load
from memoria.retrieval.activation import Seed, activation_events
from memoria.retrieval.budget import BudgetLimits, RetrievalBudget
from memoria.retrieval.engines import CYPHER_ENGINE, VIEW, EngineChoice
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.reference import EdgeData, ReferenceGraph
from tests.retrieval.test_activation import load, paths_of

TIMINGS = {"elapsed_ms", "round_trips"}
VOCABULARY = [f"t{i}" for i in range(8)]


def comparable(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The stream without timings, round trips and the engine's own description, and with each seed's events
    in their own order."""

    def clean(event: dict[str, Any]) -> dict[str, Any]:
        kept = {key: value for key, value in event.items() if key not in TIMINGS and key != "engine"}
        if "budget" in kept and "elapsed_seconds" in kept["budget"]:
            kept["budget"] = {key: value for key, value in kept["budget"].items() if key != "elapsed_seconds"}
        return kept

    by_seed: dict[str, list[dict[str, Any]]] = {}
    for event in events[1:-1]:
        by_seed.setdefault(event["seed_id"], []).append(clean(event))
    return {"started": clean(events[0]), "seeds": by_seed, "finished": clean(events[-1])}


async def both_engines(group: str, **kwargs: Any) -> tuple[list[dict], list[dict]]:
    """The same retrieval on Cypher and on a freshly loaded view, each with its own budget."""
    view = EngineChoice(VIEW, projection_load(group=group))
    limits = kwargs.pop("limits", None)
    runs = []
    for engine in (CYPHER_ENGINE, view):
        budget = RetrievalBudget(limits) if limits else None
        stream = activation_events(group=group, engine=engine, budget=budget, retrieval_id="same", **kwargs)
        runs.append([event.frame() async for event in stream])
    return runs[0], runs[1]


def random_memory(group: str, rng: random.Random, *, tagged: bool, ties: bool) -> tuple[list[str], ReferenceGraph]:
    """A random graph with hubs, written through the importer, plus a few facts without weight or tags."""
    nodes = [f"n{i}" for i in range(40)]
    edges = []
    for _ in range(160):
        source = rng.choice(nodes[:3]) if rng.random() < 0.3 else rng.choice(nodes)
        target = rng.choice(nodes)
        if source != target:
            weight = rng.choice([0.25, 0.5, 1.0]) if ties else round(rng.uniform(0.25, 1.0), 3)
            tags = rng.sample(VOCABULARY, rng.randint(0, 4)) if tagged else []
            edges.append((source, target, weight, tags))
    stored = load(group, nodes, edges)
    bare = [(rng.choice(nodes), rng.choice(nodes)) for _ in range(6)]
    for index, (source, target) in enumerate(bare):
        if source == target:
            continue
        edge_id = f"{group}-bare{index}"
        driver.write(
            "MATCH (a:Memory {id: $a}), (b:Memory {id: $b}) CREATE (a)-[:RELATES {id: $id, group_id: $g}]->(b)",
            a=f"{group}-{source}",
            b=f"{group}-{target}",
            id=edge_id,
            g=group,
        )
        stored.append(EdgeData(edge_id, f"{group}-{source}", f"{group}-{target}", None, ()))
    return [f"{group}-{n}" for n in nodes], ReferenceGraph(stored, (f"{group}-{n}" for n in nodes))


@pytest.mark.parametrize("case", range(8))
async def test_view_and_cypher_give_identical_events_on_random_graphs(group: str, case: int) -> None:
    rng = random.Random(1000 + case)
    tagged, ties = case % 2 == 0, case % 4 < 2
    nodes, reference = random_memory(group, rng, tagged=tagged, ties=ties)
    params = ActivationParams(
        max_depth=rng.randint(2, 5),
        min_activation=rng.choice([0.001, 0.005, 0.02]),
        tag_sim_floor=rng.choice([0.15, 0.3]),
        max_branches=rng.randint(1, 3),
    )
    query_tags = rng.sample(VOCABULARY, rng.choice([2, 4])) if tagged else []
    seeds = [Seed(node_id, round(rng.uniform(0.3, 1.0), 3)) for node_id in [*rng.sample(nodes, 4), "not-a-node"]]
    for explain in (False, True):
        cypher, view = await both_engines(group, seeds=seeds, query_tags=query_tags, params=params, explain=explain)
        assert comparable(view) == comparable(cypher)
        assert view[0]["engine"]["name"] == "view" and cypher[0]["engine"]["name"] == "cypher"
        assert view[-1]["round_trips"] == 0
        for seed in seeds[:-1]:
            expected = reference.explore(seed.id, seed.score, query_tags, params)
            assert paths_of(view, seed.id) == sorted((p.nodes, p.energies, p.end_reason) for p in expected)


async def test_a_row_budget_stops_both_engines_at_the_same_level(group: str) -> None:
    nodes, _ = random_memory(group, random.Random(7), tagged=False, ties=False)
    seeds = [Seed(nodes[0], 1.0)]
    params = ActivationParams(max_depth=6, min_activation=1e-6, max_branches=4)
    cypher, view = await both_engines(
        group, seeds=seeds, params=params, limits=BudgetLimits(max_seconds=30, max_rows=60)
    )
    assert cypher[-1]["status"] == "budget_exhausted"
    assert comparable(view) == comparable(cypher)


async def test_foreign_seeds_and_neighbours_are_not_the_views(group: str) -> None:
    nodes, _ = random_memory(group, random.Random(3), tagged=True, ties=True)
    other = f"{group}-x"
    driver.write(
        """
        MATCH (a:Memory {id: $a})
        CREATE (b:Memory:Entity {id: $b, group_id: $other, name: 'elsewhere'})
        CREATE (a)-[:RELATES {id: $b + '-e', group_id: $other, weight: 1.0}]->(b)
        """,
        a=nodes[0],
        b=f"{other}-n",
        other=other,
    )
    try:
        seeds = [Seed(nodes[0], 1.0), Seed(f"{other}-n", 1.0)]
        cypher, view = await both_engines(group, seeds=seeds, params=ActivationParams(min_activation=1e-4))
    finally:
        driver.write("MATCH (n:Memory {group_id: $g}) DETACH DELETE n", g=other)
    assert comparable(view) == comparable(cypher)
    statuses = {e["seed_id"]: e["status"] for e in view if e["type"] == "seed_finished"}
    assert statuses[f"{other}-n"] == "seed_not_found"
    assert all(f"{other}-n" not in path["nodes"] for e in view if e["type"] == "path_completed" for path in [e["path"]])


@pytest.fixture
def demo_group(group: str) -> str:
    call_command("load_demo", "--group", group, "--quiet", "--no-reindex", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return group


@pytest.mark.parametrize("explain", [False, True])
async def test_view_and_cypher_agree_on_the_demo(demo_group: str, explain: bool) -> None:
    document = graph_document_export(group=demo_group)
    reference = ReferenceGraph(
        (EdgeData(e["id"], e["source"], e["target"], e["weight"], tuple(e["tags"])) for e in document["edges"]),
        (node["id"] for node in document["nodes"]),
    )
    rng = random.Random(5)
    node_ids = sorted(node["id"] for node in document["nodes"])
    for query_tags in (["stockout", "safety_stock"], []):
        seeds = [
            Seed("demo-req-0007", 0.9),
            *(Seed(n, round(rng.uniform(0.5, 1.0), 3)) for n in rng.sample(node_ids, 4)),
        ]
        cypher, view = await both_engines(demo_group, seeds=seeds, query_tags=query_tags, explain=explain)
        assert comparable(view) == comparable(cypher)
        for seed in seeds:
            expected = reference.explore(seed.id, seed.score, query_tags, ActivationParams())
            assert paths_of(view, seed.id) == sorted((p.nodes, p.energies, p.end_reason) for p in expected)
