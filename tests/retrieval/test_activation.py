"""The Cypher engine on the real server: the seed's N2006 tree, and agreement with the reference on random graphs."""

from __future__ import annotations

import asyncio
import math
import random

import pytest

from memoria.graph import driver
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.retrieval.activation import Seed, activation_events
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.reference import EdgeData, ReferenceGraph


def load(group: str, nodes: list[str], edges: list[tuple[str, str, float, list[str]]]) -> list[EdgeData]:
    document = {
        "nodes": [{"id": f"{group}-{n}", "name": n} for n in nodes],
        "edges": [
            {
                "id": f"{group}-e{i}",
                "source": f"{group}-{s}",
                "target": f"{group}-{t}",
                "relation": "rel",
                "weight": w,
                "tags": tags,
            }
            for i, (s, t, w, tags) in enumerate(edges)
        ],
    }
    graph_document_import(document=parse_graph_document(document, group=group), group=group)
    return [
        EdgeData(f"{group}-e{i}", f"{group}-{s}", f"{group}-{t}", w, tuple(tags))
        for i, (s, t, w, tags) in enumerate(edges)
    ]


async def collect(**kwargs) -> list[dict]:
    return [event.frame() async for event in activation_events(**kwargs)]


def paths_of(events: list[dict], seed_id: str) -> list[tuple[tuple[str, ...], tuple[float, ...], str]]:
    finished = next(e for e in events if e["type"] == "seed_finished" and e["seed_id"] == seed_id)
    return sorted(
        (tuple(p["nodes"]), tuple(h["transfer_energy"] for h in p["hops"]), p["end_reason"]) for p in finished["paths"]
    )


async def test_the_seeds_n2006_tree(group: str) -> None:
    # Built so that, with MIN_ACTIVATION 0.05 and no query tags, exploring from N2006 grows the seed's figure.
    edges = [
        ("N2006", "N2003", 1.0, []),
        ("N2006", "N2004", 0.9, []),
        ("N2006", "N2005", 0.8, []),
        ("N2007", "N2006", 0.3, []),  # fourth neighbour: cut by MAX_BRANCHES
        ("N2003", "N2001", 1.0, []),
        ("N2004", "N2008", 0.5, []),
        ("N2005", "N2009", 0.25, []),
        ("N2001", "N2010", 1.0, []),
        ("N2008", "N2011", 0.5, []),
        ("N2010", "N2012", 0.25, []),
    ]
    nodes = sorted({n for s, t, _, _ in edges for n in (s, t)})
    load(group, nodes, edges)
    g = lambda n: f"{group}-{n}"  # noqa: E731
    events = await collect(group=group, seeds=[Seed(g("N2006"), 0.5)], params=ActivationParams(min_activation=0.05))
    r1, r2, r3 = 0.5 * 1.0 / 2, 0.5 * 0.9 / 2, 0.5 * 0.8 / 2  # d(N2006) = 4
    assert paths_of(events, g("N2006")) == sorted(
        [
            (
                (g("N2006"), g("N2003"), g("N2001"), g("N2010")),
                (r1, r1 * 1.0 / math.sqrt(2), r1 * 1.0 / math.sqrt(2) * 1.0 / math.sqrt(2)),
                "below_threshold",
            ),
            ((g("N2006"), g("N2004"), g("N2008")), (r2, r2 * 0.5 / math.sqrt(2)), "below_threshold"),
            ((g("N2006"), g("N2005")), (r3,), "below_threshold"),
        ]
    )
    first_level = next(e for e in events if e["type"] == "level_expanded" and e["depth"] == 0)
    (seed_parent,) = first_level["parents"]
    reasons = {c["neighbor_id"]: c["reason"] for c in seed_parent["candidates"]}
    assert reasons == {g("N2003"): None, g("N2004"): None, g("N2005"): None, g("N2007"): "branch_limit"}
    assert [e["type"] for e in events][:3] == ["retrieval_started", "seed_started", "level_expanded"]
    assert events[-1]["type"] == "retrieval_finished" and events[-1]["status"] == "completed"
    assert events[-1]["round_trips"] == 1 + 4  # seed fetch + one per level reached


