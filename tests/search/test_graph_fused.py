"""Recipe episodes_graph_fused: cosine fused with PageRank from the query's linked entities, on a two-hop
memory and the real graph server."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from memoria.errors import InvalidInput
from memoria.projection.cache import projection_cache
from memoria.requests.vocabulary import input_parse
from memoria.search.config import (
    Reranker,
    ScopeConfig,
    SearchConfig,
    SearchMethod,
    search_config_check,
)
from memoria.search.recipes import offered_recipes, recipe
from memoria.search.request import SearchConfigInput
from memoria.search.service import search
from tests.linking.memory import QUESTION, two_hop_group

RECIPE = "episodes_graph_fused"
GATED = "episodes_hybrid_graph_gated"


@pytest.fixture(scope="module")
def two_hop(graph_server: object) -> Iterator[str]:
    with two_hop_group() as group:
        yield group


def episodes(group: str, query: str, config: SearchConfig) -> list[str]:
    return [hit.id.removeprefix(f"{group}-") for hit in search(query=query, groups=[group], config=config).episodes]


def cosine_alone(limit: int) -> SearchConfig:
    fused = recipe(RECIPE, limit=limit)
    assert fused.episodes is not None
    return replace(fused, episodes=replace(fused.episodes, methods=(SearchMethod.COSINE,), graph_weight=0.0))


def test_the_recipe_is_offered_and_walks_from_the_named_entity(two_hop: str) -> None:
    assert RECIPE in offered_recipes()
    found = search(query=QUESTION, groups=[two_hop], config=recipe(RECIPE, limit=6)).episodes
    by_id = {hit.id.removeprefix(f"{two_hop}-"): hit for hit in found}
    # The passage about the river names neither the person nor "born", and cosine puts it below a passage about
    # the Rhine: PPR reaches it from Ada Lindqvist through Vaasa, and it climbs.
    alone = episodes(two_hop, QUESTION, cosine_alone(6))
    assert list(by_id).index("ep-river") < alone.index("ep-river")
    assert next(iter(by_id)) == "ep-born"
    assert by_id["ep-river"].scores["ppr"] > 0 and by_id["ep-born"].scores["ppr"] > 0
    assert "ppr" not in by_id["ep-rhine"].scores  # not reachable from the linked entity
    assert all(hit.text for hit in found)  # episodes found by PPR alone carry their content too


def test_graph_weight_one_orders_by_pagerank(two_hop: str) -> None:
    config = recipe(RECIPE, limit=6)
    assert config.episodes is not None
    found = search(
        query=QUESTION, groups=[two_hop], config=replace(config, episodes=replace(config.episodes, graph_weight=1.0))
    ).episodes
    ppr = [hit.scores.get("ppr", 0.0) for hit in found]
    assert ppr == sorted(ppr, reverse=True)


def test_a_query_that_names_nothing_ranks_as_cosine(two_hop: str) -> None:
    query = "which waters pass the town of that painter"
    assert episodes(two_hop, query, recipe(RECIPE, limit=4)) == episodes(two_hop, query, cosine_alone(4))


def gated(limit: int, share: float | None) -> SearchConfig:
    config = recipe(GATED, limit=limit)
    assert config.episodes is not None
    return replace(config, episodes=replace(config.episodes, ppr_seed_share=share))


def test_the_gated_recipe_walks_from_a_rare_entity(two_hop: str) -> None:
    # Ada Lindqvist is in one episode of six: a share of 1/6 lets her seed, and the river's passage climbs above
    # where the text methods alone put it.
    assert GATED in offered_recipes()
    hybrid = episodes(two_hop, QUESTION, recipe("episodes_hybrid_rrf", limit=6))
    found = search(query=QUESTION, groups=[two_hop], config=gated(6, 0.2)).episodes
    order = [hit.id.removeprefix(f"{two_hop}-") for hit in found]
    assert found[0].scores["ppr"] > 0 and "bm25" in found[0].scores
    assert order.index("ep-river") < hybrid.index("ep-river")
    assert order == episodes(two_hop, QUESTION, gated(6, None))  # no gate: every linked entity seeds


def test_the_shut_gate_ranks_exactly_as_the_default_hybrid(two_hop: str) -> None:
    # At a share of 1/10 even Ada Lindqvist (1/6) is too common: no seed, no walk, the hybrid's ranking and scores.
    hybrid = search(query=QUESTION, groups=[two_hop], config=recipe("episodes_hybrid_rrf", limit=6)).episodes
    found = search(query=QUESTION, groups=[two_hop], config=gated(6, 0.1)).episodes
    assert [hit.id for hit in found] == [hit.id for hit in hybrid]
    assert all("ppr" not in hit.scores for hit in found)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"methods": (SearchMethod.COSINE,)}, "graph_weight: only facts and entities"),
        ({"ppr_damping": 1.0}, "ppr_damping: must be a number strictly between 0 and 1"),
        ({"reranker": Reranker.MMR}, "with ppr the text methods are fused by rrf"),
        ({"ppr_seed_share": 0.0}, r"ppr_seed_share: must be a number in \(0, 1\]"),
        ({"ppr_seed_share": 1.5}, r"ppr_seed_share: must be a number in \(0, 1\]"),
        ({"ppr_seed_share": True}, r"ppr_seed_share: must be a number in \(0, 1\]"),
        (
            {"methods": (SearchMethod.BM25, SearchMethod.COSINE), "graph_weight": 0.0, "ppr_seed_share": 0.1},
            "ppr_seed_share: only used by the ppr method",
        ),
    ],
)
def test_bad_configs_are_refused(changes: dict, problem: str) -> None:
    config = recipe(RECIPE)
    assert config.episodes is not None
    with pytest.raises(InvalidInput, match=problem):
        search_config_check(replace(config, episodes=replace(config.episodes, **changes)))


def test_ppr_searches_episodes_only() -> None:
    with pytest.raises(InvalidInput, match="ppr cannot search facts"):
        search_config_check(SearchConfig(facts=ScopeConfig(methods=(SearchMethod.PPR,))))


def test_parsed_from_json() -> None:
    parsed = input_parse(
        SearchConfigInput,
        {
            "episodes": {
                "methods": ["cosine", "ppr"],
                "graph_weight": 0.5,
                "ppr_damping": 0.8,
                "ppr_seed_share": 0.1,
                "limit": 5,
            }
        },
    ).search_config
    assert parsed.episodes == ScopeConfig(
        methods=(SearchMethod.COSINE, SearchMethod.PPR), graph_weight=0.5, ppr_damping=0.8, ppr_seed_share=0.1, limit=5
    )


def test_a_bad_seed_share_in_json_names_its_field() -> None:
    with pytest.raises(InvalidInput, match=r"episodes.ppr_seed_share: must be a number in \(0, 1\]"):
        input_parse(SearchConfigInput, {"episodes": {"methods": ["bm25", "cosine", "ppr"], "ppr_seed_share": 2}})


def test_a_walk_whose_graph_is_still_loading_is_skipped_not_waited_for(two_hop: str, settings) -> None:
    # No projection in memory and no time to wait for one: the text methods answer, as the shut gate's do, rather
    # than the default episodes recipe answering 503; the load goes on, and a later search walks.
    settings.MEMORIA_PROJECTION_WAIT_SECONDS = 0
    projection_cache().forget(two_hop)
    hybrid = search(query=QUESTION, groups=[two_hop], config=recipe("episodes_hybrid_rrf", limit=6)).episodes
    found = search(query=QUESTION, groups=[two_hop], config=gated(6, 0.2)).episodes
    assert [hit.id for hit in found] == [hit.id for hit in hybrid]
    assert all("ppr" not in hit.scores for hit in found)
    settings.MEMORIA_PROJECTION_WAIT_SECONDS = 30
    walked = search(query=QUESTION, groups=[two_hop], config=gated(6, 0.2)).episodes
    assert walked[0].scores["ppr"] > 0


def test_a_walking_search_reads_the_group_stamps_once_and_the_walks_texts_from_its_views(
    two_hop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The views' catch-up and the walk's projection both need the group's version: one read of the stamps serves
    # both (each used to make its own round trip), and the passages the walk finds show the views' texts, so the
    # server is not asked for them either.
    from memoria.graph import driver, versions
    from memoria.ppr import search_walk
    from memoria.projection import cache as projection_module
    from memoria.readmodel import group_view
    from memoria.search import service as search_module

    config = gated(6, 0.2)
    search(query=QUESTION, groups=[two_hop], config=config)  # views and projection loaded
    stamp_reads: list[str] = []
    text_reads: list[object] = []
    real_stamps, real_read = versions.group_stamps, driver.read

    def counted_stamps(*, group: str) -> dict[str, int]:
        stamp_reads.append(group)
        return real_stamps(group=group)

    def version_read(*, group: str) -> object:
        raise AssertionError("the walk read the group's version a second time")

    def watched_read(query: str, **parameters: object) -> list:
        if query == search_walk.EPISODE_TEXTS:
            text_reads.append(parameters["ids"])
        return real_read(query, **parameters)

    monkeypatch.setattr(search_module, "group_stamps", counted_stamps)
    monkeypatch.setattr(group_view, "group_stamps", counted_stamps)
    monkeypatch.setattr(projection_module, "group_version", version_read)
    monkeypatch.setattr(search_walk.driver, "read", watched_read)
    found = search(query=QUESTION, groups=[two_hop], config=config).episodes
    assert found[0].scores["ppr"] > 0
    assert stamp_reads == [two_hop]
    assert text_reads == []
    assert all(hit.text for hit in found)


def test_the_cypher_engine_reads_the_walks_texts_from_the_server(two_hop: str) -> None:
    from memoria.search.service import Engine

    found = search(query=QUESTION, groups=[two_hop], config=gated(6, 0.2), engine=Engine.CYPHER).episodes
    by_id = {hit.id.removeprefix(f"{two_hop}-"): hit for hit in found}
    assert by_id["ep-river"].scores["ppr"] > 0 and by_id["ep-river"].text
    viewed = {hit.id: hit.text for hit in search(query=QUESTION, groups=[two_hop], config=gated(6, 0.2)).episodes}
    assert {hit.id: hit.text for hit in found} == viewed  # the same passages, showing the same texts
