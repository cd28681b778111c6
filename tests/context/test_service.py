"""context_build on real memories: within budget in o200k tokens whatever the memory holds, no line twice, every
item naming its episodes, and `as_of` leaving out later facts, episodes and summaries."""

from __future__ import annotations

import base64
import random
import uuid
from collections.abc import Iterator

import pytest

from memoria.context.service import CHAIN, ENTITY, EPISODE, FACT, context_build
from memoria.context.sources import fact_cards, walk
from memoria.context.tokens import token_count
from memoria.graph import driver
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.reindex import group_reindex
from memoria.search.service import SearchHit
from tests.search.memory import node_id, search_memory_group

BOB_QUERY = "Bob Novak truck driver for Nordbalt Metals"


@pytest.fixture(scope="module")
def memory(graph_server: object) -> Iterator[str]:
    with search_memory_group() as group:
        yield group


def _stored(document: dict, *, names: dict[str, str]) -> Iterator[str]:
    """The document imported and embedded; then `names` given to nodes as they are, past the importer's limits
    (what ingestion once accepted from an episode)."""
    group = f"c-{uuid.uuid4().hex[:10]}"
    graph_document_import(document=parse_graph_document(document, group=group), group=group)
    group_reindex(group=group)
    for key, name in names.items():
        driver.write("MATCH (n:Memory {group_id: $group, id: $id}) SET n.name = $name", group=group, id=key, name=name)
    try:
        yield group
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


def _entity(key: str, name: str, summary: str = "") -> dict:
    return {"id": key, "name": name, "labels": ["Entity"], "summary": summary}


def _episode(key: str, content: str, day: str) -> dict:
    return {"id": key, "name": key, "labels": ["Episode"], "content": content, "valid_at": f"{day}T09:30:00Z"}


def _fact(key: str, source: str, target: str, text: str, episodes: list[str], day: str = "2025-01-10") -> dict:
    return {
        "id": key,
        "source": source,
        "target": target,
        "relation": "replaced",
        "weight": 0.5,
        "tags": [],
        "fact": text,
        "valid_at": f"{day}T00:00:00Z",
        "episodes": episodes,
    }


@pytest.fixture(scope="module")
def plant(graph_server: object) -> Iterator[str]:
    """A maintenance log: one fact stated three times (three episodes), a fact its episode says word for word, a
    summary written from an episode of 2025, and a hostile entity (a 100,000-character name, base64, CJK, emoji)."""
    rng = random.Random(29)
    hostile = "Pump" + "x" * 100_000
    document = {
        "nodes": [
            _entity("bob", "Bob Chen", "Maintenance technician at the Gdansk plant since 2025"),
            _entity("pump", "Pump P-7", "The coolant pump of line 3, replaced in January 2025"),
            _entity(
                "weird", "Pump weird", base64.b64encode(rng.randbytes(1500)).decode() + " 冷却泵" * 200 + " 🔧" * 300
            ),
            _episode("e1", "Bob Chen replaced the coolant pump P-7 on line 3 this morning.", "2025-01-10"),
            _episode("e2", "Shift report: Bob Chen replaced the coolant pump P-7.", "2025-01-11"),
            _episode("e3", "Audit: the coolant pump P-7 was replaced by Bob Chen.", "2025-01-12"),
            _episode("e0", "In 2019 the coolant pump P-7 of line 3 was installed by the vendor.", "2019-05-02"),
            _episode("e4", "The pump " + "y" * 60_000 + " " + "冷却泵漏水" * 400 + " 🔧🔥" * 400, "2025-02-01"),
        ],
        "edges": [
            _fact("f1", "bob", "pump", "Bob Chen replaced the coolant pump P-7", ["e1"]),
            _fact("f2", "bob", "pump", "Bob Chen replaced the coolant pump P-7", ["e2"]),
            _fact("f3", "bob", "pump", "Bob Chen replaced the coolant pump P-7.", ["e3"]),
            _fact("f4", "weird", "pump", "z" * 90_000 + " leaks " * 50, ["e4"], "2025-02-01"),
        ],
        "mentions": [
            {"episode": episode, "entity": entity}
            for episode, entities in {
                "e1": ("bob", "pump"),
                "e2": ("bob",),
                "e3": ("pump",),
                "e0": ("pump",),
                "e4": ("weird",),
            }.items()
            for entity in entities
        ],
    }
    yield from _stored(document, names={"weird": hostile})


@pytest.mark.parametrize("budget", [100, 140, 250, 1000, 4000])
def test_the_budget_is_never_exceeded_in_o200k_tokens(memory: str, plant: str, budget: int) -> None:
    for group, query in ((memory, "safety gloves stockout in Lyon"), (plant, "who replaced the coolant pump Pump")):
        block = context_build(group=group, query=query, budget_tokens=budget)
        assert block.used_tokens == token_count(block.text) <= budget
        assert block.items, block.text
        lines = block.text.splitlines()
        assert all(len(line) < 1200 for line in lines)  # a 100,000-character name is cut, never carried whole
        assert all(lines[item.line].startswith("- ") for item in block.items)
        assert sum(item.tokens for item in block.items) <= block.used_tokens


