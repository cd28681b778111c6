"""The memory's own searches as retrievers of episodes: episode search, fact search counted by the episodes the
facts came from, and the combined hybrid recipe with both fused.

Every retriever answers with episode ids, best first, so a dataset scores them against the episodes that hold
its answers whichever scope found them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from memoria.context.sources import fact_cards
from memoria.evaluation.recall import distinct
from memoria.evaluation.runner import Retriever
from memoria.search.config import MAX_LIMIT, Scope
from memoria.search.recipes import SCOPE_DEFAULT_RECIPES, recipe
from memoria.search.rerankers import rrf
from memoria.search.service import SearchHit, search

# What a search of episodes runs by default (the text ranking fused with the walk from the rare entities a question
# names, docs/search.md "The gate"), and that text ranking alone, kept as a column to show what the walk adds.
EPISODE_RECIPE = SCOPE_DEFAULT_RECIPES[Scope.EPISODES]
TEXT_EPISODE_RECIPE = "episodes_hybrid_rrf"
FACT_RECIPE = "facts_hybrid_rrf"
HYBRID_RECIPE = "combined_hybrid_rrf"
# Facts repeat episodes (one turn gives several facts, a merged fact names several turns): fact search asks for
# this many facts per episode place, so that k distinct episodes can come out of them.
FACTS_PER_EPISODE = 3


def fact_limit(episodes: int) -> int:
    return min(MAX_LIMIT, FACTS_PER_EPISODE * episodes)


def recipe_described(name: str, *, limit: int) -> dict[str, Any]:
    """The recipe a retriever runs, by name and with every setting of each scope it searches, as `evaluate` prints
    it: a figure is only worth what it says it measured, and recipes' defaults change."""
    config = recipe(name, limit=limit)
    return {"recipe": name, "config": {scope.value: asdict(scoped) for scope, scoped in config.scopes().items()}}


def episodes_of_facts(group: str, facts: Sequence[SearchHit]) -> list[str]:
    """The episodes the facts came from, in the facts' rank order (within a fact, as stored), each once."""
    cards = fact_cards(group, {hit.id: (hit.source or "", hit.target or "") for hit in facts}, None)
    return distinct(episode for hit in facts if hit.id in cards for episode in cards[hit.id].episodes)


def hybrid_episodes(episodes: Sequence[str], fact_episodes: Sequence[str], *, limit: int) -> list[str]:
    """RRF of the two rankings (rank constant 1, as search fuses): an episode both found comes first, then
    ties keep episode search's order.
    """
    return [episode for episode, _ in rrf([episodes, fact_episodes])][:limit]


def episode_search(*, group: str, limit: int, name: str = EPISODE_RECIPE) -> Retriever:
    """An episodes recipe; by default the default one (BM25 over contents and cosine over their embeddings,
    fused by RRF)."""
    config = recipe(name, limit=limit)

    def retrieve(text: str) -> list[str]:
        return [hit.id for hit in search(query=text, groups=[group], config=config).episodes]

    return retrieve


def fact_search(*, group: str, limit: int) -> Retriever:
    """The facts recipe, `fact_limit(limit)` facts deep, answered by the episodes those facts came from."""
    config = recipe(FACT_RECIPE, limit=fact_limit(limit))

    def retrieve(text: str) -> list[str]:
        return episodes_of_facts(group, search(query=text, groups=[group], config=config).facts)[:limit]

    return retrieve


def hybrid_search(*, group: str, limit: int) -> Retriever:
    """The combined recipe at `limit` per scope: its episodes and the episodes of its facts, fused by RRF.

    Entities and communities add nothing: an entity stands for every turn that names it (a speaker for half the
    conversation) with no order among them, and a community for its members' turns.
    """
    config = recipe(HYBRID_RECIPE, limit=limit)

    def retrieve(text: str) -> list[str]:
        found = search(query=text, groups=[group], config=config)
        return hybrid_episodes([hit.id for hit in found.episodes], episodes_of_facts(group, found.facts), limit=limit)

    return retrieve
