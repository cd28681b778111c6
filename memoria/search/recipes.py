"""Named search configurations for the common cases, as Graphiti's search_config_recipes.py names its own.

`recipe(name, ...)` fills in what only the caller knows: how many results, the center node, BFS origins.
The cross-encoder recipes are offered (listed and selectable) only where a cross-encoder model is configured:
none ships with Memoria, so on a fresh install they would only ever answer an error.
"""

from __future__ import annotations

from dataclasses import replace

from memoria.errors import InvalidInput
from memoria.search import rerankers
from memoria.search.config import DEFAULT_LIMIT, Reranker, Scope, ScopeConfig, SearchConfig, search_config_check
from memoria.search.config import SearchMethod as M

HYBRID = (M.BM25, M.COSINE)
# Cosine fused with PPR from the query's linked entities (memoria.ppr.search_walk). Both constants were chosen
# by 5-fold cross-validation on the shared MuSiQue questions (docs/evaluation.md, "Graph fusion").
GRAPH_FUSION_WEIGHT = 0.75
GRAPH_FUSION_DAMPING = 0.9
# The default episodes ranking (BM25 + cosine by RRF) fused with the same walk, seeded only by entities that at most
# 1/50 of the group's episodes mention; none left, no walk: exactly episodes_hybrid_rrf. The share and the graph's
# share were chosen by 5-fold cross-validation on MuSiQue and LoCoMo jointly, at the damping above
# (docs/evaluation.md, "Gated graph fusion").
GRAPH_GATE_SHARE = 0.02
GRAPH_GATE_WEIGHT = 0.5
HYBRID_BFS = (M.BM25, M.COSINE, M.BFS)


def _scoped(reranker: Reranker, methods: tuple[M, ...] = HYBRID) -> ScopeConfig:
    return ScopeConfig(methods=methods, reranker=reranker)


RECIPES: dict[str, SearchConfig] = {
    "combined_hybrid_rrf": SearchConfig(
        facts=_scoped(Reranker.RRF),
        entities=_scoped(Reranker.RRF),
        episodes=_scoped(Reranker.RRF),
        communities=_scoped(Reranker.RRF),
    ),
    "combined_hybrid_mmr": SearchConfig(
        facts=_scoped(Reranker.MMR),
        entities=_scoped(Reranker.MMR),
        episodes=_scoped(Reranker.MMR),
        communities=_scoped(Reranker.MMR),
    ),
    "combined_hybrid_cross_encoder": SearchConfig(
        facts=_scoped(Reranker.CROSS_ENCODER, HYBRID_BFS),
        entities=_scoped(Reranker.CROSS_ENCODER, HYBRID_BFS),
        episodes=_scoped(Reranker.CROSS_ENCODER),
        communities=_scoped(Reranker.CROSS_ENCODER),
    ),
    "facts_hybrid_rrf": SearchConfig(facts=_scoped(Reranker.RRF)),
    "facts_hybrid_mmr": SearchConfig(facts=_scoped(Reranker.MMR)),
    "facts_node_distance": SearchConfig(facts=_scoped(Reranker.NODE_DISTANCE)),
    "facts_episode_mentions": SearchConfig(facts=_scoped(Reranker.EPISODE_MENTIONS)),
    "facts_hybrid_cross_encoder": SearchConfig(facts=_scoped(Reranker.CROSS_ENCODER, HYBRID_BFS)),
    "entities_hybrid_rrf": SearchConfig(entities=_scoped(Reranker.RRF)),
    "entities_hybrid_mmr": SearchConfig(entities=_scoped(Reranker.MMR)),
    "entities_node_distance": SearchConfig(entities=_scoped(Reranker.NODE_DISTANCE)),
    "entities_episode_mentions": SearchConfig(entities=_scoped(Reranker.EPISODE_MENTIONS)),
    "entities_hybrid_cross_encoder": SearchConfig(entities=_scoped(Reranker.CROSS_ENCODER, HYBRID_BFS)),
    "episodes_hybrid_rrf": SearchConfig(episodes=_scoped(Reranker.RRF)),
    "episodes_graph_fused": SearchConfig(
        episodes=ScopeConfig(
            methods=(M.COSINE, M.PPR),
            reranker=Reranker.RRF,
            graph_weight=GRAPH_FUSION_WEIGHT,
            ppr_damping=GRAPH_FUSION_DAMPING,
        )
    ),
    "episodes_hybrid_graph_gated": SearchConfig(
        episodes=ScopeConfig(
            methods=(*HYBRID, M.PPR),
            reranker=Reranker.RRF,
            graph_weight=GRAPH_GATE_WEIGHT,
            ppr_damping=GRAPH_FUSION_DAMPING,
            ppr_seed_share=GRAPH_GATE_SHARE,
        )
    ),
    "episodes_hybrid_cross_encoder": SearchConfig(episodes=_scoped(Reranker.CROSS_ENCODER)),
    "communities_hybrid_rrf": SearchConfig(communities=_scoped(Reranker.RRF)),
    "communities_hybrid_mmr": SearchConfig(communities=_scoped(Reranker.MMR)),
    "communities_hybrid_cross_encoder": SearchConfig(communities=_scoped(Reranker.CROSS_ENCODER)),
}


