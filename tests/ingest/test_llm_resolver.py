"""The LLM entity resolver on the scripted server: exact names settled offline, the rest judged, bad answers refused."""

from __future__ import annotations

from typing import Any

import pytest

from memoria.embeddings import embedder
from memoria.errors import LlmInvalidAnswer, LlmUnavailable
from memoria.graph import driver
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.extract_entities import PROPER, ExtractedEntity
from memoria.ingest.llm_resolver import MATCHED, MAX_CANDIDATES, NOT_MATCHED, LlmEntityResolver
from memoria.ingest.pipeline import Extractors, episodes_add
from memoria.ingest.resolve_entities import (
    Candidate,
    EntityResolver,
    EntityState,
    ResolveEntitiesInput,
    entities_resolve,
    entity_id,
)
from memoria.ingest.text import name_key
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.llm.client import ChatClient
from memoria.llm.prompts import resolve_entities as prompt
from memoria.reindex import group_reindex
from tests.conftest import count_group
from tests.llm.fake_openai import FakeOpenAI, Reply, chat_reply

STORED = {
    "berg": ("Anna Berg", "Anna Berg is Caroline's sister; she paints in Lyon."),
    "kowalski": ("Anna Kowalski", "Anna Kowalski is a nurse who works with Melanie."),
    "nfl": ("Northwind Freight Logistics", "A freight company."),
}
EPISODE = "Caroline: My sister Anna sold a painting in Lyon."


def mention(name: str) -> ExtractedEntity:
    return ExtractedEntity(name=name, key=name_key(name), kind=PROPER, confidence=0.8)


def embed(names: list[str]) -> list[list[float]]:
    return embedder().embed(names)


@pytest.fixture
def stored(group: str) -> str:
    nodes = [{"id": f"{group}-{key}", "name": name, "summary": summary} for key, (name, summary) in STORED.items()]
    graph_document_import(document=parse_graph_document({"nodes": nodes, "edges": []}, group=group), group=group)
    group_reindex(group=group)
    return group


def listed_candidates(request: dict[str, Any]) -> dict[str, int]:
    """Candidate name → its number, as the prompt lists them."""
    text = request["messages"][-1]["content"]
    lines = text.split("<EXISTING ENTITIES>\n", 1)[1].split("\n</EXISTING ENTITIES>", 1)[0].split("\n")
    return {line.split(": ", 1)[1].split(" — ")[0]: int(line.split(": ", 1)[0]) for line in lines}


def picks(name: str) -> Any:
    return lambda request: chat_reply({"match": listed_candidates(request)[name], "reason": "same person"})


def test_the_resolver_implements_the_protocol(llm_client: ChatClient) -> None:
    resolver: EntityResolver = LlmEntityResolver(llm_client)
    assert callable(resolver.resolve_entity)