async def test_unknown_and_foreign_seeds_are_not_found(group: str) -> None:
    load(group, ["a", "b"], [("a", "b", 0.5, [])])
    events = await collect(group="someone-else", seeds=[Seed(f"{group}-a", 1.0), Seed("nope", 0.5)])
    statuses = {e["seed_id"]: e["status"] for e in events if e["type"] == "seed_finished"}
    assert statuses == {f"{group}-a": "seed_not_found", "nope": "seed_not_found"}
    assert events[-1]["paths"] == 0


async def test_missing_weight_reads_as_001(group: str) -> None:
    load(group, ["a", "b"], [])
    driver.write(
        "MATCH (a:Memory {id: $a}), (b:Memory {id: $b}) CREATE (a)-[:RELATES {id: $id, group_id: $g}]->(b)",
        a=f"{group}-a",
        b=f"{group}-b",
        id=f"{group}-raw",
        g=group,
    )
    events = await collect(group=group, seeds=[Seed(f"{group}-a", 1.0)], params=ActivationParams(max_depth=1))
    ((_, energies, reason),) = paths_of(events, f"{group}-a")
    assert energies == (0.01,) and reason == "max_depth"


def random_graph(rng: random.Random, n_nodes: int, n_edges: int) -> tuple[list[str], list]:
    vocabulary = [f"t{i}" for i in range(10)]
    nodes = [f"n{i}" for i in range(n_nodes)]
    hubs = nodes[:3]
    edges = []
    for _ in range(n_edges):
        source = rng.choice(hubs) if rng.random() < 0.3 else rng.choice(nodes)
        target = rng.choice(nodes)
        if source == target:
            continue
        weight = round(rng.uniform(0.25, 1.0), 3)
        edges.append((source, target, weight, rng.sample(vocabulary, rng.randint(0, 4))))
    return nodes, edges


@pytest.mark.parametrize("case", range(6))
async def test_engine_agrees_with_reference_on_random_graphs(group: str, case: int) -> None:
    rng = random.Random(case)
    nodes, edges = random_graph(rng, 45, 170)
    nodes.append("isolated")  # a seed without edges ends at once: one path holding only itself
    reference = ReferenceGraph(load(group, nodes, edges), (f"{group}-{n}" for n in nodes))
    params = ActivationParams(
        max_depth=rng.randint(3, 5),
        min_activation=rng.choice([0.001, 0.005, 0.02]),
        tag_sim_floor=rng.choice([0.15, 0.3]),
        max_branches=rng.randint(1, 3),
    )
    query_tags = rng.sample([f"t{i}" for i in range(10)], rng.choice([0, 2, 4]))
    seeds = [Seed(f"{group}-{n}", round(rng.uniform(0.3, 1.0), 3)) for n in [*rng.sample(nodes[:-1], 4), "isolated"]]
    for explain in (False, True):
        events = await collect(group=group, seeds=seeds, query_tags=query_tags, params=params, explain=explain)
        for seed in seeds:
            expected = reference.explore(seed.id, seed.score, query_tags, params)
            assert paths_of(events, seed.id) == sorted((p.nodes, p.energies, p.end_reason) for p in expected)


async def test_closing_the_stream_cancels_the_work(group: str) -> None:
    nodes, edges = random_graph(random.Random(99), 30, 120)
    load(group, nodes, edges)
    stream = activation_events(group=group, seeds=[Seed(f"{group}-{n}", 1.0) for n in nodes[:5]])
    first = await anext(stream)
    assert first.frame()["type"] == "retrieval_started"
    await anext(stream)
    await stream.aclose()  # must not hang or leak tasks
    await asyncio.sleep(0)
    assert not [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
