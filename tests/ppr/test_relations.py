"""Relation-aware PPR (seed 003): β per category, edges reweighted by it, seeds from facts and episodes."""

from __future__ import annotations

import igraph
import pytest

from memoria.errors import InvalidInput
from memoria.graph import driver, kinds
from memoria.graph.asof import EVERY_FACT
from memoria.llm.modes import StepMode
from memoria.ppr.relation_seeds import ScoredFact, entity_weights, passage_weights
from memoria.ppr.relations import BetasInput, RelationBetas, betas_offline
from memoria.ppr.request import PprRequest, SeedWeight
from memoria.ppr.service import ppr_run
from memoria.projection.cache import ProjectionCache
from memoria.projection.projection import MENTIONS_LINK, projection_load
from memoria.requests.vocabulary import input_parse
from tests.projection.graphs import random_memory, store, stored_edges
from tests.search.memory import node_id, store_search_memory

UNEVEN = {
    "entity_entity": {"HIERARCHICAL": 0.05, "TEMPORAL": 0.6, "SPATIAL": 0.1, "CAUSALITY": 0.05, "ATTRIBUTION": 0.2},
    "entity_passage": {"PRIMARY": 0.6, "SECONDARY": 0.3, "PERIPHERAL": 0.1},
}


@pytest.fixture
def memory(group: str) -> str:
    store(group, random_memory(group, entities=60, episodes=10, facts=250, seed=17))
    return group


def test_betas_are_normalised_per_family_and_gaps_take_the_average() -> None:
    betas = input_parse(BetasInput, {"entity_entity": {"TEMPORAL": 6, "SYNONYMY": 2}}).betas()
    # SYNONYMY weighs as ATTRIBUTION; the three left out take the average of those given (4); sum 20.
    assert betas.entity_entity == pytest.approx(
        {"HIERARCHICAL": 0.2, "TEMPORAL": 0.3, "SPATIAL": 0.2, "CAUSALITY": 0.2, "ATTRIBUTION": 0.1}
    )
    assert betas.entity_passage == pytest.approx({"PRIMARY": 1 / 3, "SECONDARY": 1 / 3, "PERIPHERAL": 1 / 3})
    with pytest.raises(InvalidInput, match="SYNONYMY: ATTRIBUTION is given twice"):
        input_parse(BetasInput, {"entity_entity": {"ATTRIBUTION": 1, "SYNONYMY": 2}}).betas()


def test_each_edge_takes_its_categorys_beta_or_its_familys_average(memory: str) -> None:
    projection = projection_load(group=memory)
    betas = input_parse(BetasInput, UNEVEN).betas()
    chosen = projection.chosen_edges(mentions=True)
    multipliers = betas.multipliers(projection, chosen)
    for category, link, multiplier in zip(projection.categories, projection.links, multipliers, strict=True):
        if link == MENTIONS_LINK:  # these links carry no role: the family's average
            assert multiplier == pytest.approx(1 / 3)
        elif category < 0:
            assert multiplier == pytest.approx(1 / 5)
        else:
            assert multiplier == pytest.approx(UNEVEN["entity_entity"][kinds.RELATION_CATEGORIES[category]])
    facts_only = betas.multipliers(projection, projection.chosen_edges(mentions=False))
    assert len(facts_only) == 250


def test_relation_aware_scores_are_igraphs_on_reweighted_edges(memory: str) -> None:
    betas = input_parse(BetasInput, UNEVEN).betas()
    seeds = {f"{memory}-e2": 1.0, f"{memory}-p1": 0.05}
    request = PprRequest(
        group=memory,
        seeds=tuple(SeedWeight(i, w) for i, w in seeds.items()),
        top_k=1000,
        relation_aware=True,
        betas=betas,
    )
    answer = ppr_run(request, cache=ProjectionCache(), wait=30)
    ids = sorted(row["id"] for row in driver.read("MATCH (n:Memory {group_id: $g}) RETURN n.id AS id", g=memory))
    position = {node: index for index, node in enumerate(ids)}
    edges = list(stored_edges(memory).elements())

    def beta(edge: tuple) -> float:
        if edge[2] == kinds.MENTIONS:
            return 1 / 3
        return betas.entity_entity[edge[4]] if edge[4] else 1 / 5

    graph = igraph.Graph(n=len(ids), edges=[(position[e[0]], position[e[1]]) for e in edges], directed=True)
    reset = [0.0] * len(ids)
    for node, weight in seeds.items():
        reset[position[node]] = weight
    expected = graph.personalized_pagerank(
        directed=False, damping=0.5, reset=reset, weights=[e[3] * beta(e) for e in edges], implementation="prpack"
    )
    got = {node.id: node.score for node in answer.scores}
    assert sum(abs(got[node] - expected[position[node]]) for node in ids) <= 1e-6
    plain = ppr_run(PprRequest(group=memory, seeds=request.seeds, top_k=1000), cache=ProjectionCache(), wait=30)
    assert sum(abs(got[n.id] - n.score) for n in plain.scores) > 1e-3  # β really changed the walk
    assert answer.betas == betas and answer.as_dict()["relation_aware"]


