"""Relation-aware PPR's β manager and fact filter through a configured LLM (the real fake server): good answers
steer the walk, malformed ones are refused whole, and an LLM that cannot be reached is a clear error."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from explorer.errors import error_frame
from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.errors import InvalidInput, LlmInvalidAnswer, LlmUnavailable
from memoria.llm.prompts import filter_facts as filter_prompt
from memoria.llm.prompts import relation_betas as betas_prompt
from memoria.ppr.events import ppr_events
from memoria.ppr.llm_steps import LlmBetaManager, LlmFactFilter
from memoria.ppr.relation_seeds import OfflineFactFilter, ScoredFact
from memoria.ppr.relations import BetasInput, OfflineBetaManager
from memoria.ppr.request import PprBody, PprRequest, SeedWeight
from memoria.ppr.service import ppr_run
from memoria.ppr.steps import relation_steps_for
from memoria.projection.cache import ProjectionCache
from memoria.requests.vocabulary import input_parse
from tests.llm.fake_openai import FakeOpenAI, Reply, chat_reply, fake_openai
from tests.search.memory import node_id, store_search_memory

QUERY = "Where did the safety gloves run out?"
BETAS = {
    "entity_entity": {"HIERARCHICAL": 1, "TEMPORAL": 7, "SPATIAL": 1, "CAUSALITY": 1, "ATTRIBUTION": 0},
    "entity_passage": {"PRIMARY": 2, "SECONDARY": 1, "PERIPHERAL": 1},
}
KEPT_WORD = "Rotterdam"  # the scripted filter keeps the facts naming the port: not the ones nearest the query


def listed_facts(request: dict[str, Any]) -> dict[int, str]:
    text = request["messages"][-1]["content"]
    lines = text.split("<CANDIDATE FACTS>\n", 1)[1].split("\n</CANDIDATE FACTS>", 1)[0].split("\n")
    return {int(number): fact for number, fact in (line.split(": ", 1) for line in lines)}


def port_facts(request: dict[str, Any]) -> list[int]:
    return [number for number, fact in listed_facts(request).items() if KEPT_WORD in fact]


def recognising_model(request: dict[str, Any]) -> Reply:
    """β weighing time highest; the filter keeping the facts that name the port."""
    if request["response_format"]["json_schema"]["name"] == betas_prompt.SCHEMA_NAME:
        return chat_reply(BETAS)
    return chat_reply({"keep": port_facts(request)})


@pytest.fixture
def model(settings: Any) -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        server.respond = recognising_model
        settings.MEMORIA_LLM_URL = server.url
        settings.MEMORIA_LLM_MODEL = "test-model"
        settings.MEMORIA_LLM_TIMEOUT = 10
        yield server


@pytest.fixture
def memory(group: str) -> str:
    store_search_memory(group)
    return group


def asked(server: FakeOpenAI, schema_name: str) -> list[dict[str, Any]]:
    return [request for request in server.requests if request["response_format"]["json_schema"]["name"] == schema_name]


def test_a_configured_llm_chooses_beta_and_the_facts_and_the_walk_follows(model: FakeOpenAI, memory: str) -> None:
    request = PprRequest(group=memory, query=QUERY, top_k=1000, relation_aware=True)
    answer = ppr_run(request, cache=ProjectionCache(), wait=30)

    [betas_request] = asked(model, betas_prompt.SCHEMA_NAME)
    [filter_request] = asked(model, filter_prompt.SCHEMA_NAME)
    assert QUERY in betas_request["messages"][-1]["content"] and QUERY in filter_request["messages"][-1]["content"]
    listed = listed_facts(filter_request)
    assert len(listed) > len(port_facts(filter_request)) >= 2  # the model chose among more candidates

    # β: the model's numbers, normalised within each family.
    assert answer.betas.source == "llm"
    assert answer.betas.entity_entity == pytest.approx(
        {"HIERARCHICAL": 0.1, "TEMPORAL": 0.7, "SPATIAL": 0.1, "CAUSALITY": 0.1, "ATTRIBUTION": 0.0}
    )
    assert answer.betas.entity_passage == pytest.approx({"PRIMARY": 0.5, "SECONDARY": 0.25, "PERIPHERAL": 0.25})
    # Facts: exactly the ones it kept, best-scored first; seeds are their ends (and episodes).
    assert answer.fact_filter == "llm" and answer.seed_source == "facts"
    kept_texts = {listed[number] for number in port_facts(filter_request)}
    assert {fact.text for fact in answer.facts} == kept_texts
    assert [fact.score for fact in answer.facts] == sorted((fact.score for fact in answer.facts), reverse=True)
    ends = {end for fact in answer.facts for end in (fact.source, fact.target)}
    assert node_id(memory, "rotterdam") in ends
    assert {seed.id for seed in answer.seeds if "-ep" not in seed.id} <= ends
    # The walk used those β: the same seeds with the caller giving the same β score every node the same.
    same = PprRequest(
        group=memory, seeds=answer.seeds, top_k=1000, relation_aware=True, betas=input_parse(BetasInput, BETAS).betas()
    )
    caller = ppr_run(same, cache=ProjectionCache(), wait=30)
    got = {node.id: node.score for node in answer.scores}
    assert sum(abs(got[node.id] - node.score) for node in caller.scores) <= 1e-9
    data = answer.as_dict()
    assert data["betas"]["source"] == "llm" and data["fact_filter"] == "llm"
    assert {fact["text"] for fact in data["facts"]} == kept_texts


def test_offline_is_chosen_per_step_and_when_no_llm_is_configured(model: FakeOpenAI, memory: str, settings) -> None:
    request = PprRequest(
        group=memory, query=QUERY, top_k=5, relation_aware=True, betas_source="offline", fact_filter="llm"
    )
    answer = ppr_run(request, cache=ProjectionCache(), wait=30)
    assert answer.betas.source == "offline" and answer.fact_filter == "llm"
    assert asked(model, betas_prompt.SCHEMA_NAME) == [] and len(asked(model, filter_prompt.SCHEMA_NAME)) == 1

    model.requests.clear()
    given = ppr_run(
        PprRequest(
            group=memory, query=QUERY, top_k=5, relation_aware=True, betas=input_parse(BetasInput, BETAS).betas()
        ),
        cache=ProjectionCache(),
        wait=30,
    )
    assert given.betas.source == "caller" and given.fact_filter == "llm"  # the caller's β: the model is not asked
    assert asked(model, betas_prompt.SCHEMA_NAME) == []

    settings.MEMORIA_LLM_URL = ""
    model.requests.clear()
    steps = relation_steps_for()
    assert isinstance(steps.betas, OfflineBetaManager) and isinstance(steps.facts, OfflineFactFilter)
    answer = ppr_run(
        PprRequest(group=memory, query=QUERY, top_k=5, relation_aware=True), cache=ProjectionCache(), wait=30
    )
    assert answer.betas.source == "offline" and answer.fact_filter == "offline" and model.requests == []
    with pytest.raises(LlmUnavailable, match="no LLM is configured"):
        ppr_run(
            PprRequest(group=memory, query=QUERY, relation_aware=True, betas_source="llm"),
            cache=ProjectionCache(),
            wait=30,
        )
    # Plain PPR and caller seeds never need the model.
    plain = ppr_run(PprRequest(group=memory, seeds=(SeedWeight(node_id(memory, "lyon")),)), cache=ProjectionCache())
    assert plain.betas is None and plain.fact_filter is None


def without(family: str, name: str) -> dict[str, Any]:
    answer = json.loads(json.dumps(BETAS))
    del answer[family][name]
    return answer


def with_value(family: str, name: str, value: Any) -> dict[str, Any]:
    answer = json.loads(json.dumps(BETAS))
    answer[family][name] = value
    return answer


BAD_BETAS = {
    "unknown category": (with_value("entity_entity", "SOCIAL", 0.2), "Additional properties are not allowed"),
    "missing category": (without("entity_entity", "SPATIAL"), "'SPATIAL' is a required property"),
    "a word for a number": (with_value("entity_entity", "TEMPORAL", "high"), "'high' is not of type 'number'"),
    "negative": (with_value("entity_passage", "PRIMARY", -0.5), "less than the minimum of 0"),
    "not finite": (with_value("entity_entity", "CAUSALITY", math.inf), "CAUSALITY: must be a finite number"),
    "all zero": (
        {**BETAS, "entity_passage": {"PRIMARY": 0, "SECONDARY": 0, "PERIPHERAL": 0}},
        "entity_passage: at least one β must be above 0",
    ),
    "a list": ([0.7, 0.3], "holds no JSON object"),
}


@pytest.mark.parametrize("case", list(BAD_BETAS))
def test_a_malformed_beta_answer_is_refused_whole(llm_server: FakeOpenAI, llm_client, case: str) -> None:
    content, message = BAD_BETAS[case]
    llm_server.queue(chat_reply(content))
    with pytest.raises(LlmInvalidAnswer, match=message):
        LlmBetaManager(llm_client).choose_betas(QUERY)
    assert len(llm_server.requests) == 1  # a wrong answer is not retried: it would be asked the same way


def test_a_good_beta_answer_is_normalised(llm_server: FakeOpenAI, llm_client) -> None:
    llm_server.queue(chat_reply(with_value("entity_entity", "ATTRIBUTION", 10)))
    betas = LlmBetaManager(llm_client).choose_betas(QUERY)
    assert betas.entity_entity == pytest.approx(
        {"HIERARCHICAL": 0.05, "TEMPORAL": 0.35, "SPATIAL": 0.05, "CAUSALITY": 0.05, "ATTRIBUTION": 0.5}
    )
    assert sum(betas.entity_passage.values()) == pytest.approx(1.0) and betas.source == "llm"
    schema = llm_server.requests[0]["response_format"]["json_schema"]
    assert schema["name"] == betas_prompt.SCHEMA_NAME and schema["strict"] is True


BAD_FILTERS = {
    "out of range": ({"keep": [0, 9]}, "9 is greater than the maximum of 2"),
    "more than four": ({"keep": [0, 1, 2, 0, 1]}, "is too long"),
    "named twice": ({"keep": [1, 1]}, r"names facts \[1\] twice"),
    "not a number": ({"keep": ["first"]}, "'first' is not of type 'integer'"),
    "another key": ({"keep": [0], "why": "it fits"}, "Additional properties are not allowed"),
}


@pytest.mark.parametrize("case", list(BAD_FILTERS))
def test_a_malformed_filter_answer_is_refused_whole(llm_server: FakeOpenAI, llm_client, case: str) -> None:
    candidates = [ScoredFact(f"f{i}", f"s{i}", f"t{i}", 0.9 - i / 10, f"fact {i}") for i in range(3)]
    content, message = BAD_FILTERS[case]
    llm_server.queue(chat_reply(content))
    with pytest.raises(LlmInvalidAnswer, match=message):
        LlmFactFilter(llm_client).filter_facts(QUERY, candidates)


def test_the_filter_keeps_what_the_model_names_best_scored_first(llm_server: FakeOpenAI, llm_client) -> None:
    candidates = [ScoredFact(f"f{i}", f"s{i}", f"t{i}", 0.9 - i / 10, f"fact number {i}") for i in range(6)]
    llm_server.queue(chat_reply({"keep": [4, 1]}), chat_reply({"keep": []}))
    llm_filter = LlmFactFilter(llm_client)
    assert llm_filter.filter_facts(QUERY, candidates) == (candidates[1], candidates[4])
    assert llm_filter.filter_facts(QUERY, candidates) == ()  # none helps: no fact seeds, episodes still do
    assert llm_filter.filter_facts(QUERY, []) == () and len(llm_server.requests) == 2  # nothing to ask about
    prompt = llm_server.requests[0]["messages"][-1]["content"]
    assert "5: fact number 5" in prompt and "at most 4" in llm_server.requests[0]["messages"][0]["content"]


def viewer_client(group: str) -> APIClient:
    user = user_grant(username="ppr-llm-viewer", role=Role.VIEWER, groups=[group])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user=user)}")
    return client


def post(client: APIClient, body: dict[str, Any]):
    return client.post("/api/retrieval/ppr", data=json.dumps(body), content_type="application/json")


@pytest.mark.django_db
def test_the_api_says_who_chose_and_answers_502_for_a_bad_answer(model: FakeOpenAI, memory: str) -> None:
    client = viewer_client(memory)
    body = {"group": memory, "query": QUERY, "relation_aware": True, "top_k": 5}
    response = post(client, body)
    assert response.status_code == 200, response.content
    assert response.json()["betas"]["source"] == "llm" and response.json()["fact_filter"] == "llm"

    model.queue(chat_reply({"keep": [0]}), chat_reply(with_value("entity_entity", "TEMPORAL", -1)))
    response = post(client, body)
    assert response.status_code == 502, response.content
    assert response.json()["code"] == "llm_invalid_answer" and "TEMPORAL" in response.json()["detail"]

    response = post(client, {**body, "betas_source": "offline", "filter": "offline"})
    assert response.status_code == 200
    assert response.json()["betas"]["source"] == "offline" and response.json()["fact_filter"] == "offline"


@pytest.mark.django_db
def test_an_llm_that_cannot_be_reached_is_a_503_and_an_error_frame(memory: str, settings: Any) -> None:
    with fake_openai() as gone:
        url = gone.url
    settings.MEMORIA_LLM_URL, settings.MEMORIA_LLM_MODEL = url, "test-model"  # nothing listens there any more
    response = post(viewer_client(memory), {"group": memory, "query": QUERY, "relation_aware": True})
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "llm_unavailable" and "cannot be reached" in response.json()["detail"]

    async def stream() -> tuple[list[dict[str, Any]], Exception]:
        events = []
        request = PprRequest(group=memory, query=QUERY, relation_aware=True)
        try:
            async for event in ppr_events(request, retrieval_id="r-llm", cache=ProjectionCache()):
                events.append(event.frame())
        except Exception as error:
            return events, error
        raise AssertionError("the stream did not fail")

    events, error = asyncio.run(stream())
    assert [event["type"] for event in events] == ["retrieval_started", "retrieval_finished"]
    assert events[0]["params"]["betas_source"] == "auto" and events[-1]["status"] == "failed"
    frame = error_frame(error, retrieval_id="r-llm")
    assert frame["code"] == "llm_unavailable" and "cannot be reached" in frame["message"]
    assert frame["retrieval_id"] == "r-llm"
    assert error_frame(LlmInvalidAnswer("bad"))["code"] == "llm_invalid_answer"


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"betas_source": "gpt"}, "betas_source: must be one of auto, offline, llm"),
        ({"filter": 3}, "filter: must be one of auto, offline, llm"),
        ({"relation_aware": False, "filter": "llm"}, "filter: only used with relation_aware: true"),
        ({"betas": {"entity_entity": {"TEMPORAL": 1}}, "betas_source": "llm"}, "betas_source: β are given in betas"),
        ({"seeds": [{"id": "n1"}], "filter": "llm"}, "filter: only used when the seeds come from the query's facts"),
    ],
)
def test_the_step_choices_are_validated(body: dict[str, Any], problem: str) -> None:
    raw = {"group": "g", "query": QUERY, "relation_aware": True, **body}
    with pytest.raises(InvalidInput) as caught:
        input_parse(PprBody, raw).request()
    assert any(found.startswith(problem) for found in caught.value.problems), caught.value.problems


def test_the_step_choices_are_carried() -> None:
    raw = {"group": "g", "query": QUERY, "relation_aware": True, "betas_source": "offline", "filter": "llm"}
    request = input_parse(PprBody, raw).request()
    assert (request.betas_source, request.fact_filter) == ("offline", "llm")
    assert (
        input_parse(PprBody, {"group": "g"}).request().betas_source,
        input_parse(PprBody, {"group": "g"}).request().fact_filter,
    ) == (
        "auto",
        "auto",
    )
