"""The memory's searches as episode retrievers, on a small imported memory whose facts name their episodes."""

from __future__ import annotations

import pytest

from memoria.evaluation.memory import (
    episode_search,
    episodes_of_facts,
    fact_limit,
    fact_search,
    hybrid_episodes,
    hybrid_search,
)
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.reindex import group_reindex
from memoria.search.service import SearchHit

EPISODES = {
    "e1": "Oren: I repaired the old harmonium my grandmother left me.",
    "e2": "Liv: I volunteer at the lighthouse museum on Saturdays.",
    "e3": "Oren: I ran the marathon in Bergen.",
    "e4": "Oren: The weather was grey all week.",
}
ENTITIES = {"oren": "Oren", "liv": "Liv", "harmonium": "harmonium", "museum": "lighthouse museum", "bergen": "Bergen"}
# id: (source, relation, target, fact, episodes in stored order)
FACTS = {
    "f-harmonium": ("oren", "repaired", "harmonium", "Oren repaired the old harmonium", ("e1", "e4")),
    "f-bergen": ("oren", "ran_in", "bergen", "Oren ran the marathon in Bergen", ("e3", "e1")),
    "f-museum": ("liv", "volunteers_at", "museum", "Liv volunteers at the lighthouse museum", ("e2",)),
}
VALID_AT = "2024-04-04T00:00:00Z"


def ids(group: str, *keys: str) -> list[str]:
    return [f"{group}-{key}" for key in keys]


@pytest.fixture
def memory(group: str) -> str:
    nodes = [
        {"id": f"{group}-{key}", "name": key, "labels": ["Episode"], "content": text, "valid_at": VALID_AT}
        for key, text in EPISODES.items()
    ] + [{"id": f"{group}-{key}", "name": name, "labels": ["Entity"]} for key, name in ENTITIES.items()]
    edges = [
        {
            "id": f"{group}-{key}",
            "source": f"{group}-{source}",
            "target": f"{group}-{target}",
            "relation": relation,
            "weight": 0.5,
            "fact": fact,
            "episodes": ids(group, *episodes),
        }
        for key, (source, relation, target, fact, episodes) in FACTS.items()
    ]
    document = parse_graph_document({"nodes": nodes, "edges": edges}, group=group)
    graph_document_import(document=document, group=group)
    group_reindex(group=group)
    return group


def hit(group: str, key: str) -> SearchHit:
    source = FACTS[key][0]
    return SearchHit(
        group=group, id=f"{group}-{key}", name="", text="", score=1.0, source=f"{group}-{source}", target=None
    )


def test_episodes_of_facts_follow_the_facts_rank(memory: str) -> None:
    order = [hit(memory, "f-bergen"), hit(memory, "f-harmonium"), hit(memory, "f-museum")]
    assert episodes_of_facts(memory, order) == ids(memory, "e3", "e1", "e4", "e2")
    assert episodes_of_facts(memory, order[1:]) == ids(memory, "e1", "e4", "e2")
    stranger = SearchHit(group=memory, id=f"{memory}-nope", name="", text="", score=1.0, source=f"{memory}-oren")
    assert episodes_of_facts(memory, [stranger, order[2]]) == ids(memory, "e2")
    assert episodes_of_facts(memory, []) == []


def test_hybrid_fusion_by_hand() -> None:
    assert hybrid_episodes(["a", "b"], ["c", "d"], limit=4) == ["a", "c", "b", "d"]  # ties: episode search first
    assert hybrid_episodes(["a", "b", "c"], ["c", "a"], limit=2) == ["a", "c"]  # a: 1 + 1/2, c: 1/3 + 1
    assert hybrid_episodes([], ["c", "c2"], limit=5) == ["c", "c2"]
    assert fact_limit(20) == 60 and fact_limit(50) == 100


def test_retrievers_answer_with_episode_ids(memory: str) -> None:
    assert episode_search(group=memory, limit=2)("Where is the lighthouse museum?")[0] == f"{memory}-e2"
    by_facts = fact_search(group=memory, limit=2)("Who repaired the harmonium?")
    assert by_facts == ids(memory, "e1", "e4")  # the harmonium fact's two episodes, in stored order
    hybrid = hybrid_search(group=memory, limit=3)("Who repaired the harmonium?")
    assert hybrid[0] == f"{memory}-e1"  # found by episode search and through the fact
    assert f"{memory}-e4" in hybrid and len(hybrid) == 3
