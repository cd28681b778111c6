"""Which steps ingestion runs: offline without an LLM, every LLM step once one is configured, and a failing LLM."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoria.errors import InvalidInput, LlmUnavailable
from memoria.graph import driver
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.extract_entities import OfflineEntityExtractor
from memoria.ingest.extract_facts import OfflineFactExtractor
from memoria.ingest.llm_extractors import LlmEntityExtractor, LlmFactExtractor
from memoria.ingest.llm_resolver import LlmEntityResolver
from memoria.ingest.pipeline import episodes_add, extractors_for_settings
from memoria.ingest.resolve_entities import OfflineEntityResolver
from memoria.llm.modes import StepMode
from memoria.llm.prompts import extract_entities, extract_facts, resolve_entities
from tests.conftest import count_group
from tests.llm.fake_openai import FakeOpenAI, Reply
from tests.llm.scripted import configured_reading_model, reading_model

FIRST = EpisodeInput("Caroline: My sister Anna Berg paints in Lyon.", id="x1", valid_at="2024-03-01T10:00:00Z")
SECOND = EpisodeInput("Caroline: Anna sold a painting.", id="x2", valid_at="2024-03-02T10:00:00Z")
MENTIONED = "MATCH (e:Episode {id: $id})-[:MENTIONS]->(n) RETURN n.name AS name ORDER BY name"


@pytest.fixture
def model(settings: object) -> Iterator[FakeOpenAI]:
    """The fake server as the configured LLM, answering with the scripted reading model."""
    with configured_reading_model(settings) as server:
        yield server


def assert_offline(extractors: object) -> None:
    assert isinstance(extractors.entities, OfflineEntityExtractor)
    assert isinstance(extractors.facts, OfflineFactExtractor)
    assert isinstance(extractors.resolver, OfflineEntityResolver)
    assert extractors.llm is None and extractors.kind == StepMode.OFFLINE


def test_without_an_llm_every_step_is_offline(settings: object) -> None:
    settings.MEMORIA_LLM_URL = ""
    assert_offline(extractors_for_settings())
    assert_offline(extractors_for_settings(choice=StepMode.OFFLINE))
    with pytest.raises(LlmUnavailable, match="no LLM is configured"):
        extractors_for_settings(choice=StepMode.LLM)
    with pytest.raises(InvalidInput, match="extractor: 'gpt' is not one of auto, offline, llm"):
        extractors_for_settings(choice="gpt")


def test_a_configured_llm_runs_every_step_with_one_client(model: FakeOpenAI) -> None:
    for choice in (StepMode.AUTO, StepMode.LLM):
        extractors = extractors_for_settings(choice=choice)
        assert isinstance(extractors.entities, LlmEntityExtractor)
        assert isinstance(extractors.facts, LlmFactExtractor)
        assert isinstance(extractors.resolver, LlmEntityResolver)
        assert extractors.kind == StepMode.LLM
        assert extractors.entities.client is extractors.facts.client is extractors.resolver.client is extractors.llm
        assert extractors.llm.config.endpoint == f"{model.url}/chat/completions"
    assert_offline(extractors_for_settings(choice=StepMode.OFFLINE))


def test_a_broken_configuration_is_an_error_not_a_silent_offline_run(settings: object) -> None:
    settings.MEMORIA_LLM_URL = "ftp://models.example"
    settings.MEMORIA_LLM_MODEL = "m"
    with pytest.raises(LlmUnavailable, match="must be an http:// or https:// address"):
        extractors_for_settings()
    assert_offline(extractors_for_settings(choice=StepMode.OFFLINE))


def test_episodes_are_extracted_and_resolved_by_the_configured_llm(model: FakeOpenAI, group: str) -> None:
    extractors = extractors_for_settings()
    [first] = episodes_add(group=group, episodes=[FIRST], extractors=extractors)
    assert [row["name"] for row in driver.read(MENTIONED, id=FIRST.id)] == ["Anna Berg", "Caroline", "Lyon"]
    model.requests.clear()
    [second] = episodes_add(group=group, episodes=[SECOND], extractors=extractors)
    # "Anna" is not a stored name: the model was asked and chose Anna Berg among the candidates.
    assert [row["name"] for row in driver.read(MENTIONED, id=SECOND.id)] == ["Anna Berg", "Caroline"]
    assert second.entities_created == () and set(second.entities) <= set(first.entities)
    assert model.schema_names() == [
        extract_entities.SCHEMA_NAME,
        resolve_entities.SCHEMA_NAME,
        extract_facts.SCHEMA_NAME,
    ]
    facts = driver.read(
        "MATCH (:Entity {group_id: $g})-[r:RELATES]->() WHERE 'x2' IN r.episodes RETURN r.relation AS relation", g=group
    )
    assert facts == [{"relation": "speaks_of"}]


def test_an_llm_failing_mid_run_leaves_the_earlier_batches_and_nothing_of_its_own(
    model: FakeOpenAI, group: str
) -> None:
    def fails_on_the_third(request: dict) -> Reply:
        if "Oren" in request["messages"][-1]["content"]:
            return Reply(status=401, body={"error": {"message": "key revoked"}})
        return reading_model(request)

    model.respond = fails_on_the_third
    third = EpisodeInput("Oren: I met Caroline.", id="x3", valid_at="2024-03-03T10:00:00Z")
    fourth = EpisodeInput("Caroline: Lyon is lovely.", id="x4", valid_at="2024-03-04T10:00:00Z")
    done: list[str] = []
    with pytest.raises(LlmUnavailable, match="answered 401"):
        episodes_add(
            group=group,
            episodes=[FIRST, SECOND, third, fourth],
            extractors=extractors_for_settings(),
            batch_size=2,
            progress=lambda batch: done.extend(result.episode_id for result in batch),
        )
    assert done == ["x1", "x2"]
    stored = driver.read("MATCH (e:Episode {group_id: $g}) RETURN e.id AS id ORDER BY id", g=group)
    assert [row["id"] for row in stored] == ["x1", "x2"]
    counts = count_group(group)
    model.respond = reading_model  # the model is back: the run resumes with the failed batch
    results = episodes_add(group=group, episodes=[FIRST, SECOND, third, fourth], extractors=extractors_for_settings())
    assert [result.added for result in results] == [False, False, True, True]
    assert count_group(group)["nodes"] > counts["nodes"]
