"""context_build on the search tests' memory: the budget is never exceeded, a fact that no longer holds is left out
unless `as_of` falls in its validity, and the text is the same for the same memory and request."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoria.context.service import ENTITY, EPISODE, FACT, activation_facts, context_build
from memoria.embeddings import embedder
from memoria.search.service import SearchHit
from tests.search.memory import node_id, search_memory_group

BOB_QUERY = "Bob Novak truck driver for Nordbalt Metals"


@pytest.fixture(scope="module")
def memory(graph_server: object) -> Iterator[str]:
    with search_memory_group() as group:
        yield group


@pytest.mark.parametrize("budget", [100, 140, 250, 1000])
def test_the_budget_is_never_exceeded(memory: str, budget: int) -> None:
    block = context_build(group=memory, query="safety gloves stockout in Lyon", budget_tokens=budget)
    assert block.used_tokens == embedder().token_counts([block.text])[0] <= budget
    assert all(item.line in block.text for item in block.items)
    assert {item.kind for item in block.items} <= {FACT, ENTITY, EPISODE}
    if budget == 1000:
        assert {FACT, ENTITY, EPISODE} <= {item.kind for item in block.items}
    if budget == 100:
        assert block.left_out > 0 and block.items


def test_a_fact_that_no_longer_holds_is_absent_unless_as_of_says_it_held(memory: str) -> None:
    drove, drives = node_id(memory, "drove"), node_id(memory, "drives")  # 2020–2022-06, then from 2022-06 on
    now = context_build(group=memory, query=BOB_QUERY, budget_tokens=1000)
    held = {item.id for item in now.items if item.kind == FACT}
    assert drives in held and drove not in held
    assert "truck driver for Nordbalt" not in now.text

    then = context_build(group=memory, query=BOB_QUERY, budget_tokens=1000, as_of="2021-01-01T00:00:00Z")
    held_then = {item.id for item in then.items if item.kind == FACT}
    assert drove in held_then and drives not in held_then
    line = next(item.line for item in then.items if item.id == drove)
    assert "from 2020-01-01T00:00:00Z until 2022-06-01T00:00:00Z" in line
    assert then.text.startswith("Memory as of 2021-01-01T00:00:00Z:")


def test_the_text_is_deterministic(memory: str) -> None:
    first = context_build(group=memory, query="Alice Martin and the Lyon warehouse", budget_tokens=300)
    second = context_build(group=memory, query="Alice Martin and the Lyon warehouse", budget_tokens=300)
    assert first.text == second.text and first.items == second.items
    assert [item.id for item in first.items] == [item.id for item in second.items]
    entity = next(item for item in first.items if item.id == node_id(memory, "alice"))
    assert entity.kind == ENTITY and entity.line == "- Alice Martin: Supply planner at the Lyon warehouse"


def test_facts_met_by_activation_hold_at_the_moment(memory: str) -> None:
    """From Bob, activation walks both his facts; only the one that holds at the moment is kept."""
    bob = [SearchHit(memory, node_id(memory, "bob"), "Bob Novak", "Truck driver", 1.0)]
    drove, drives = node_id(memory, "drove"), node_id(memory, "drives")
    now = {
        card.id: energy for card, energy in activation_facts(group=memory, entities=bob, moment="2026-01-01T00:00:00Z")
    }
    then = {card.id for card, _ in activation_facts(group=memory, entities=bob, moment="2021-01-01T00:00:00Z")}
    assert drives in now and drove not in now and all(energy > 0 for energy in now.values())
    assert drove in then and drives not in then
