"""Neighbourhoods a page at a time (strongest first, across link kinds), filters, and subgraphs."""

from __future__ import annotations

import pytest

from memoria.browse.filters import EdgeFilter
from memoria.browse.neighbourhood import neighbourhood, subgraph
from memoria.errors import InvalidInput, NodeNotFound
from memoria.requests.moment import AsOfInput
from tests.browse.graphs import small_memory


@pytest.fixture
def memory(group: str) -> dict[str, str]:
    return small_memory(group)


def test_a_hub_comes_in_pages_strongest_first(group: str, memory: dict) -> None:
    seen: list[str] = []
    pages = []
    for offset in (0, 3, 6):
        page = neighbourhood(group=group, node_id=memory["hub"], offset=offset, limit=3)
        pages.append(page)
        seen += [node.id for node in page.nodes]
    assert [page.links for page in pages] == [3, 3, 1]
    assert [page.more for page in pages] == [4, 1, 0]
    assert all(page.total == 7 for page in pages)
    assert seen == [memory[f"leaf{i}"] for i in range(6, -1, -1)]  # leaf6 weighs most
    weights = [edge.weight for page in pages for edge in page.edges]
    assert weights == sorted(weights, reverse=True)


def test_a_page_joins_the_neighbours_facts_and_cards(group: str, memory: dict) -> None:
    page = neighbourhood(group=group, node_id=memory["req"])
    assert page.center.id == memory["req"]
    assert {node.id for node in page.nodes} == {memory["ds"], memory["ev"], memory["ans"]}
    relations = {edge.relation for edge in page.edges}
    assert relations == {"uses_data", "delays", "answers", "reports"}  # ds→ev joins two neighbours
    assert page.links == 3 and page.total == 3
    ds = next(node for node in page.nodes if node.id == memory["ds"])
    assert (ds.labels, ds.community) == (("DataSource",), memory["com"])


def test_pages_run_across_link_kinds(group: str, memory: dict) -> None:
    links = ("RELATES", "MENTIONS", "HAS_MEMBER")
    whole = neighbourhood(group=group, node_id=memory["req"], links=links)
    assert whole.total == 3 + 2 + 1
    assert [edge.kind for edge in whole.edges].count("MENTIONS") == 2
    member = next(edge for edge in whole.edges if edge.kind == "HAS_MEMBER")
    assert (member.source, member.target) == (memory["com"], memory["req"])
    # A page that starts among the facts and ends among the mentions.
    window = neighbourhood(group=group, node_id=memory["req"], links=links, offset=2, limit=2)
    kinds = [edge.kind for edge in window.edges if edge.source == memory["req"] or edge.target == memory["req"]]
    assert window.links == 2 and sorted(kinds) == ["MENTIONS", "RELATES"] and window.more == 2
    episode = neighbourhood(group=group, node_id=memory["ep1"], links=("MENTIONS",))
    assert {node.id for node in episode.nodes} == {memory["req"], memory["ds"]}


def test_filters_apply_to_pages_and_totals(group: str, memory: dict) -> None:
    in_may = neighbourhood(
        group=group,
        node_id=memory["req"],
        edge_filter=EdgeFilter(moment=AsOfInput(as_of="2025-05-01T00:00:00Z").resolved()),
    )
    assert {edge.relation for edge in in_may.edges} == {"uses_data", "answers"} and in_may.total == 2
    in_february = EdgeFilter(moment=AsOfInput(as_of="2025-02-15T00:00:00Z").resolved())
    # ERP orders joins the request only in March, so its report of the strike is not among the neighbours yet.
    february = neighbourhood(group=group, node_id=memory["req"], edge_filter=in_february)
    assert {edge.relation for edge in february.edges} == {"delays", "answers"}
    heavy = neighbourhood(group=group, node_id=memory["req"], edge_filter=EdgeFilter(min_weight=0.55))
    assert {edge.relation for edge in heavy.edges} == {"uses_data", "answers"}
    uncategorised = EdgeFilter(categories=("NONE", "TEMPORAL"))
    page = neighbourhood(group=group, node_id=memory["ev"], edge_filter=uncategorised)
    assert {edge.relation for edge in page.edges} == {"reports", "delays"}


def test_subgraph_keeps_the_facts_among_the_chosen(group: str, memory: dict) -> None:
    found = subgraph(group=group, ids=[memory["req"], memory["ds"], memory["ev"], "elsewhere"])
    assert [node.id for node in found.nodes] == [memory["req"], memory["ds"], memory["ev"]]
    assert {edge.relation for edge in found.edges} == {"uses_data", "delays", "reports"}


def test_bad_requests_are_refused(group: str, memory: dict) -> None:
    with pytest.raises(NodeNotFound):
        neighbourhood(group=group, node_id="nowhere")
    with pytest.raises(InvalidInput, match="links"):
        neighbourhood(group=group, node_id=memory["req"], links=("KNOWS",))
    with pytest.raises(InvalidInput, match="limit"):
        neighbourhood(group=group, node_id=memory["req"], limit=0)
    with pytest.raises(InvalidInput, match="ids"):
        subgraph(group=group, ids=[f"n{i}" for i in range(501)])
