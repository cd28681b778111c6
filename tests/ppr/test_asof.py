"""PPR at a moment: igraph's scores on the facts that count (read row by row, judged by the definition), for plain
and relation-aware PPR, from one projection that no new as_of reloads."""

from __future__ import annotations

import random

import igraph
import pytest

from memoria.graph import driver, kinds
from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.ppr.relations import BetasInput
from memoria.ppr.request import PprRequest, SeedWeight
from memoria.ppr.service import ppr_run
from memoria.projection.cache import ProjectionCache
from memoria.requests.vocabulary import input_parse
from tests.graph.timed import COLUMNS, TIMES, random_times, times_write
from tests.projection.graphs import random_memory, store

EDGES = """
MATCH (a:Memory {group_id: $group})-[r:RELATES|MENTIONS]->(b:Memory)
RETURN a.id AS source, b.id AS target, type(r) AS link, r.weight AS weight, r.relation_category AS category,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.created_at AS created_at, r.expired_at AS expired_at
"""


@pytest.fixture
def memory(group: str) -> str:
    store(group, random_memory(group, entities=80, episodes=10, facts=300, seed=5))
    rng = random.Random(6)
    facts = driver.read("MATCH ()-[r:RELATES]->() WHERE r.group_id = $group RETURN r.id AS id", group=group)
    times_write(group, {row["id"]: random_times(rng) for row in facts})
    return group


def igraph_scores(group: str, seeds: dict[str, float], moment: AsOf, betas: dict[str, float] | None) -> dict:
    """Undirected PPR over MENTIONS and the RELATES facts that count at `moment`; with `betas`, each fact's
    weight times its category's β (the average for none) and each mention's times 1/3 (no roles stored)."""
    rows = driver.read(EDGES, group=group)
    kept = [
        row
        for row in rows
        if row["link"] == kinds.MENTIONS or moment.counts(*(row[name] for name in COLUMNS))  # type: ignore[misc]
    ]
    ids = sorted(row["id"] for row in driver.read("MATCH (n:Memory {group_id: $g}) RETURN n.id AS id", g=group))
    position = {node_id: index for index, node_id in enumerate(ids)}

    def weight(row: dict) -> float:
        if row["link"] == kinds.MENTIONS:
            return 1.0 if betas is None else 1.0 / 3
        if betas is None:
            return row["weight"]
        return row["weight"] * betas.get(row["category"], 1.0 / len(kinds.RELATION_CATEGORIES))

    graph = igraph.Graph(n=len(ids), edges=[(position[r["source"]], position[r["target"]]) for r in kept])
    reset = [0.0] * len(ids)
    for node_id, share in seeds.items():
        reset[position[node_id]] = share
    scores = graph.personalized_pagerank(
        directed=False, damping=0.5, reset=reset, weights=[weight(r) for r in kept], implementation="prpack"
    )
    return dict(zip(ids, scores, strict=True))


@pytest.mark.parametrize("relation_aware", [False, True])
def test_scores_are_igraphs_on_the_facts_that_count(memory: str, relation_aware: bool) -> None:
    cache = ProjectionCache()
    seeds = {f"{memory}-e3": 0.6, f"{memory}-e11": 0.4}
    raw_betas = {"entity_entity": {"TEMPORAL": 3.0, "CAUSALITY": 1.0}} if relation_aware else None
    betas = input_parse(BetasInput, raw_betas).betas() if raw_betas else None
    rng = random.Random(8)
    moments = [EVERY_FACT, *(AsOf(rng.choice(TIMES), rng.choice(TIMES)) for _ in range(4))]
    projections = set()
    left_out = []
    for moment in moments:
        request = PprRequest(
            group=memory,
            seeds=tuple(SeedWeight(i, w) for i, w in seeds.items()),
            top_k=1000,
            relation_aware=relation_aware,
            betas=betas,
            moment=moment,
        )
        answer = ppr_run(request, cache=cache, wait=30)
        projections.add(id(cache.peek(memory)))
        expected = igraph_scores(memory, seeds, moment, betas.entity_entity if betas else None)
        got = {node.id: node.score for node in answer.scores}
        assert sum(abs(got[node_id] - expected[node_id]) for node_id in expected) <= 1e-6
        assert answer.as_dict()["time"] == moment.as_dict()
        left_out.append(answer.facts_left_out)
    assert len(projections) == 1  # one load: the moments were masks over its interval arrays
    assert left_out[0] == 0 and all(count > 0 for count in left_out[1:])


def test_a_repeated_moment_reuses_its_walk(memory: str) -> None:
    cache = ProjectionCache()
    moment = AsOf("2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z")
    request = PprRequest(group=memory, seeds=(SeedWeight(f"{memory}-e3"),), moment=moment)
    first = ppr_run(request, cache=cache, wait=30)
    projection = cache.peek(memory)
    assert projection is not None
    chosen = projection.chosen_edges(mentions=True)
    walk = projection.walk(directed=False, mentions=True, counting=projection.counting(moment, chosen))
    assert projection.walk(directed=False, mentions=True, counting=projection.counting(moment, chosen)) is walk
    assert ppr_run(request, cache=cache, wait=30).scores == first.scores
