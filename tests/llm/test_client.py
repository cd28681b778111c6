"""The chat client against a real local HTTP server: JSON answers checked, retries bounded, failures typed."""

from __future__ import annotations

import socket
import time

import pytest

from memoria.errors import LlmInvalidAnswer, LlmUnavailable
from memoria.llm.client import ChatClient, LlmSettings, chat_client, chat_client_or_none, llm_configured
from tests.llm.fake_openai import FakeOpenAI, Reply, chat_reply

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "score": {"type": "number", "minimum": 0, "maximum": 1}},
    "required": ["answer", "score"],
    "additionalProperties": False,
}
MESSAGES = [{"role": "system", "content": "Answer."}, {"role": "user", "content": "Question?"}]


def ask(client: ChatClient) -> dict:
    return client.complete_json(messages=MESSAGES, schema_name="test_answer", schema=SCHEMA)


def test_a_good_answer_is_returned_and_the_request_asks_for_the_schema(
    llm_server: FakeOpenAI, llm_client: ChatClient
) -> None:
    llm_server.queue(chat_reply({"answer": "yes", "score": 0.5}))
    assert ask(llm_client) == {"answer": "yes", "score": 0.5}
    [request] = llm_server.requests
    assert llm_server.paths == ["/v1/chat/completions"]
    assert request["model"] == "test-model"
    assert request["messages"] == MESSAGES
    assert request["temperature"] == 0
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "test_answer", "schema": SCHEMA, "strict": True},
    }
    assert llm_server.headers[0]["Authorization"] == "Bearer sk-test"