def test_entities_weigh_fact_score_over_their_episodes_averaged(memory: str) -> None:
    projection = projection_load(group=memory)
    mentioned = {}
    for target, link in zip(projection.targets, projection.links, strict=True):
        if link == MENTIONS_LINK:
            mentioned[projection.ids[target]] = mentioned.get(projection.ids[target], 0) + 1
    often = max(mentioned, key=mentioned.get)
    never = next(f"{memory}-e{i}" for i in range(60) if f"{memory}-e{i}" not in mentioned)
    lone = next(f"{memory}-e{i}" for i in range(60) if f"{memory}-e{i}" not in (often, never))
    facts = (ScoredFact("f1", often, never, 0.9), ScoredFact("f2", often, lone, 0.6))
    weights = entity_weights(projection, facts, keep=5)
    assert weights[often] == pytest.approx((0.9 / mentioned[often] + 0.6 / mentioned[often]) / 2)
    assert weights[never] == pytest.approx(0.9)  # mentioned by no episode: divided by 1
    assert weights[lone] == pytest.approx(0.6 / max(mentioned.get(lone, 0), 1))
    assert list(entity_weights(projection, facts, keep=1)) == [never]


def test_passages_are_scaled_into_0_1_and_weigh_little() -> None:
    weights = passage_weights([("a", 0.8), ("b", 0.5), ("c", 0.6)], node_weight=0.05)
    assert weights == pytest.approx({"a": 0.05, "c": 0.05 / 3})  # the lowest scales to 0: no seed
    assert passage_weights([("a", 0.4), ("b", 0.4)], node_weight=0.05) == {"a": 0.05, "b": 0.05}
    assert passage_weights([], node_weight=0.05) == {}


@pytest.mark.parametrize(
    ("query", "category"),
    [
        ("When was the company founded?", "TEMPORAL"),
        ("Where is the Lyon warehouse located?", "SPATIAL"),
        ("Why did the shipment get delayed?", "CAUSALITY"),
        ("Who wrote the report?", "ATTRIBUTION"),
        ("Which group does the supplier belong to?", "HIERARCHICAL"),
    ],
)
def test_the_offline_manager_favours_the_category_the_question_asks_about(query: str, category: str) -> None:
    betas = betas_offline(query=query)
    assert betas.source == StepMode.OFFLINE
    assert max(betas.entity_entity, key=betas.entity_entity.get) == category
    assert sum(betas.entity_entity.values()) == pytest.approx(1.0)
    assert min(betas.entity_entity.values()) >= 0.05  # a wrong guess dims facts, never removes them


def test_a_query_seeds_entities_from_facts_and_ranks_episodes(group: str) -> None:
    store_search_memory(group)
    # Every fact walked: ep1 and ep2 are within 0.2% of each other, and leaving the ended "drove" fact out of the
    # walk (the default moment, now) turns them round; which facts count is tests/ppr/test_asof.py's subject.
    request = PprRequest(
        group=group, query="Where did the safety gloves run out?", top_k=3, relation_aware=True, moment=EVERY_FACT
    )
    answer = ppr_run(request, cache=ProjectionCache(), wait=30)
    assert answer.seed_source == "facts" and answer.facts
    assert isinstance(answer.betas, RelationBetas) and answer.betas.source == StepMode.OFFLINE
    ends = {end for fact in answer.facts for end in (fact.source, fact.target)}
    assert {seed.id for seed in answer.seeds if "-ep" not in seed.id} <= ends
    assert [fact.score for fact in answer.facts] == sorted((fact.score for fact in answer.facts), reverse=True)
    assert [p.kind for p in answer.passages] == [kinds.EPISODE] * 3
    # The episode about gloves running out at Lyon mentions the facts' ends: it ranks first.
    assert answer.passages[0].id == node_id(group, "ep1")
