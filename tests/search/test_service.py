"""search() end to end on the small memory: scopes, fused and reranked order, filters, limits, seeds, isolation."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from memoria.errors import InvalidInput
from memoria.search import rerankers, view_methods
from memoria.search.config import Reranker, ScopeConfig, SearchConfig, SearchMethod
from memoria.search.recipes import recipe
from memoria.search.service import search, search_seeds
from tests.search.memory import ENTITIES, node_id
from tests.search.test_rerankers import FakeCrossEncoder


def keys(hits: tuple, group: str) -> list[str]:
    return [hit.id.removeprefix(f"{group}-") for hit in hits]


def test_combined_search_answers_every_scope(searched: str) -> None:
    found = search(query="Lyon warehouse safety gloves", groups=[searched], config=recipe("combined_hybrid_rrf"))
    answer = found.as_dict()
    assert set(answer) == {"facts", "entities", "episodes", "communities", "engine"}
    assert all(answer[scope] for scope in answer)
    assert answer["engine"]["name"] == "view" and set(answer["engine"]["views"]) == {searched}
    fact = answer["facts"][0]
    assert set(fact) == {"group", "id", "name", "text", "score", "scores", "source", "target", "valid_at", "invalid_at"}
    assert set(answer["entities"][0]) == {"group", "id", "name", "text", "score", "scores"}
    assert {hit["group"] for scope in ("facts", "entities", "episodes") for hit in answer[scope]} == {searched}
    assert keys(found.episodes, searched)[0] == "ep1"
    assert keys(found.communities, searched)[0] == "safety"
    assert {"lyon", "gloves"} <= set(keys(found.entities, searched)[:3])


def test_rrf_scores_are_the_fused_ranks(searched: str) -> None:
    found = search(query="Nordbalt Metals steel bolt kit", groups=[searched], config=recipe("facts_hybrid_rrf"))
    top = found.facts[0]
    assert keys(found.facts, searched)[0] == "supplies"
    assert set(top.scores) == {"bm25", "cosine"}
    assert top.score == 2.0  # first in both lists: 1/1 + 1/1
    assert [hit.score for hit in found.facts] == sorted((hit.score for hit in found.facts), reverse=True)


def test_limit_and_min_score(searched: str) -> None:
    config = recipe("facts_hybrid_rrf", limit=3)
    assert len(search(query="Lyon warehouse gloves", groups=[searched], config=config).facts) == 3
    strict = SearchConfig(facts=replace(config.facts, min_score=1.0))
    hits = search(query="Lyon warehouse gloves", groups=[searched], config=strict).facts
    assert hits and all(hit.score >= 1.0 for hit in hits)


def test_mmr_spreads_the_top_results(searched: str) -> None:
    query = "Lyon warehouse gloves shortage in March"
    fused = search(query=query, groups=[searched], config=recipe("facts_hybrid_rrf")).facts
    assert set(keys(fused, searched)[:2]) == {"ran-out", "stockout"}  # near twins lead the fused list
    diverse = search(query=query, groups=[searched], config=recipe("facts_hybrid_mmr")).facts
    assert keys(diverse, searched)[0] in {"ran-out", "stockout"}
    assert keys(diverse, searched)[1] not in {"ran-out", "stockout"}  # the twin waits
    assert diverse[0].score > diverse[1].score


def test_node_distance_ranks_near_nodes_first(searched: str) -> None:
    config = recipe("entities_node_distance", center_node_id=node_id(searched, "alice"))
    hits = search(query="Rotterdam port and the Lyon warehouse", groups=[searched], config=config).entities
    order = keys(hits, searched)
    assert order.index("lyon") < order.index("rotterdam")  # 1 hop before 3 hops, whatever the query says
    scores = {key: hit.score for key, hit in zip(order, hits, strict=True)}
    assert scores["lyon"] == 0.5 and scores["rotterdam"] == 0.25
    facts = search(
        query="Rotterdam port Lyon warehouse",
        groups=[searched],
        config=recipe("facts_node_distance", center_node_id=node_id(searched, "alice")),
    ).facts
    by_fact = {key: hit.score for key, hit in zip(keys(facts, searched), facts, strict=True)}
    assert by_fact["works"] == 1.0  # touches the center: 0 hops
    assert by_fact["arrive"] == pytest.approx(1 / 3)  # gloves, 2 hops away, is its nearer end


def test_episode_mentions_put_much_mentioned_entities_first(searched: str) -> None:
    hits = search(
        query="Alice Lyon gloves Rotterdam Nordbalt", groups=[searched], config=recipe("entities_episode_mentions")
    ).entities
    counts = {"alice": 2, "gloves": 2, "lyon": 1, "rotterdam": 1, "nordbalt": 1, "bolts": 1, "bob": 0, "party": 0}
    assert [hit.score for hit in hits] == [counts[key] for key in keys(hits, searched)]
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    facts = search(query="Alice Lyon", groups=[searched], config=recipe("facts_episode_mentions")).facts
    assert dict(zip(keys(facts, searched), (h.score for h in facts), strict=True))["works"] == 3.0  # alice 2 + lyon 1


def test_date_filter_applies_to_facts(searched: str) -> None:
    config = recipe("facts_hybrid_rrf", limit=20)
    then = keys(
        search(query="Bob Novak", groups=[searched], config=config, valid_at="2021-05-01T00:00:00+02:00").facts,
        searched,
    )
    assert "drove" in then and "drives" not in then
    now = search(query="Bob Novak", groups=[searched], config=config, valid_at=datetime(2025, 1, 1, tzinfo=UTC)).facts
    assert "drives" in keys(now, searched) and "drove" not in keys(now, searched)


def test_bfs_beside_other_methods_starts_from_their_best(searched: str) -> None:
    config = SearchConfig(facts=ScopeConfig(methods=(SearchMethod.BM25, SearchMethod.BFS), bfs_depth=1, limit=20))
    hits = search(query="Nordbalt Metals", groups=[searched], config=config).facts
    walked = {key for key, hit in zip(keys(hits, searched), hits, strict=True) if "bfs" in hit.scores}
    # the best BM25 facts touch nordbalt, bob and bolts: their facts are one hop away
    assert {"supplies", "drove", "shipped", "drives"} <= walked


def test_cross_encoder_reranks_when_a_model_is_there(
    searched: str, monkeypatch: pytest.MonkeyPatch, settings, tmp_path
) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = str(tmp_path)  # its recipes are offered; the model is the stand-in
    monkeypatch.setattr(rerankers, "cross_encoder_model", lambda **_: FakeCrossEncoder())
    hits = search(query="truck driver", groups=[searched], config=recipe("facts_hybrid_cross_encoder")).facts
    assert keys(hits, searched)[0] == "drove" and hits[0].score == 2.0


def test_cross_encoder_without_a_model_is_refused_before_searching(searched: str, settings) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = ""
    config = SearchConfig(entities=ScopeConfig(methods=(SearchMethod.BM25,), reranker=Reranker.CROSS_ENCODER))
    with pytest.raises(InvalidInput, match=r"entities\.reranker: cross_encoder is unavailable here: set MEMORIA_CROSS"):
        search(query="x", groups=[searched], config=config)


def test_search_seeds_are_entities_scored_into_0_1(searched: str) -> None:
    seeds = search_seeds(group=searched, query="Lyon warehouse", limit=3)
    assert len(seeds) == 3
    assert seeds[0] == (node_id(searched, "lyon"), 1.0)
    assert all(0 < score <= 1 for _, score in seeds)
    assert {seed for seed, _ in seeds} <= {node_id(searched, key) for key in ENTITIES}


def test_results_never_include_another_group(searched: str, other: str) -> None:
    config = recipe("combined_hybrid_rrf", limit=50)
    found = search(query="Lyon warehouse gloves Rotterdam Nordbalt Bob Alice", groups=[searched], config=config)
    hits = [*found.facts, *found.entities, *found.episodes, *found.communities]
    assert len(hits) > 20 and all(hit.id.startswith(f"{searched}-") for hit in hits)
    both = search(query="Lyon warehouse", groups=[searched, other], config=recipe("entities_hybrid_rrf")).entities
    assert {hit.id.split("-")[1] for hit in both} == {searched.split("-")[1], other.split("-")[1]}


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"groups": []}, "groups: give 1–50 group names"),
        ({"groups": "g"}, "groups: give"),
        ({"groups": ["bad group"]}, "groups: 'bad group' must be"),
        ({"groups": ["g\n"]}, "groups: 'g\\n' must be"),
        ({"valid_at": "yesterday"}, "valid_at: 'yesterday' is not an ISO 8601"),
        ({"valid_at": "2024-01-01T00:00:00"}, "valid_at:"),
        ({"query": "  "}, "query: must be a non-empty text"),
    ],
)
def test_bad_arguments_are_invalid_input(kwargs: dict, expected: str) -> None:
    arguments = {"query": "gloves", "groups": ["g"], "config": recipe("facts_hybrid_rrf"), **kwargs}
    with pytest.raises(InvalidInput) as caught:
        search(**arguments)
    assert expected in str(caught.value)


def test_a_config_built_in_code_is_checked_too() -> None:
    config = SearchConfig(facts=ScopeConfig(methods=(SearchMethod.BM25,), reranker=Reranker.NODE_DISTANCE))
    with pytest.raises(InvalidInput, match="center_node_id"):
        search(query="gloves", groups=["g"], config=config)


def test_a_search_on_views_alone_runs_in_the_callers_thread(searched: str, monkeypatch) -> None:
    threads: list[str] = []
    bm25 = view_methods.bm25

    def bm25_noting_thread(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return bm25(*args, **kwargs)

    monkeypatch.setattr(view_methods, "bm25", bm25_noting_thread)
    query = "Nordbalt Metals steel bolt kit"
    here = search(query=query, groups=[searched], config=recipe("facts_hybrid_rrf"))
    walking = recipe("facts_node_distance", center_node_id=node_id(searched, "lyon"))  # reads the server
    search(query=query, groups=[searched], config=walking)
    assert threads[0] == threading.current_thread().name
    assert threads[1].startswith("memoria-search")
    assert keys(here.facts, searched)[0] == "supplies"


def test_a_similarity_floor_lets_nonsense_find_nothing(searched: str) -> None:
    """Cosine always has nearest vectors, so without a floor a nonsense query still fills its list; BM25 matches
    none of its words. With the floor that the evaluation chose (docs/search.md), cosine drops them too."""
    config = recipe("episodes_hybrid_rrf")
    assert search(query="zzqqxxyy", groups=[searched], config=config).episodes  # no floor: random episodes
    floored = SearchConfig(episodes=replace(config.episodes, sim_min_score=0.3))
    assert search(query="zzqqxxyy", groups=[searched], config=floored).episodes == ()
    real = search(query="Lyon warehouse safety gloves", groups=[searched], config=floored).episodes
    assert keys(real, searched)[0] == "ep1"
