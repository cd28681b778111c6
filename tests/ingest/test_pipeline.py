"""add_episode end to end on the real server: entities, facts, merges, invalidation, idempotence, atomicity."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memoria.errors import InvalidInput
from memoria.graph import driver
from memoria.ingest import pipeline
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.extract_entities import EntityExtraction, EntityExtractionInput, OfflineEntityExtractor
from memoria.ingest.pipeline import Extractors, episode_add, episodes_add
from memoria.interchange.exporter import graph_document_export
from tests.conftest import count_group

CONVERSATION = [
    EpisodeInput("Liv: Hi Oren! My sister Maren lives in Tallinn.", id="c1", valid_at="2024-03-01T10:00:00Z"),
    EpisodeInput("Oren: Nice! I sailed with Maren at the Harbour Regatta.", id="c2", valid_at="2024-03-02T10:00:00Z"),
    EpisodeInput("Liv: Maren lives in Tallinn, she loves it.", id="c3", valid_at="2024-03-03T10:00:00Z"),
    EpisodeInput("Liv: Maren moved to Riga last week.", id="c4", valid_at="2024-04-10T10:00:00Z"),
]
FACTS = """
MATCH (a:Memory {group_id: $group})-[r:RELATES]->(b:Memory)
RETURN a.name AS source, r.relation AS relation, b.name AS target, r.episodes AS episodes, r.valid_at AS valid_at,
       r.invalid_at AS invalid_at, r.expired_at AS expired_at, r.fact_embedding IS NOT NULL AS embedded
"""


def facts_of(group: str) -> dict[tuple[str, str, str], dict]:
    return {(row["source"], row["relation"], row["target"]): row for row in driver.read(FACTS, group=group)}


def test_a_conversation_becomes_entities_facts_and_mentions(group: str) -> None:
    results = episodes_add(group=group, episodes=CONVERSATION, batch_size=2)
    assert [result.added for result in results] == [True] * 4
    names = {row["name"] for row in driver.read("MATCH (n:Entity {group_id: $g}) RETURN n.name AS name", g=group)}
    assert {"Liv", "Oren", "Maren", "Tallinn", "Harbour Regatta", "Riga"} <= names
    mentions = driver.read("MATCH (e:Episode {id: 'c2'})-[:MENTIONS]->(n) RETURN collect(n.name) AS names", g=group)[0][
        "names"
    ]
    assert {"Oren", "Maren", "Harbour Regatta"} <= set(mentions)
    facts = facts_of(group)
    assert ("Oren", "sail_with", "Maren") in facts
    assert all(row["embedded"] for row in facts.values())
    missing = driver.read(
        "MATCH (n:Memory {group_id: $g}) WHERE coalesce(n.embedding, n.name_embedding) IS NULL RETURN n.id AS id",
        g=group,
    )
    assert missing == []


def test_a_repeated_fact_merges_its_episodes_and_a_contradiction_keeps_history(group: str) -> None:
    for episode in CONVERSATION:  # one transaction per episode, each seeing what the previous ones stored
        episode_add(group=group, episode=episode)
    facts = facts_of(group)
    tallinn = facts[("Maren", "live_in", "Tallinn")]
    assert tallinn["episodes"] == ["c1", "c3"]
    assert tallinn["valid_at"] == "2024-03-01T10:00:00Z"
    assert tallinn["invalid_at"] == "2024-04-03T00:00:00Z"  # "last week", seen from 10 April
    assert tallinn["expired_at"] is not None
    riga = facts[("Maren", "move_to", "Riga")]
    assert riga["invalid_at"] is None and riga["episodes"] == ["c4"]


def test_one_batch_and_one_by_one_give_the_same_graph(group: str) -> None:
    episodes_add(group=group, episodes=CONVERSATION, batch_size=len(CONVERSATION))
    other = f"{group}-single"
    try:
        for episode in CONVERSATION:
            episode_add(group=other, episode=replace(episode, id=f"{episode.id}-single"))
        batch, single = facts_of(group), facts_of(other)
        assert batch.keys() == single.keys()
        for key, row in batch.items():
            assert row["invalid_at"] == single[key]["invalid_at"]
            assert [episode + "-single" for episode in row["episodes"]] == single[key]["episodes"]
    finally:
        driver.write("MATCH (n:Memory {group_id: $g}) DETACH DELETE n", g=other)


class NoEmbedder:
    def embed(self, texts: list[str]) -> list[list[float]]:
        raise AssertionError(f"nothing should be embedded, asked for {texts!r}")


def test_adding_again_changes_nothing(group: str) -> None:
    episodes_add(group=group, episodes=CONVERSATION)
    before = graph_document_export(group=group)
    counts = count_group(group)
    again = episodes_add(group=group, episodes=CONVERSATION, embedder=NoEmbedder())
    assert [result.added for result in again] == [False] * 4  # and no text needed embedding
    assert episode_add(group=group, episode=CONVERSATION[0]).added is False
    assert count_group(group) == counts
    assert graph_document_export(group=group) == before


def test_episodes_without_ids_get_stable_ones(group: str) -> None:
    episode = EpisodeInput("Oren: the Harbour Regatta starts at noon.", valid_at="2024-03-02T10:00:00Z")
    first = episode_add(group=group, episode=episode)
    assert first.added and first.episode_id.startswith("ep-")
    assert episode_add(group=group, episode=episode) == replace(
        first, added=False, entities=(), entities_created=(), facts_created=(), touched_entities=()
    )
    twice = episodes_add(group=group, episodes=[episode, episode])
    assert [result.added for result in twice] == [False, False]
    other = EpisodeInput("Liv: Maren won the Harbour Regatta.", valid_at="2024-03-03T10:00:00Z")
    mixed = episodes_add(group=group, episodes=[other, episode, other], batch_size=1)
    assert [(result.episode_id, result.added) for result in mixed] == [
        (mixed[0].episode_id, True),
        (first.episode_id, False),
        (mixed[0].episode_id, False),
    ]


def test_results_name_what_changed_for_the_community_update(group: str) -> None:
    results = episodes_add(group=group, episodes=CONVERSATION)
    last = results[-1]
    assert last.facts_invalidated and last.facts_created
    ends = driver.read(
        "MATCH (a)-[r:RELATES]->(b) WHERE r.id IN $ids RETURN a.id AS a, b.id AS b", ids=list(last.facts_invalidated)
    )
    assert {ends[0]["a"], ends[0]["b"]} <= set(last.touched_entities)
    assert set(last.entities) <= set(last.touched_entities)
    assert results[0].entities_created and not set(results[2].entities_created) & set(results[0].entities_created)


def test_an_episode_stored_by_another_writer_meanwhile_is_planned_again(
    group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_persist = pipeline.plan_persist
    calls: list[int] = []

    def another_writer_first(**kwargs: object) -> object:
        if not calls:
            calls.append(1)
            episode_add(group=group, episode=CONVERSATION[1])  # lands between planning and writing
        return real_persist(**kwargs)

    monkeypatch.setattr(pipeline, "plan_persist", another_writer_first)
    results = episodes_add(group=group, episodes=CONVERSATION[:3])
    assert [result.added for result in results] == [True, False, True]
    episodes = driver.read("MATCH (e:Episode {group_id: $g}) RETURN count(e) AS c", g=group)[0]["c"]
    assert episodes == 3
    maren = driver.read("MATCH (n:Entity {group_id: $g}) WHERE n.name = 'Maren' RETURN count(n) AS c", g=group)
    assert maren == [{"c": 1}]


class LabelExtractor:
    """A stand-in extractor that proposes a kind label outside the allow-list."""

    def extract_entities(self, request: EntityExtractionInput) -> EntityExtraction:
        found = OfflineEntityExtractor().extract_entities(request)
        return replace(found, entities=tuple(replace(e, labels=("Person",)) for e in found.entities))


def test_a_bad_episode_writes_nothing_not_even_its_batch(group: str) -> None:
    with pytest.raises(InvalidInput, match="'Person' is not allowed"):
        episodes_add(group=group, episodes=CONVERSATION, extractors=Extractors(entities=LabelExtractor()))
    assert count_group(group) == {"nodes": 0, "edges": 0}


def test_an_episode_id_of_another_group_is_this_groups_own_episode(group: str) -> None:
    """Ids are keyed by group: the other group's episode of the same id is neither read nor changed."""
    other = f"{group}-other"
    try:
        episode_add(group=other, episode=CONVERSATION[0])
        theirs = driver.read("MATCH (n:Episode {group_id: $g}) RETURN n.id AS id, properties(n) AS p", g=other)
        episodes_add(group=group, episodes=CONVERSATION)
        ours = driver.read("MATCH (n:Episode {group_id: $g}) RETURN n.id AS id", g=group)
        assert {row["id"] for row in ours} == {episode.id for episode in CONVERSATION}
        assert driver.read("MATCH (n:Episode {group_id: $g}) RETURN n.id AS id, properties(n) AS p", g=other) == theirs
    finally:
        driver.write("MATCH (n:Memory {group_id: $g}) DETACH DELETE n", g=other)