def test_an_exact_name_or_alias_is_settled_without_asking(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    resolver = LlmEntityResolver(llm_client)
    freight = EntityState(id="n1", name="Northwind Freight Logistics", key="northwind freight logistic")
    aliased = EntityState(id="n2", name="Northwind Foods", key="northwind food", aliases=("NWF",))
    candidates = [Candidate(aliased, 1.0), Candidate(freight, 0.5)]
    assert resolver.resolve_entity(mention("northwind freight logistics"), None, candidates) == (freight, "same name")
    assert resolver.resolve_entity(mention("NWF"), None, candidates) == (aliased, "known alias")
    assert resolver.resolve_entity(mention("Kestrel"), None, []) == (None, "new")
    assert llm_server.requests == []


def test_the_model_picks_among_the_numbered_candidates_of_the_indexes(
    stored: str, llm_server: FakeOpenAI, llm_client: ChatClient
) -> None:
    llm_server.respond = picks("Anna Berg")
    request = ResolveEntitiesInput(stored, (mention("Anna"),), embed, episodes={"anna": EPISODE})
    resolution = entities_resolve(request=request, resolver=LlmEntityResolver(llm_client))
    entity = resolution.entity("anna")
    assert (entity.id, resolution.reasons["anna"]) == (f"{stored}-berg", MATCHED)
    assert entity.aliases == ("Anna",)  # the next "Anna" resolves without asking
    [sent] = llm_server.requests
    assert {"Anna Berg", "Anna Kowalski"} <= set(listed_candidates(sent))
    assert sorted(listed_candidates(sent).values()) == list(range(len(listed_candidates(sent))))
    text = sent["messages"][-1]["content"]
    assert EPISODE in text and "<NEW ENTITY>\nAnna\n</NEW ENTITY>" in text and STORED["berg"][1] in text
    schema = sent["response_format"]["json_schema"]
    assert schema["name"] == prompt.SCHEMA_NAME
    assert schema["schema"]["properties"]["match"]["maximum"] == len(listed_candidates(sent)) - 1


def test_the_model_may_find_no_match(stored: str, llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    llm_server.queue(chat_reply({"match": -1, "reason": "a different Anna"}))
    resolution = entities_resolve(
        request=ResolveEntitiesInput(stored, (mention("Anna"),), embed), resolver=LlmEntityResolver(llm_client)
    )
    entity = resolution.entity("anna")
    assert entity.is_new and entity.id == entity_id(stored, "anna")
    assert resolution.reasons["anna"] == NOT_MATCHED


def test_at_most_ten_distinct_candidates_are_shown(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    llm_server.queue(chat_reply({"match": MAX_CANDIDATES - 1, "reason": "the last one"}))
    people = [EntityState(id=f"p{index}", name=f"Anna {index}", key=f"anna {index}") for index in range(14)]
    candidates = [Candidate(person, 1.0) for person in people] + [Candidate(people[0], 0.9)]
    entity, reason = LlmEntityResolver(llm_client).resolve_entity(mention("Annie"), None, candidates)
    assert (entity, reason) == (people[MAX_CANDIDATES - 1], MATCHED)
    assert list(listed_candidates(llm_server.requests[0])) == [f"Anna {index}" for index in range(MAX_CANDIDATES)]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"match": 7, "reason": "x"}, "answer.match: 7 is greater than the maximum"),
        ({"match": -2, "reason": "x"}, "answer.match: -2 is less than the minimum of -1"),
        ({"match": "0", "reason": "x"}, "answer.match: '0' is not of type 'integer'"),
        ({"match": 0}, "'reason' is a required property"),
    ],
)
def test_an_answer_outside_its_schema_is_refused_and_nothing_is_written(
    stored: str, llm_server: FakeOpenAI, llm_client: ChatClient, answer: dict, message: str
) -> None:
    """Offline extraction, LLM resolution: the first name with candidates but no exact match asks the model."""
    llm_server.queue(chat_reply(answer))
    before = count_group(stored)
    with pytest.raises(LlmInvalidAnswer, match=message):
        episodes_add(
            group=stored,
            episodes=[EpisodeInput(EPISODE, id="ep-anna", valid_at="2024-03-01T10:00:00Z")],
            extractors=Extractors(resolver=LlmEntityResolver(llm_client)),
        )
    assert count_group(stored) == before
    assert driver.read("MATCH (e:Episode {id: 'ep-anna'}) RETURN e.id AS id") == []
    assert [request["response_format"]["json_schema"]["name"] for request in llm_server.requests] == [
        prompt.SCHEMA_NAME
    ]


def test_an_unreachable_model_is_an_error_not_a_guess(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    llm_server.queue(Reply(status=401, body={"error": {"message": "bad key"}}))
    with pytest.raises(LlmUnavailable, match="answered 401"):
        LlmEntityResolver(llm_client).resolve_entity(
            mention("Anna"), None, [Candidate(EntityState(id="x", name="Anna Berg", key="anna berg"), 1.0)]
        )