def test_no_line_twice_and_identical_facts_are_one_line(plant: str) -> None:
    block = context_build(group=plant, query="Who replaced the coolant pump P-7?", budget_tokens=2000)
    lines = [line for line in block.text.splitlines() if line.startswith("- ")]
    assert len(lines) == len(set(lines))
    assert sum("replaced the coolant pump P-7" in line for line in lines if "+" not in line) <= 3  # one per episode
    shown_facts = [item for item in block.items if item.kind == FACT]
    under = {fact for item in block.items for fact in item.facts}
    # f1 is said word for word by its episode on its day: not repeated. f2 and f3 add a date to theirs (the day
    # before), and say the same as each other: shown once, under the first of their episodes.
    assert not {"f1", "f2", "f3"} & {item.id for item in shown_facts}
    assert "f1" not in under and len(under & {"f2", "f3"}) == 1
    assert block.text.count("+ Bob Chen replaced the coolant pump P-7") == 1
    episodes = [item for item in block.items if item.kind == EPISODE]
    assert {"e1", "e2", "e3"} <= {item.id for item in episodes}
    assert "2025-01-10 e1: Bob Chen replaced" in block.text  # a compact date, no time where none is needed


def test_every_json_item_names_its_episodes(memory: str, plant: str) -> None:
    block = context_build(group=plant, query="coolant pump Pump leaks", budget_tokens=2000)
    answer = block.as_dict()
    assert answer["items"] and all(isinstance(item["episodes"], list) for item in answer["items"])
    for item in answer["items"]:
        assert all(set(episode) == {"id", "name"} for episode in item["episodes"])
        if item["kind"] in (EPISODE, ENTITY):
            assert item["episodes"], item
        if item["kind"] == EPISODE:
            assert item["episodes"] == [{"id": item["id"], "name": item["id"]}]
    entity = next(item for item in answer["items"] if item["kind"] == ENTITY)
    assert {episode["id"] for episode in entity["episodes"]} <= {"e0", "e1", "e2", "e3", "e4"}
    lines = block.text.splitlines()
    assert all(
        lines[item["line"]] not in answer["text"].replace(lines[item["line"]], "", 1) for item in answer["items"]
    )
    assert "line" in answer["items"][0] and isinstance(answer["items"][0]["line"], int)  # the line once, in text


def test_as_of_leaves_out_later_facts_episodes_and_summaries(memory: str, plant: str) -> None:
    drove, drives = node_id(memory, "drove"), node_id(memory, "drives")  # 2020–2022-06, then from 2022-06 on
    now = context_build(group=memory, query=BOB_QUERY, budget_tokens=1000)
    held = {item.id for item in now.items if item.kind == FACT}
    assert drives in held and drove not in held
    then = context_build(group=memory, query=BOB_QUERY, budget_tokens=1000, as_of="2021-01-01T00:00:00Z")
    assert drove in {item.id for item in then.items if item.kind == FACT}
    assert "(2020-01-01 to 2022-06-01)" in then.text and then.text.startswith("Memory as of 2021-01-01")
    assert not [item for item in then.items if item.kind == EPISODE]  # every episode is of 2024
    summaries = {item.id for item in then.items if item.kind == ENTITY}
    assert node_id(memory, "alice") not in summaries  # mentioned by a 2024 episode: her summary is from then

    before = context_build(group=plant, query="the coolant pump P-7", budget_tokens=2000, as_of="2020-01-01T00:00:00Z")
    assert {item.id for item in before.items if item.kind == EPISODE} == {"e0"}
    assert "2025" not in before.text and "replaced in January" not in before.text
    assert not [item for item in before.items if item.kind in (FACT, CHAIN)]  # every fact began in 2025


def test_the_text_is_deterministic(memory: str) -> None:
    first = context_build(group=memory, query="Alice Martin and the Lyon warehouse", budget_tokens=300)
    second = context_build(group=memory, query="Alice Martin and the Lyon warehouse", budget_tokens=300)
    assert first.text == second.text and first.items == second.items


def test_the_walk_keeps_what_holds_at_the_moment_and_its_chains_in_hop_order(memory: str) -> None:
    """From Bob, activation walks both his facts; only the one that holds at the moment is kept."""
    bob = [SearchHit(memory, node_id(memory, "bob"), "Bob Novak", "Truck driver", 1.0)]
    drove, drives = node_id(memory, "drove"), node_id(memory, "drives")
    now = walk(group=memory, entities=bob, moment="2026-01-01T00:00:00Z")
    then = walk(group=memory, entities=bob, moment="2021-01-01T00:00:00Z")
    assert drives in now.energy and drove not in now.energy and all(energy > 0 for energy in now.energy.values())
    assert drove in then.energy and drives not in then.energy
    assert now.chains and all(chain[0] == drives for chain in now.chains)  # from Bob, the first hop is his fact
    held = fact_cards(memory, {**now.ends, **then.ends}, "2026-01-01T00:00:00Z")
    assert drives in held and drove not in held  # read back, a fact is kept only when it holds
    assert held[drives].fact == "Bob Novak drives trucks to the Rotterdam port"
