"""Phase 8 on the real server: each committed batch refreshes its communities once, and concurrent batches both land."""

from __future__ import annotations

import threading

import pytest

from memoria.embeddings import embedder
from memoria.graph import driver, kinds
from memoria.ingest.communities import communities_build
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.pipeline import EpisodeResult, Extractors, episodes_add
from memoria.llm.client import ChatClient, LlmSettings
from memoria.llm.prompts import summarize_community
from tests.ingest.test_communities import current_text
from tests.llm.fake_openai import Reply, fake_openai
from tests.llm.scripted import reading_model

BASE = [
    EpisodeInput("Liv: My sister Maren lives in Tallinn.", id="b1", valid_at="2024-03-01T10:00:00Z"),
    EpisodeInput("Oren: I sailed with Maren at the Harbour Regatta.", id="b2", valid_at="2024-03-02T10:00:00Z"),
    EpisodeInput("Liv: Kestrel Foods ships SKU-4471 from Riga.", id="b3", valid_at="2024-03-03T10:00:00Z"),
    EpisodeInput("Oren: Kestrel Foods delayed SKU-4471 again.", id="b4", valid_at="2024-03-04T10:00:00Z"),
    # Liv's second tie to Maren: with one fact to Maren and one to "sister", the tie went to whichever entity id
    # sorted first, and ids hash the (random) group name, so about one build in 25 left Liv out.
    EpisodeInput("Liv: I sailed with Maren at the Harbour Regatta.", id="b5", valid_at="2024-03-04T12:00:00Z"),
]
TOVE = EpisodeInput("Tove: I met Maren in Tallinn.", id="n-tove", valid_at="2024-03-05T10:00:00Z")
ANSEL = EpisodeInput("Ansel: I visited Maren in Tallinn.", id="n-ansel", valid_at="2024-03-05T11:00:00Z")
MEMBERS = f"""
MATCH (c:{kinds.COMMUNITY} {{group_id: $group}})
OPTIONAL MATCH (c)-[:{kinds.HAS_MEMBER}]->(m)
RETURN c.id AS id, c.revision AS revision, c.summary AS summary, collect(m.name) AS members
ORDER BY id
"""
EPISODE_STORED = "MATCH (e:Episode {id: $id}) RETURN e.id AS id"


def communities_of(group: str) -> dict[str, dict]:
    """Each community's revision, summary and member names (sorted: collect() promises no order)."""
    return {row["id"]: row | {"members": sorted(row["members"])} for row in driver.read(MEMBERS, group=group)}


@pytest.fixture
def built(group: str) -> str:
    """A group of two communities: Maren's people and places, and a supply chain. Returns Maren's community id."""
    episodes_add(group=group, episodes=BASE)
    report = communities_build(group=group)
    [maren] = [community.id for community in report.communities if "Maren" in community.name]
    assert {"Maren", "Tallinn", "Liv", "Oren"} <= set(communities_of(group)[maren]["members"])
    return maren


class StoredWatcher:
    """Embeds with the real model, noting the texts asked once `episode_id` is stored: the community names."""

    def __init__(self, episode_id: str, barrier: threading.Barrier | None = None) -> None:
        self.episode_id = episode_id
        self.barrier = barrier
        self.after_commit: list[list[str]] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        if driver.read(EPISODE_STORED, id=self.episode_id):
            self.after_commit.append(list(texts))
            if self.barrier is not None and len(self.after_commit) == 1:
                self.barrier.wait(timeout=60)  # both writers have read the community before either commits
        return embedder().embed(texts)


def test_a_group_never_built_gets_no_communities(group: str) -> None:
    results = episodes_add(group=group, episodes=[*BASE, TOVE])
    assert all(result.touched_entities and result.communities == () for result in results)
    assert all(result.communities_error is None for result in results)
    assert communities_of(group) == {}


def test_a_batch_refreshes_each_touched_community_once(group: str, built: str) -> None:
    before = communities_of(group)
    watcher = StoredWatcher(TOVE.id)
    results = episodes_add(group=group, episodes=[TOVE, ANSEL], embedder=watcher, batch_size=2)
    assert [result.communities for result in results] == [(built,), (built,)]
    after = communities_of(group)
    assert set(after[built]["members"]) == {*before[built]["members"], "Tove", "Ansel"}
    assert after[built]["revision"] != before[built]["revision"]
    assert len(watcher.after_commit) == 1  # two episodes touching one community: one refresh, one name embedded
    supply = next(cid for cid in before if cid != built)
    assert after[supply] == before[supply]  # not touched, not rewritten
    expected = current_text(group, built)
    assert after[built]["summary"] == expected.summary


def test_communities_can_be_left_alone(group: str, built: str) -> None:
    before = communities_of(group)
    [result] = episodes_add(group=group, episodes=[TOVE], update_communities=False)
    assert result.added and result.communities == ()
    assert communities_of(group) == before


def test_concurrent_batches_of_one_community_both_land(group: str, built: str) -> None:
    """Both batches read Maren's community before either commits its refresh: Zep's race, which must not lose."""
    barrier = threading.Barrier(2)
    results: dict[str, list[EpisodeResult]] = {}
    errors: list[Exception] = []

    def add(episode: EpisodeInput) -> None:
        try:
            results[episode.id] = episodes_add(
                group=group, episodes=[episode], embedder=StoredWatcher(episode.id, barrier)
            )
        except Exception as error:  # reported below, so a failure names itself
            errors.append(error)

    threads = [threading.Thread(target=add, args=(episode,)) for episode in (TOVE, ANSEL)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)
    assert not errors
    assert [result.communities for episode in (TOVE, ANSEL) for result in results[episode.id]] == [(built,)] * 2
    row = communities_of(group)[built]
    assert {"Tove", "Ansel"} <= set(row["members"])  # neither writer's member was lost
    assert row["summary"] == current_text(group, built).summary  # nor is the summary one of a stale state


def test_a_failed_refresh_keeps_the_batch_and_says_so(group: str, built: str) -> None:
    """Community summaries come from the run's LLM; when it fails after the commit, the episodes stay stored."""

    def summaries_fail(request: dict) -> Reply:
        if request["response_format"]["json_schema"]["name"] == summarize_community.PAIR_SCHEMA_NAME:
            return Reply(status=401, body={"error": {"message": "key revoked"}})
        return reading_model(request)

    before = communities_of(group)
    with fake_openai() as server:
        server.respond = summaries_fail
        client = ChatClient(LlmSettings(url=server.url, model="test-model", timeout=5.0), backoff_seconds=0.01)
        [result] = episodes_add(group=group, episodes=[TOVE], extractors=Extractors(llm=client))
    assert result.added and result.communities == ()
    assert "answered 401" in result.communities_error
    assert driver.read(EPISODE_STORED, id=TOVE.id) == [{"id": TOVE.id}]
    assert communities_of(group) == before
