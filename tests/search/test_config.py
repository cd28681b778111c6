"""Search configs from JSON: good ones parse into the dataclasses, every bad field is named."""

from __future__ import annotations

import pytest

from memoria.errors import InvalidInput
from memoria.requests.vocabulary import input_parse
from memoria.search.config import (
    Reranker,
    Scope,
    ScopeConfig,
    SearchConfig,
    SearchMethod,
    parse_query,
    search_config_check,
)
from memoria.search.request import SearchConfigInput


def test_a_full_config_parses() -> None:
    config = input_parse(
        SearchConfigInput,
        {
            "facts": {
                "methods": ["bm25", "cosine", "bfs"],
                "reranker": "node_distance",
                "limit": 5,
                "min_score": 0.1,
                "sim_min_score": 0.2,
                "bfs_depth": 3,
                "bfs_origin_ids": ["a", "b"],
                "center_node_id": "a",
            },
            "communities": {"methods": ["cosine"], "reranker": "mmr", "mmr_lambda": 0.7, "min_score": None},
        },
    ).search_config
    assert config.facts == ScopeConfig(
        methods=(SearchMethod.BM25, SearchMethod.COSINE, SearchMethod.BFS),
        reranker=Reranker.NODE_DISTANCE,
        limit=5,
        min_score=0.1,
        sim_min_score=0.2,
        bfs_depth=3,
        bfs_origin_ids=("a", "b"),
        center_node_id="a",
    )
    assert config.communities == ScopeConfig(methods=(SearchMethod.COSINE,), reranker=Reranker.MMR, mmr_lambda=0.7)
    assert set(config.scopes()) == {Scope.FACTS, Scope.COMMUNITIES}
    assert config.needs_query_vector()
    assert not SearchConfig(episodes=ScopeConfig(methods=(SearchMethod.BM25,))).needs_query_vector()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ([], "config: must be a JSON object"),
        ({}, "config: name at least one of facts"),
        ({"edges": {"methods": ["bm25"]}}, "config: unknown field(s) edges"),
        ({"facts": []}, "facts: must be a JSON object"),
        ({"facts": {"reranker": "rrf"}}, "facts.methods: is required"),
        ({"facts": {"methods": "bm25"}}, "facts.methods: must be a list"),
        ({"facts": {"methods": ["bm25", "grep"]}}, "facts.methods[1]: 'grep' is not one of bm25, cosine, bfs"),
        ({"facts": {"methods": []}}, "facts.methods: name at least one method"),
        ({"facts": {"methods": ["bm25"], "reranker": "magic"}}, "facts.reranker: 'magic' is not one of"),
        ({"facts": {"methods": ["bm25"], "limit": 0}}, "facts.limit: 0 is outside [1, 100]"),
        ({"facts": {"methods": ["bm25"], "limit": 2.5}}, "facts.limit: must be a whole number"),
        ({"facts": {"methods": ["bm25"], "limit": True}}, "facts.limit: must be a whole number"),
        ({"facts": {"methods": ["bm25"], "mmr_lambda": 1.5}}, "facts.mmr_lambda: 1.5 is outside [0, 1]"),
        ({"facts": {"methods": ["bm25"], "min_score": "high"}}, "facts.min_score: must be a number"),
        ({"facts": {"methods": ["bm25"], "bfs_depth": 9}}, "facts.bfs_depth: 9 is outside [1, 3]"),
        ({"facts": {"methods": ["bfs"]}}, "facts.bfs_origin_ids: bfs alone needs at least one origin"),
        ({"facts": {"methods": ["bm25"], "bfs_origin_ids": ["no spaces"]}}, "facts.bfs_origin_ids[0]: must be a"),
        ({"facts": {"methods": ["bm25"], "reranker": "node_distance"}}, "facts.center_node_id: node_distance needs"),
        ({"facts": {"methods": ["bm25"], "colour": "red"}}, "facts: unknown field(s) colour"),
        ({"episodes": {"methods": ["bfs"], "bfs_origin_ids": ["a"]}}, "episodes.methods: bfs cannot search episodes"),
        (
            {"communities": {"methods": ["bm25"], "reranker": "episode_mentions"}},
            "communities.reranker: episode_mentions cannot rerank communities",
        ),
    ],
)
def test_bad_configs_name_the_field(raw: object, expected: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        input_parse(SearchConfigInput, raw, root="config")
    assert any(expected in problem for problem in caught.value.problems), caught.value.problems


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(InvalidInput) as caught:
        input_parse(
            SearchConfigInput,
            {"facts": {"methods": ["x"], "limit": -1}, "entities": {"methods": ["bm25"], "bfs_depth": 0}},
        )
    assert caught.value.problems == [
        "facts.methods[0]: 'x' is not one of bm25, cosine, bfs, ppr",
        "entities.bfs_depth: 0 is outside [1, 3]",
    ]


def test_check_refuses_configs_built_in_code() -> None:
    with pytest.raises(InvalidInput, match=r"entities\.limit"):
        search_config_check(SearchConfig(entities=ScopeConfig(methods=(SearchMethod.BM25,), limit=500)))


def test_only_keeps_one_scope_or_says_it_is_missing() -> None:
    config = SearchConfig(
        facts=ScopeConfig(methods=(SearchMethod.BM25,)), entities=ScopeConfig(methods=(SearchMethod.COSINE,))
    )
    assert set(config.only(Scope.FACTS).scopes()) == {Scope.FACTS}
    with pytest.raises(InvalidInput, match="scope: this search does not cover episodes"):
        config.only(Scope.EPISODES)


@pytest.mark.parametrize("raw", [None, "", "   ", 42, "x" * 2001])
def test_queries_must_be_text(raw: object) -> None:
    with pytest.raises(InvalidInput, match="query: must be a non-empty text"):
        parse_query(raw)
