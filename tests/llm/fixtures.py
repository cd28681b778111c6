"""The scripted OpenAI-compatible server and a client pointed at it: fixtures for every test of an LLM step (tests/llm,
tests/ingest, tests/ppr), registered by tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoria.llm.client import ChatClient, LlmSettings
from tests.llm.fake_openai import FakeOpenAI, fake_openai


@pytest.fixture
def llm_server() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def llm_client(llm_server: FakeOpenAI, sleeps: list[float]) -> ChatClient:
    config = LlmSettings(url=llm_server.url, model="test-model", api_key="sk-test", timeout=2.0)
    return ChatClient(config, max_attempts=3, backoff_seconds=0.01, sleep=sleeps.append)
