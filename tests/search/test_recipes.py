"""Named recipes: each is a valid config, the caller's limit, center and origins reach every scope, and the
cross-encoder's are offered only where a model is configured (none ships with Memoria)."""

from __future__ import annotations

import pytest

from memoria.errors import InvalidInput
from memoria.search.config import Reranker, Scope, SearchMethod
from memoria.search.recipes import CROSS_ENCODER_RECIPES, RECIPES, offered_recipes, recipe
from memoria.search.request import SearchParameters


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_recipe_is_a_valid_config(name: str, settings, tmp_path) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = str(tmp_path)  # a cross-encoder's recipes are selectable with a model
    config = recipe(name, limit=7, center_node_id="c", origin_ids=("o",))
    assert config.scopes()
    for scoped in config.scopes().values():
        assert scoped.limit == 7 and scoped.center_node_id == "c" and scoped.bfs_origin_ids == ("o",)


def test_the_brief_s_recipes_exist_with_their_meaning() -> None:
    combined = RECIPES["combined_hybrid_rrf"]
    assert set(combined.scopes()) == set(Scope)
    assert all(c.methods == (SearchMethod.BM25, SearchMethod.COSINE) for c in combined.scopes().values())
    assert RECIPES["facts_hybrid_mmr"].facts.reranker is Reranker.MMR
    assert RECIPES["facts_node_distance"].facts.reranker is Reranker.NODE_DISTANCE
    assert RECIPES["entities_episode_mentions"].entities.reranker is Reranker.EPISODE_MENTIONS
    assert set(RECIPES["episodes_hybrid_rrf"].scopes()) == {Scope.EPISODES}
    assert set(RECIPES["communities_hybrid_rrf"].scopes()) == {Scope.COMMUNITIES}


def test_unknown_recipes_and_missing_centers_are_refused() -> None:
    with pytest.raises(InvalidInput, match="recipe: 'best' is not one of"):
        recipe("best")
    with pytest.raises(InvalidInput, match=r"facts\.center_node_id"):
        recipe("facts_node_distance")


def test_the_cross_encoder_recipes_are_those_that_rerank_with_it() -> None:
    assert {name for name in RECIPES if name.endswith("_cross_encoder")} == CROSS_ENCODER_RECIPES
    assert len(CROSS_ENCODER_RECIPES) == 5


def test_without_a_cross_encoder_its_recipes_are_not_listed(settings) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = ""
    offered = offered_recipes()
    assert offered == tuple(name for name in RECIPES if name not in CROSS_ENCODER_RECIPES)
    with pytest.raises(InvalidInput) as refused:
        recipe("best")
    assert "combined_hybrid_rrf" in str(refused.value) and "cross_encoder" not in str(refused.value)


@pytest.mark.parametrize("name", sorted(CROSS_ENCODER_RECIPES))
def test_without_a_cross_encoder_its_recipes_are_refused_naming_the_setting(name: str, settings) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = "  "
    with pytest.raises(InvalidInput, match=rf"recipe: {name} needs a cross-encoder.*set MEMORIA_CROSS_ENCODER_MODEL"):
        recipe(name)


def test_with_a_cross_encoder_configured_its_recipes_are_listed_and_selectable(settings, tmp_path) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = str(tmp_path)
    assert offered_recipes() == tuple(RECIPES)
    config = recipe("episodes_hybrid_cross_encoder", limit=3)
    assert config.episodes is not None and config.episodes.reranker is Reranker.CROSS_ENCODER


def test_a_scope_searched_without_a_recipe_runs_its_default() -> None:
    """Episodes default to the gated graph fusion (cross-validated on both datasets); the other scopes to hybrid RRF."""
    named = {
        scope: SearchParameters(q="x", group="g", scope=scope).recipe_name
        for scope in ("facts", "entities", "episodes", "communities", "all")
    }
    assert named == {
        "facts": "facts_hybrid_rrf",
        "entities": "entities_hybrid_rrf",
        "episodes": "episodes_hybrid_graph_gated",
        "communities": "communities_hybrid_rrf",
        "all": "combined_hybrid_rrf",
    }
    assert SearchParameters(q="x", group="g", scope="episodes", recipe="episodes_hybrid_rrf").recipe_name == (
        "episodes_hybrid_rrf"
    )
