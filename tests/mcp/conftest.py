"""MCP tests: a group holding the search tests' memory, tokens per role, and the SDK's own client over a transport."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from tests.search.memory import store_search_memory

MCP_TIMEOUT = 120  # seconds: generous, the suite shares 2 loaded cores


@pytest.fixture
def memory(group: str) -> str:
    """A group holding the search tests' memory (entities, timed facts, episodes, communities), embedded."""
    return store_search_memory(group)


@pytest.fixture
def token_for_role() -> Callable[..., Any]:
    def make(username: str, role: Role, groups: list[str]) -> str:
        return token_for(user=user_grant(username=username, role=role, groups=groups))

    return sync_to_async(make)


@contextlib.asynccontextmanager
async def http_session(base_url: str, token: str, scheme: str = "Bearer") -> AsyncIterator[ClientSession]:
    """An initialised MCP client session over streamable HTTP to base_url/mcp, sending the token."""
    headers = {"Authorization": f"{scheme} {token}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(f"{base_url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write, read_timeout_seconds=MCP_TIMEOUT) as session,
    ):
        await session.initialize()
        yield session


def problem_of(result: Any) -> dict[str, Any]:
    """The JSON problem of a tool error (memoria/mcp/errors.py), from the text after the SDK's prefix."""
    assert result.is_error, result
    text = result.content[0].text
    return json.loads(text[text.index("{") :])
