"""Entity, episode and community pages and node cards, read from the real graph server."""

from __future__ import annotations

import pytest

from memoria.browse.selectors import community_page, entity_page, episode_page, node_cards, node_detail
from memoria.errors import NodeNotFound
from memoria.graph import driver
from tests.browse.graphs import entity, load, small_memory


@pytest.fixture
def memory(group: str) -> dict[str, str]:
    return small_memory(group)


def test_entity_page_has_its_facts_in_time_order_with_invalidated_ones_kept(group: str, memory: dict) -> None:
    page = entity_page(group=group, entity_id=memory["req"])
    card = page.detail.card
    assert (card.kind, card.labels, card.degree) == ("Entity", ("UserRequest",), 3)
    assert (card.community, card.community_name) == (memory["com"], "Forecasting")
    assert page.detail.summary == "A planner wants a forecast."
    # Unknown start first, then by valid_at; facts in both directions.
    assert [edge.relation for edge in page.facts] == ["answers", "delays", "uses_data"]
    assert page.fact_total == 3
    delays = page.facts[1]
    assert delays.invalidated and delays.invalid_at == "2025-04-01T00:00:00Z"
    assert (delays.source, delays.target, delays.source_name) == (memory["ev"], memory["req"], "Supplier strike")
    assert not page.facts[2].invalidated and page.facts[2].tags == ("erp", "demand_forecasting")
    assert [episode.id for episode in page.episodes] == [memory["ep2"], memory["ep1"]]  # newest first
    assert page.episode_total == 2 and page.episodes[1].excerpt.startswith("Please forecast")


def test_episode_page_lists_mentions_and_the_facts_it_produced(group: str, memory: dict) -> None:
    page = episode_page(group=group, episode_id=memory["ep1"])
    assert page.detail.valid_at == "2025-03-01T09:00:00Z" and page.detail.source == "message"
    assert page.detail.content.startswith("Please forecast")
    assert [card.name for card in page.entities] == ["ERP orders", "Forecast Q3 demand for SKU-1"]
    assert [edge.relation for edge in page.facts] == ["uses_data"]


def test_community_page_lists_members_best_connected_first(group: str, memory: dict) -> None:
    page = community_page(group=group, community_id=memory["com"])
    assert page.detail.summary == "Forecast requests and data."
    assert [card.id for card in page.members] == [memory["req"], memory["ds"], memory["ev"]]
    assert page.member_total == 3


def test_pages_refuse_other_kinds_and_other_groups(group: str, memory: dict) -> None:
    with pytest.raises(NodeNotFound):
        entity_page(group=group, entity_id=memory["ep1"])
    with pytest.raises(NodeNotFound):
        episode_page(group=group, episode_id=memory["req"])
    with pytest.raises(NodeNotFound):
        community_page(group=group, community_id="missing")
    other = f"{group}-other"
    load(other, nodes=[entity(f"{other}/x", "Elsewhere")], edges=[])
    try:
        with pytest.raises(NodeNotFound):
            node_detail(group=group, node_id=f"{other}/x")
        assert node_detail(group=other, node_id=f"{other}/x").card.name == "Elsewhere"
        cards = node_cards(group=group, ids=[memory["ds"], f"{other}/x", "nowhere", memory["req"]])
        assert [card.id for card in cards] == [memory["ds"], memory["req"]]
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=other)