# The recipes that rerank some scope with the cross-encoder, and so need a configured model.
CROSS_ENCODER_RECIPES = frozenset(
    name
    for name, config in RECIPES.items()
    if any(scoped.reranker is Reranker.CROSS_ENCODER for scoped in config.scopes().values())
)


def offered_recipes() -> tuple[str, ...]:
    """The recipe names callers may choose and are shown, in RECIPES' order."""
    if rerankers.cross_encoder_folder():
        return tuple(RECIPES)
    return tuple(name for name in RECIPES if name not in CROSS_ENCODER_RECIPES)


def recipe_problem(name: str, *, where: str = "recipe") -> str | None:
    """Why `name` cannot be used here (None: it can): unknown, or a cross-encoder recipe without a model."""
    if name not in RECIPES:
        return f"{where}: {name!r} is not one of {', '.join(offered_recipes())}"
    if name in CROSS_ENCODER_RECIPES and not rerankers.cross_encoder_folder():
        return f"{where}: {name} needs a cross-encoder, which is not offered here: {rerankers.CROSS_ENCODER_NEEDED}"
    return None


# What a search of one scope runs when the caller names no recipe. Episodes fuse the walk from the rare entities
# a question names (the gate above); it is the only default with a graph step, chosen because it beat the text
# ranking on MuSiQue and lost nothing on LoCoMo under joint cross-validation (docs/evaluation.md, "Gated graph
# fusion"). When the gate is shut the ranking and its cost are episodes_hybrid_rrf's.
SCOPE_DEFAULT_RECIPES: dict[Scope, str] = {
    Scope.FACTS: "facts_hybrid_rrf",
    Scope.ENTITIES: "entities_hybrid_rrf",
    Scope.EPISODES: "episodes_hybrid_graph_gated",
    Scope.COMMUNITIES: "communities_hybrid_rrf",
}


def recipe(
    name: str,
    *,
    limit: int = DEFAULT_LIMIT,
    center_node_id: str | None = None,
    origin_ids: tuple[str, ...] = (),
    where: str = "recipe",
) -> SearchConfig:
    """The named recipe with the caller's limit, center and BFS origins applied to each of its scopes."""
    problem = recipe_problem(name, where=where)
    if problem is not None:
        raise InvalidInput(problem)
    base = RECIPES[name]
    scoped = {
        scope.value: replace(
            config,
            limit=limit,
            center_node_id=center_node_id or config.center_node_id,
            bfs_origin_ids=origin_ids or config.bfs_origin_ids,
        )
        for scope, config in base.scopes().items()
    }
    return search_config_check(SearchConfig(**scoped))
