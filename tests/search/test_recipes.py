"""Named recipes: each is a valid config, and the caller's limit, center and origins reach every scope."""

from __future__ import annotations

import pytest

from memoria.errors import InvalidInput
from memoria.search.config import Reranker, Scope, SearchMethod
from memoria.search.recipes import RECIPES, recipe


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_recipe_is_a_valid_config(name: str) -> None:
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