def test_a_json_object_inside_prose_or_fences_is_found(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    llm_server.queue(chat_reply('Sure! Here it is:\n```json\n{"answer": "in {braces}", "score": 1}\n```\nBye.'))
    assert ask(llm_client) == {"answer": "in {braces}", "score": 1}


def test_malformed_json_is_an_invalid_answer(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    llm_server.queue(chat_reply('{"answer": "yes", "score": 0.5'))
    with pytest.raises(LlmInvalidAnswer, match="holds no JSON object"):
        ask(llm_client)
    assert len(llm_server.requests) == 1  # an answer, however bad, is not retried


@pytest.mark.parametrize(
    ("content", "where"),
    [
        ({"answer": "yes"}, "'score' is a required property"),
        ({"answer": "yes", "score": 3}, "answer.score: 3 is greater than the maximum of 1"),
        ({"answer": 7, "score": 0.1}, "answer.answer: 7 is not of type 'string'"),
        ({"answer": "yes", "score": 0.1, "extra": 1}, "Additional properties are not allowed"),
        ([{"answer": "yes", "score": 0.1}], "holds no JSON object"),
    ],
)
def test_an_answer_of_the_wrong_shape_is_refused_naming_the_place(
    llm_server: FakeOpenAI, llm_client: ChatClient, content: object, where: str
) -> None:
    llm_server.queue(chat_reply(content))
    with pytest.raises(LlmInvalidAnswer) as raised:
        ask(llm_client)
    assert where in str(raised.value)


def test_too_many_requests_then_success_retries_after_the_servers_delay(
    llm_server: FakeOpenAI, llm_client: ChatClient, sleeps: list[float]
) -> None:
    llm_server.queue(
        Reply(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "0.2"}),
        Reply(status=503, body={"error": {"message": "overloaded"}}),
        chat_reply({"answer": "finally", "score": 0}),
    )
    assert ask(llm_client) == {"answer": "finally", "score": 0}
    assert len(llm_server.requests) == 3
    assert sleeps == [0.2, 0.02]  # Retry-After first, then the doubled backoff


def test_retries_are_bounded_and_end_in_a_typed_error(
    llm_server: FakeOpenAI, llm_client: ChatClient, sleeps: list[float]
) -> None:
    llm_server.respond = lambda request: Reply(status=502, body="bad gateway")
    with pytest.raises(LlmUnavailable, match="answered 502") as raised:
        ask(llm_client)
    assert not isinstance(raised.value, LlmInvalidAnswer)
    assert len(llm_server.requests) == 3
    assert sleeps == [0.01, 0.02]


def test_a_real_backoff_waits_between_attempts(llm_server: FakeOpenAI) -> None:
    client = ChatClient(LlmSettings(url=llm_server.url, model="m", timeout=2.0), max_attempts=2, backoff_seconds=0.3)
    llm_server.queue(Reply(status=429, body={}), chat_reply({"answer": "ok", "score": 1}))
    started = time.monotonic()
    assert ask(client)["answer"] == "ok"
    assert time.monotonic() - started >= 0.3


def test_a_client_error_is_not_retried(llm_server: FakeOpenAI, llm_client: ChatClient) -> None:
    llm_server.queue(Reply(status=401, body={"error": {"message": "invalid api key"}}))
    with pytest.raises(LlmUnavailable, match=r"answered 401.*invalid api key"):
        ask(llm_client)
    assert len(llm_server.requests) == 1


def test_a_slow_server_times_out_once_without_retrying(llm_server: FakeOpenAI) -> None:
    client = ChatClient(LlmSettings(url=llm_server.url, model="m", timeout=0.4), backoff_seconds=0.01)
    late = chat_reply({"answer": "late", "score": 1})
    late.delay = 3.0
    llm_server.queue(late)
    started = time.monotonic()
    with pytest.raises(LlmUnavailable, match=r"did not answer within 0\.4 s"):
        ask(client)
    assert time.monotonic() - started < 2.0
    assert len(llm_server.requests) == 1


def test_a_server_without_json_schema_support_gets_the_schema_in_the_prompt(
    llm_server: FakeOpenAI, llm_client: ChatClient
) -> None:
    llm_server.queue(
        Reply(status=400, body={"error": {"message": "response_format type json_schema is not supported"}}),
        chat_reply('{"answer": "plain", "score": 0.3}'),
        chat_reply('{"answer": "again", "score": 0.4}'),
    )
    assert ask(llm_client)["answer"] == "plain"
    assert ask(llm_client)["answer"] == "again"
    first, second, third = llm_server.requests
    assert "response_format" in first
    for later in (second, third):  # remembered: the refused format is not tried again
        assert "response_format" not in later
        assert '"required":["answer","score"]' in later["messages"][-1]["content"]


def test_an_unreachable_server_is_unavailable_after_bounded_retries(sleeps: list[float]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ChatClient(
        LlmSettings(url=f"http://127.0.0.1:{port}/v1", model="m", timeout=2.0),
        backoff_seconds=0.01,
        sleep=sleeps.append,
    )
    with pytest.raises(LlmUnavailable, match="cannot be reached"):
        ask(client)
    assert len(sleeps) == 2


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(body="<html>proxy error</html>"), "did not answer with JSON"),
        (Reply(body={"choices": []}), "no choices"),
        (chat_reply('{"answer": "cut', finish_reason="length"), "cut off"),
        (chat_reply(""), "empty"),
    ],
)
def test_answers_that_are_not_chat_completions_are_invalid(
    llm_server: FakeOpenAI, llm_client: ChatClient, reply: Reply, message: str
) -> None:
    llm_server.queue(reply)
    with pytest.raises(LlmInvalidAnswer, match=message):
        ask(llm_client)


def test_the_client_is_configured_from_settings_only(settings: object, llm_server: FakeOpenAI) -> None:
    settings.MEMORIA_LLM_URL = ""
    settings.MEMORIA_LLM_MODEL = "m"
    assert not llm_configured()
    assert chat_client_or_none() is None
    with pytest.raises(LlmUnavailable, match="no LLM is configured"):
        chat_client()
    settings.MEMORIA_LLM_URL = llm_server.url + "/"
    settings.MEMORIA_LLM_API_KEY = ""
    settings.MEMORIA_LLM_TIMEOUT = "7.5"
    client = chat_client()
    assert (client.config.endpoint, client.config.timeout) == (f"{llm_server.url}/chat/completions", 7.5)
    llm_server.queue(chat_reply({"answer": "a", "score": 1}))
    ask(client)
    assert "Authorization" not in llm_server.headers[0]
    settings.MEMORIA_LLM_URL = "file:///etc/passwd"
    with pytest.raises(LlmUnavailable, match="http:// or https://"):
        chat_client()
    settings.MEMORIA_LLM_URL = llm_server.url
    settings.MEMORIA_LLM_TIMEOUT = "-1"
    with pytest.raises(LlmUnavailable, match="positive"):
        chat_client()
