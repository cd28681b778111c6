"""A search narrowed to a memory scope: only the scope's episodes, and the facts, entities and communities they
inherit it by; the best of the scope, on the views and on the server's indexes alike."""

from __future__ import annotations

import pytest

from memoria.admission.episodes import episodes_admit
from memoria.graph import driver
from memoria.requests.scope import MemoryScope
from memoria.search.config import ScopeConfig, SearchConfig, SearchMethod
from memoria.search.recipes import recipe
from memoria.search.service import Engine, search

SAID = {
    "alice": [
        "Alice Martin moved to Lyon in March and works at the Lyon harbour office.",
        "Alice Martin met Paul Girard in Lyon to plan the harbour audit.",
        "Alice Martin flew from Lyon to Rotterdam for the audit.",
    ],
    "bob": [
        "Bob Keller moved to Lyon in May and works at the Lyon rail depot.",
        "Bob Keller met Nadia Roux in Lyon about the rail timetable.",
    ],
}
MENTIONED = "MATCH (e:Episode {group_id: $group})-[:MENTIONS]->(n) WHERE e.id IN $ids RETURN DISTINCT n.id AS id"
FACT_SOURCES = "MATCH ()-[r:RELATES]->() WHERE r.group_id = $group RETURN r.id AS id, r.episodes AS episodes"


@pytest.fixture
def scoped_memory(group: str) -> dict[str, set[str]]:
    """The group with Alice's and Bob's episodes (Bob's in a session, with metadata) and one unscoped; the ids
    of each user's episodes."""
    episodes: dict[str, set[str]] = {}
    for user, texts in SAID.items():
        extra = {"session_id": "rail", "metadata": {"team": "rail"}} if user == "bob" else {}
        given = [{"content": text, "user_id": user, **extra} for text in texts]
        answer = episodes_admit(group=group, given=given, update_communities=True)
        episodes[user] = {result["episode_id"] for result in answer["episodes"]}
    episodes_admit(group=group, given={"content": "Carla Diaz moved to Lyon."}, update_communities=False)
    return episodes


def _of(group: str, episodes: set[str]) -> tuple[set[str], set[str]]:
    entities = {row["id"] for row in driver.read(MENTIONED, group=group, ids=sorted(episodes))}
    facts = {row["id"] for row in driver.read(FACT_SOURCES, group=group) if set(row["episodes"] or ()) & episodes}
    return entities, facts


@pytest.mark.parametrize("engine", [Engine.VIEW, Engine.CYPHER])
def test_a_scoped_search_finds_only_the_scopes_memories(group, scoped_memory, engine) -> None:
    config = recipe("combined_hybrid_rrf", limit=20)
    everything = search(query="Lyon harbour rail", groups=[group], config=config, engine=engine)
    assert {hit.id for hit in everything.episodes} - scoped_memory["alice"]  # unscoped, others are found
    for user, scope in [
        ("alice", MemoryScope(user_id="alice")),
        ("bob", MemoryScope(session_id="rail")),
        ("bob", MemoryScope(metadata={"team": "rail"})),
    ]:
        found = search(query="Lyon harbour rail", groups=[group], config=config, engine=engine, scope=scope)
        entities, facts = _of(group, scoped_memory[user])
        assert found.episodes and {hit.id for hit in found.episodes} <= scoped_memory[user], (user, scope)
        assert found.entities and {hit.id for hit in found.entities} <= entities, (user, scope)
        assert {hit.id for hit in found.facts} <= facts, (user, scope)
    nobody = search(query="Lyon", groups=[group], config=config, engine=engine, scope=MemoryScope(user_id="carol"))
    assert nobody.size == 0
    unscoped = search(query="Lyon", groups=[group], config=config, engine=engine, scope=MemoryScope())
    assert {hit.id for hit in unscoped.episodes} == {
        hit.id for hit in search(query="Lyon", groups=[group], config=config, engine=engine).episodes
    }


def test_the_view_answers_the_scopes_best_not_its_share_of_the_groups_best(group, scoped_memory) -> None:
    """With one method the order is the method's: the scoped top 2 is the unscoped ranking filtered, even though
    the scope's episodes are not among the group's top 2."""
    one_method = SearchConfig(episodes=ScopeConfig(methods=(SearchMethod.BM25,), limit=2))
    query = "Bob Keller rail depot timetable Alice"
    ranked = [hit.id for hit in search(query=query, groups=[group], config=replace_limit(one_method, 10)).episodes]
    assert not set(ranked[:2]) & scoped_memory["alice"]
    scoped = search(query=query, groups=[group], config=one_method, scope=MemoryScope(user_id="alice"))
    assert [hit.id for hit in scoped.episodes] == [item for item in ranked if item in scoped_memory["alice"]][:2]


def replace_limit(config: SearchConfig, limit: int) -> SearchConfig:
    assert config.episodes is not None
    return SearchConfig(episodes=ScopeConfig(methods=config.episodes.methods, limit=limit))
