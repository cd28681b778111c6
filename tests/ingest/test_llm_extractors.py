"""The LLM extractors against the scripted server: Protocol outputs from good answers, typed errors from bad ones."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memoria.errors import LlmInvalidAnswer
from memoria.graph import driver, kinds
from memoria.ingest.context import PriorEpisode
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.extract_entities import (
    IDENTIFIER,
    PROPER,
    SPEAKER,
    EntityExtraction,
    EntityExtractionInput,
    EntityExtractor,
    ExtractedEntity,
)
from memoria.ingest.extract_facts import ExtractedFact, FactExtraction, FactExtractionInput, FactExtractor
from memoria.ingest.llm_extractors import LlmEntityExtractor, LlmFactExtractor
from memoria.ingest.pipeline import Extractors, episodes_add
from memoria.ingest.text import name_key
from memoria.llm.client import ChatClient
from memoria.llm.prompts import extract_entities as entities_prompt
from memoria.llm.prompts import extract_facts as facts_prompt
from tests.llm.fake_openai import FakeOpenAI, Reply, chat_reply

CONTENT = "Caroline: I moved to Lyon in May 2023 with my sister Anna.\nMelanie: Is order SKU-42 on its way to Lyon?"
TIME = "2023-06-01T10:00:00Z"
CONTEXT = (PriorEpisode("ep-0", "earlier", "Gina: How are you, Caroline?", "message", "2023-05-31T10:00:00Z"),)


def entity(name: str, kind: str = PROPER, labels: list[str] = (), confidence: float = 0.9) -> dict[str, Any]:
    return {"name": name, "kind": kind, "labels": list(labels), "confidence": confidence}


ENTITIES_ANSWER = {
    "entities": [
        entity("Caroline", SPEAKER, confidence=1),
        entity("Lyon"),
        entity("Anna", confidence=0.8),
        entity("Melanie", SPEAKER, confidence=1),
        entity("SKU-42", IDENTIFIER, ["UserRequest"], 0.7),
        entity("  caroline ", SPEAKER, confidence=0.5),  # the same entity again: the surer mention stays
    ]
}


def fact(source: int, target: int, **changes: Any) -> dict[str, Any]:
    answer = {
        "source": source,
        "target": target,
        "relation": "moved_to",
        "category": "SPATIAL",
        "fact": "Caroline moved to Lyon in May 2023.",
        "valid_at": "2023-05-01T00:00:00Z",
        "weight": 0.9,
        "tags": ["relocation"],
        "negated": False,
    }
    return answer | changes


def extraction() -> EntityExtraction:
    names = [("Caroline", SPEAKER), ("Lyon", PROPER), ("Anna", PROPER), ("SKU-42", IDENTIFIER)]
    return EntityExtraction(
        entities=tuple(ExtractedEntity(name, name_key(name), kind, 0.9) for name, kind in names), sentences=()
    )


def extract_entities(client: ChatClient) -> EntityExtraction:
    request = EntityExtractionInput(content=CONTENT, source="message", reference_time=TIME, context=CONTEXT)
    return LlmEntityExtractor(client).extract_entities(request)


def extract_facts(client: ChatClient) -> FactExtraction:
    return LlmFactExtractor(client).extract_facts(FactExtractionInput(CONTENT, TIME, extraction()))


def test_the_extractors_implement_the_protocols(llm_client: ChatClient) -> None:
    entity_extractor: EntityExtractor = LlmEntityExtractor(llm_client)
    fact_extractor: FactExtractor = LlmFactExtractor(llm_client)
    assert callable(entity_extractor.extract_entities) and callable(fact_extractor.extract_facts)


def test_entities_come_back_as_the_protocols_output(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    llm_server.queue(chat_reply(ENTITIES_ANSWER))
    result = extract_entities(llm_client)
    assert isinstance(result, EntityExtraction)
    by_key = {item.key: item for item in result.entities}
    assert list(by_key) == ["caroline", "lyon", "anna", "melanie", "sku 42"]
    assert by_key["caroline"] == ExtractedEntity("Caroline", "caroline", SPEAKER, 1.0, (), ((0, 8),))
    lyon = CONTENT.index("Lyon")
    assert by_key["lyon"].spans == ((lyon, lyon + 4), (CONTENT.rindex("Lyon"), CONTENT.rindex("Lyon") + 4))
    assert by_key["sku 42"].labels == ("UserRequest",) and by_key["sku 42"].confidence == 0.7
    # What the offline rules add around the model's entities, so summaries and dates work the same.
    assert [sentence.speaker for sentence in result.sentences] == ["Caroline", "Melanie"]
    assert [mention.value for mention in result.dates] == ["2023-05-01T00:00:00Z"]
    assert result.addressee == "Gina"
    [request] = llm_server.requests
    assert llm_server.schema_names() == [entities_prompt.SCHEMA_NAME]
    schema = request["response_format"]["json_schema"]["schema"]
    labels = schema["properties"]["entities"]["items"]["properties"]["labels"]["items"]["enum"]
    assert labels == list(kinds.entity_labels())
    prompt = request["messages"][-1]["content"]
    assert CONTENT in prompt and "How are you, Caroline?" in prompt


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (entity("Lyon", labels=["Planet"]), "is not one of"),
        (entity("Lyon", kind="place"), "is not one of"),
        (entity("the", confidence=0.4), "names nothing"),
        (entity("Lyon", confidence=1.5), "greater than the maximum"),
        ({"name": "Lyon", "kind": PROPER, "labels": []}, "'confidence' is a required property"),
    ],
)
def test_one_bad_entity_refuses_the_whole_answer(
    llm_server: FakeOpenAI, llm_client: ChatClient, bad: dict, message: str
) -> None:
    llm_server.queue(chat_reply({"entities": [entity("Caroline", SPEAKER), bad]}))
    with pytest.raises(LlmInvalidAnswer, match=message):
        extract_entities(llm_client)


def test_facts_are_checked_clamped_and_normalised(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    llm_server.queue(
        chat_reply(
            {
                "facts": [
                    fact(0, 1, tags=["Relocation", " New  Home ", "relocation", "--"]),
                    fact(
                        0,
                        2,
                        relation="Has Sister",
                        category="HIERARCHICAL",
                        fact="Anna is Caroline's sister.",
                        valid_at=None,
                        weight=1.7,
                        tags=[],
                    ),
                    fact(
                        3,
                        1,
                        relation="ships to",
                        fact="SKU-42 ships to Lyon.",
                        valid_at="2023-06-02",
                        weight=0.05,
                        tags=[],
                        negated=True,
                        category="CAUSALITY",
                    ),
                    fact(0, 1, weight=0.4),  # the same fact again, less sure: the surer one stays
                ]
            }
        )
    )
    result = extract_facts(llm_client)
    assert isinstance(result, FactExtraction)
    assert result.facts == (
        ExtractedFact(
            "caroline",
            "lyon",
            "moved_to",
            "SPATIAL",
            "Caroline moved to Lyon in May 2023.",
            "2023-05-01T00:00:00Z",
            0.9,
            ("relocation", "new_home"),
        ),
        ExtractedFact("caroline", "anna", "has_sister", "HIERARCHICAL", "Anna is Caroline's sister.", TIME, 1.0),
        ExtractedFact(
            "sku 42",
            "lyon",
            "ships_to",
            "CAUSALITY",
            "SKU-42 ships to Lyon.",
            "2023-06-02T00:00:00Z",
            0.25,
            (),
            negated=True,
        ),
    )
    assert result.facts[2].stored_relation == "not_ships_to"
    [request] = llm_server.requests
    assert llm_server.schema_names() == [facts_prompt.SCHEMA_NAME]
    assert "0: Caroline\n1: Lyon\n2: Anna\n3: SKU-42" in request["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (fact(0, 0), "relates an entity to itself"),
        (fact(0, 9), "greater than the maximum of 3"),
        (fact(0, 1, category="FRIENDSHIP"), "is not one of"),
        (fact(0, 1, relation="!!!"), "holds no letters or digits"),
        (fact(0, 1, valid_at="2023-05-01T10:00:00"), "does not match"),
        (fact(0, 1, valid_at="2023-02-31T00:00:00Z"), "not a usable date-time"),
        (fact(0, 1, weight="high"), "is not of type 'number'"),
        (fact(0, 1, tags=["x" * 65]), "is too long"),
    ],
)
def test_one_bad_fact_refuses_the_whole_answer(
    llm_server: FakeOpenAI, llm_client: ChatClient, bad: dict, message: str
) -> None:
    llm_server.queue(chat_reply({"facts": [fact(0, 1), bad]}))
    with pytest.raises(LlmInvalidAnswer, match=message):
        extract_facts(llm_client)


def test_fewer_than_two_entities_ask_nothing(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    lone = EntityExtraction(entities=extraction().entities[:1], sentences=())
    assert LlmFactExtractor(llm_client).extract_facts(FactExtractionInput(CONTENT, TIME, lone)).facts == ()
    assert llm_server.requests == []


def test_a_malformed_answer_is_a_typed_error(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    llm_server.queue(chat_reply('{"facts": [{"source": 0, "target": 1,'))
    with pytest.raises(LlmInvalidAnswer):
        extract_facts(llm_client)


def scripted_llm(request: dict[str, Any]) -> Reply:
    """Answers as a model would, by which task the request's schema names."""
    name = request["response_format"]["json_schema"]["name"]
    if name == entities_prompt.SCHEMA_NAME:
        return chat_reply(ENTITIES_ANSWER)
    listed = request["messages"][-1]["content"]
    number = {line.split(": ", 1)[1]: int(line.split(":")[0]) for line in listed.split("\n")[1:6]}
    return chat_reply(
        {
            "facts": [
                fact(number["Caroline"], number["Lyon"]),
                fact(number["SKU-42"], number["Lyon"], relation="ships_to"),
            ]
        }
    )


def test_the_pipeline_ingests_an_episode_with_the_llm_extractors(
    llm_server: FakeOpenAI, llm_client: ChatClient, group: str
) -> None:
    llm_server.respond = scripted_llm
    extractors = Extractors(entities=LlmEntityExtractor(llm_client), facts=LlmFactExtractor(llm_client))
    [result] = episodes_add(
        group=group, episodes=[EpisodeInput(CONTENT, source="message", valid_at=TIME)], extractors=extractors
    )
    assert result.added and len(result.facts_created) == 2
    rows = driver.read(
        "MATCH (a:Memory {group_id: $group})-[r:RELATES]->(b:Memory) RETURN a.name AS a, r.relation AS relation, "
        "b.name AS b, r.weight AS weight, r.tags AS tags ORDER BY relation",
        group=group,
    )
    assert [(row["a"], row["relation"], row["b"]) for row in rows] == [
        ("Caroline", "moved_to", "Lyon"),
        ("SKU-42", "ships_to", "Lyon"),
    ]
    assert json.dumps(llm_server.schema_names()) == json.dumps([entities_prompt.SCHEMA_NAME, facts_prompt.SCHEMA_NAME])
