"""Seeds of relation-aware PPR for a query (seed 003): entities of the facts nearest the query, and episodes.

- Facts by query-to-fact cosine, then a fact filter: offline, the best few at
  or above a minimum score; with an LLM, MARA-RAG's recognition filter
  (memoria.ppr.llm_steps), four or fewer either way.
- Each kept fact's two ends get score ÷ the number of episodes mentioning
  them (an inverse document frequency), averaged over the facts they occur in;
  the heaviest entities are kept.
- Episodes by query-to-episode cosine, scaled into [0, 1] over the candidates
  read (HippoRAG scales over all passages; we read the nearest ones only) and
  multiplied by `passage_node_weight` (0.05), so passages seed lightly.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.llm.modes import StepMode
from memoria.projection.projection import Projection, mention_counts
from memoria.search.config import ScopeConfig, SearchConfig, SearchMethod
from memoria.search.service import search

COSINE = "cosine"
FACTS_KEPT = 4  # MARA-RAG's recognition filter keeps "4 or fewer"


@dataclass(frozen=True)
class SeedOptions:
    fact_candidates: int = 20
    entities: int = 5  # HippoRAG's link_top_k
    passage_candidates: int = 20
    passage_node_weight: float = 0.05


@dataclass(frozen=True)
class ScoredFact:
    id: str
    source: str
    target: str
    score: float
    text: str = ""  # the fact's sentence: what an LLM filter reads


class FactFilter(Protocol):
    """Which of the candidate facts (best first) seed the walk; `source` says who chose (offline | llm)."""

    source: str

    def filter_facts(self, query: str, candidates: Sequence[ScoredFact]) -> tuple[ScoredFact, ...]: ...


@dataclass(frozen=True)
class OfflineFactFilter:
    """The `kept` best candidates at or above `min_score`: no judgement, only the dense scores."""

    source: ClassVar[str] = StepMode.OFFLINE
    kept: int = FACTS_KEPT
    min_score: float = 0.0

    def filter_facts(self, query: str, candidates: Sequence[ScoredFact]) -> tuple[ScoredFact, ...]:
        return tuple(fact for fact in candidates if fact.score >= self.min_score)[: self.kept]


@dataclass(frozen=True)
class RelationSeeds:
    weights: dict[str, float]  # node id → restart weight (not normalised)
    facts: tuple[ScoredFact, ...]  # the facts kept
    passages: tuple[tuple[str, float], ...]  # (episode id, weight) seeded


def entity_weights(projection: Projection, facts: tuple[ScoredFact, ...], *, keep: int) -> dict[str, float]:
    """Σ (score ÷ episodes mentioning the entity) ÷ facts it occurs in, for the `keep` heaviest entities."""
    mentions = mention_counts(projection)
    total: dict[str, float] = defaultdict(float)
    occurrences: dict[str, int] = defaultdict(int)
    for fact in facts:
        for end in dict.fromkeys((fact.source, fact.target)):
            position = projection.position(end)
            if position is None:
                continue
            total[end] += fact.score / max(int(mentions[position]), 1)
            occurrences[end] += 1
    averaged = {entity: total[entity] / occurrences[entity] for entity in total}
    best = sorted(averaged, key=lambda entity: (-averaged[entity], entity))[:keep]
    return {entity: averaged[entity] for entity in best if averaged[entity] > 0}


def passage_weights(scored: list[tuple[str, float]], *, node_weight: float) -> dict[str, float]:
    """Dense scores scaled into [0, 1] over the candidates (all alike: 1), times `node_weight`."""
    if not scored:
        return {}
    low, high = min(score for _, score in scored), max(score for _, score in scored)
    span = high - low
    return {
        node_id: node_weight * ((score - low) / span if span > 0 else 1.0)
        for node_id, score in scored
        if span <= 0 or score > low
    }


def relation_seeds(
    *,
    projection: Projection,
    group: str,
    query: str,
    options: SeedOptions,
    fact_filter: FactFilter | None = None,
    moment: AsOf = EVERY_FACT,
) -> RelationSeeds:
    """Seeds from the facts nearest the query that held at the moment's `as_of` (search filters by valid time
    only: a fact learned after `known_at` may still seed, and the walk then leaves its edge out)."""
    config = SearchConfig(
        facts=ScopeConfig(methods=(SearchMethod.COSINE,), limit=options.fact_candidates),
        episodes=ScopeConfig(methods=(SearchMethod.COSINE,), limit=options.passage_candidates),
    )
    found = search(query=query, groups=[group], config=config, valid_at=moment.as_of)
    candidates = sorted(
        (
            ScoredFact(hit.id, hit.source or "", hit.target or "", hit.scores.get(COSINE, 0.0), hit.text)
            for hit in found.facts
        ),
        key=lambda fact: (-fact.score, fact.id),
    )
    facts = (fact_filter or OfflineFactFilter()).filter_facts(query, candidates) if candidates else ()
    weights = entity_weights(projection, tuple(facts), keep=options.entities)
    episodes = [
        (hit.id, hit.scores.get(COSINE, 0.0)) for hit in found.episodes if projection.position(hit.id) is not None
    ]
    passages = passage_weights(episodes, node_weight=options.passage_node_weight)
    for node_id, weight in passages.items():
        weights[node_id] = weights.get(node_id, 0.0) + weight
    return RelationSeeds(weights, tuple(facts), tuple(passages.items()))
