"""graph_weight: connectivity blended into the reranked score, on the small memory and the real graph server."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memoria.errors import InvalidInput
from memoria.requests.vocabulary import input_parse
from memoria.search.config import (
    Reranker,
    ScopeConfig,
    SearchConfig,
    SearchMethod,
    search_config_check,
)
from memoria.search.recipes import recipe
from memoria.search.request import SearchConfigInput
from memoria.search.service import search
from tests.search.memory import FACT_ENDS, node_id

TEXT_ONLY = ScopeConfig(methods=(SearchMethod.BM25,), reranker=Reranker.RRF, limit=8)
# bob is the best text match but links to none of the other entities found; lyon links to two of them.
CROWD_QUERY = "Bob Novak truck driver Lyon gloves"


def keys(hits: tuple, group: str) -> list[str]:
    return [hit.id.removeprefix(f"{group}-") for hit in hits]


def neighbours(entity: str) -> set[str]:
    return {b if a == entity else a for a, _, b in FACT_ENDS.values() if entity in (a, b)}


def entities(query: str, group: str, **changes: object) -> tuple:
    return search(query=query, groups=[group], config=SearchConfig(entities=replace(TEXT_ONLY, **changes))).entities


def test_weight_zero_leaves_results_identical(searched: str) -> None:
    for name in ("facts_hybrid_rrf", "entities_hybrid_mmr", "facts_node_distance"):
        base = recipe(name, center_node_id=node_id(searched, "alice"))
        scope = "facts" if name.startswith("facts") else "entities"
        explicit = replace(base, **{scope: replace(getattr(base, scope), graph_weight=0.0)})
        before = search(query="Lyon warehouse safety gloves", groups=[searched], config=base)
        after = search(query="Lyon warehouse safety gloves", groups=[searched], config=explicit)
        # Each search embeds the query anew, and torch may differ in the last bits from one call to the next
        # (seen in full-suite runs), so scores are compared to 1e-6 (float32 vectors); everything else must be equal.
        assert [replace(hit, score=0.0, scores={}) for hit in getattr(after, scope)] == [
            replace(hit, score=0.0, scores={}) for hit in getattr(before, scope)
        ]
        for new, old in zip(getattr(after, scope), getattr(before, scope), strict=True):
            assert new.score == pytest.approx(old.score, abs=1e-6)
            assert new.scores == pytest.approx(old.scores, abs=1e-6)
        assert all("graph" not in hit.scores for hit in getattr(after, scope))


def test_weight_one_orders_by_links_among_candidates(searched: str) -> None:
    text_order = entities(CROWD_QUERY, searched)
    found = entities(CROWD_QUERY, searched, graph_weight=1.0)
    names = keys(text_order, searched)
    assert names[0] == "bob" and set(names) == set(keys(found, searched))
    links = {name: len(neighbours(name) & (set(names) - {name})) for name in names}
    best = max(links.values())
    assert best > 0
    for hit, name in zip(found, keys(found, searched), strict=True):
        assert hit.scores["graph"] == pytest.approx(links[name] / best)
        assert hit.score == pytest.approx(links[name] / best)
    assert [hit.score for hit in found] == sorted((hit.score for hit in found), reverse=True)
    assert keys(found, searched)[0] == max(links, key=links.get)  # the well-connected lyon above the text match
    assert keys(found, searched)[-1] == "bob"


def test_half_weight_blends_scaled_rerank_score_and_connectivity(searched: str) -> None:
    text_order = {hit.id: hit.score for hit in entities(CROWD_QUERY, searched)}
    connected = {hit.id: hit.scores["graph"] for hit in entities(CROWD_QUERY, searched, graph_weight=1.0)}
    low, high = min(text_order.values()), max(text_order.values())
    for hit in entities(CROWD_QUERY, searched, graph_weight=0.5):
        scaled = (text_order[hit.id] - low) / (high - low)
        assert hit.score == pytest.approx(0.5 * scaled + 0.5 * connected[hit.id])


def test_anchored_facts_score_one_when_touching_the_center(searched: str) -> None:
    center = "bob"
    facts = replace(TEXT_ONLY, center_node_id=node_id(searched, center))
    query = "safety gloves Lyon warehouse"
    before = search(query=query, groups=[searched], config=SearchConfig(facts=facts)).facts
    found = search(query=query, groups=[searched], config=SearchConfig(facts=replace(facts, graph_weight=1.0))).facts
    near = neighbours(center) | {center}
    expected = {key: 1.0 if {FACT_ENDS[key][0], FACT_ENDS[key][2]} & near else 0.0 for key in keys(before, searched)}
    assert 0.0 in expected.values() and 1.0 in expected.values()
    assert keys(before, searched)[0] in [key for key, value in expected.items() if value == 0.0]
    got = {key: hit.scores["graph"] for key, hit in zip(keys(found, searched), found, strict=True)}
    assert got == expected
    ones = [key for key in keys(found, searched) if expected[key] == 1.0]
    assert keys(found, searched)[: len(ones)] == ones


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1.5, "entities.graph_weight: 1.5 is outside [0, 1]"),
        (-0.1, "entities.graph_weight: -0.1 is outside [0, 1]"),
        ("high", "entities.graph_weight: must be a number"),
        (True, "entities.graph_weight: must be a number"),
    ],
)
def test_parse_rejects_bad_graph_weight(value: object, message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        input_parse(SearchConfigInput, {"entities": {"methods": ["bm25"], "graph_weight": value}})
    assert any(problem.startswith(message) for problem in caught.value.problems)


def test_check_rejects_bad_graph_weight_on_dataclass_and_non_graph_scopes() -> None:
    with pytest.raises(InvalidInput) as caught:
        search_config_check(SearchConfig(facts=replace(TEXT_ONLY, graph_weight="x")))  # type: ignore[arg-type]
    assert caught.value.problems == ["facts.graph_weight: must be a number in [0, 1]"]
    with pytest.raises(InvalidInput) as caught:
        input_parse(SearchConfigInput, {"episodes": {"methods": ["bm25"], "graph_weight": 0.5}})
    assert caught.value.problems == [
        "episodes.graph_weight: only facts and entities have graph connectivity (episodes: with ppr)"
    ]
    assert (
        input_parse(
            SearchConfigInput, {"facts": {"methods": ["bm25"], "graph_weight": 1}}
        ).search_config.facts.graph_weight
        == 1.0
    )
