"""MCP tests: a group holding the search tests' memory, tokens per role, and reading a tool error's problem."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from tests.search.memory import store_search_memory

# Every tool the server lists, whichever transport (tests/mcp/test_http.py, test_stdio.py).
TOOL_NAMES = {
    "list_groups",
    "search_memory",
    "add_memory",
    "get_context",
    "get_entity",
    "get_facts",
    "retrieve",
    "update_fact",
    "invalidate_fact",
    "status",
    "get_fact",
    "delete_fact",
    "list_episodes",
    "delete_episode",
    "undo",
    "clear_group",
}


@pytest.fixture
def memory(group: str) -> str:
    """A group holding the search tests' memory (entities, timed facts, episodes, communities), embedded."""
    return store_search_memory(group)


@pytest.fixture
def token_for_role() -> Callable[..., Any]:
    def make(username: str, role: Role, groups: list[str]) -> str:
        return token_for(user=user_grant(username=username, role=role, groups=groups))

    return sync_to_async(make)


def problem_of(result: Any) -> dict[str, Any]:
    """The JSON problem of a tool error (memoria/mcp/errors.py), from the text after the SDK's prefix."""
    assert result.is_error, result
    text = result.content[0].text
    return json.loads(text[text.index("{") :])