def test_a_writer_merging_into_the_same_fact_meanwhile_keeps_its_episode(
    group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lost update of issue 35: two writers merge into one fact at once. The second folds its episode into
    the fact as stored when it writes, not into the list it read when it planned."""
    episode_add(group=group, episode=CONVERSATION[0])  # Maren lives in Tallinn
    real_persist = pipeline.plan_persist
    calls: list[int] = []

    def another_writer_first(**kwargs: object) -> object:
        if not calls:
            calls.append(1)
            # Says the same fact: merges into it between this batch's plan and its write.
            episode_add(group=group, episode=replace(CONVERSATION[2], id="meanwhile"))
        return real_persist(**kwargs)

    monkeypatch.setattr(pipeline, "plan_persist", another_writer_first)
    [result] = episodes_add(group=group, episodes=[CONVERSATION[2]])
    tallinn = facts_of(group)[("Maren", "live_in", "Tallinn")]
    assert tallinn["episodes"] == ["c1", "meanwhile", "c3"]
    assert result.facts_merged and calls == [1]


def test_a_curators_weight_set_meanwhile_is_folded_into_not_overwritten(
    group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    episode_add(group=group, episode=CONVERSATION[0])
    real_persist = pipeline.plan_persist

    def curator_first(**kwargs: object) -> object:
        driver.write("MATCH ()-[r:RELATES {group_id: $g, relation: 'live_in'}]->() SET r.weight = 0.9", g=group)
        return real_persist(**kwargs)

    monkeypatch.setattr(pipeline, "plan_persist", curator_first)
    episodes_add(group=group, episodes=[CONVERSATION[2]])
    weight = driver.read("MATCH ()-[r:RELATES {group_id: $g, relation: 'live_in'}]->() RETURN r.weight AS w", g=group)
    assert weight[0]["w"] > 0.9  # 0.9 seen again: noisy-or of the curator's weight, not the plan's
