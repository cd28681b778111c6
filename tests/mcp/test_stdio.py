"""`manage.py mcp` over stdio, driven by the SDK's own stdio client: it refuses to start without a valid token,
serves every tool as the HTTP face does, sends retrieve's progress, and counts calls against the REST throttles."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from rest_framework.authtoken.models import Token

from memoria.accounts.roles import Role
from memoria.mcp.auth import TOKEN_VARIABLE
from memoria.mcp.client import READ_TIMEOUT_SECONDS as MCP_TIMEOUT
from tests.conftest import ROOT, count_group
from tests.mcp.conftest import TOOL_NAMES, problem_of
from tests.search.memory import node_id

pytestmark = pytest.mark.django_db(transaction=True)


def server_environment(token: str | None, settings_module: str = "tests.settings") -> dict[str, str]:
    environment = dict(os.environ, DJANGO_SETTINGS_MODULE=settings_module, MEMORIA_E2E_SERVER="1", PYTHONPATH=str(ROOT))
    environment.pop(TOKEN_VARIABLE, None)
    if token is not None:
        environment[TOKEN_VARIABLE] = token
    return environment


@contextlib.asynccontextmanager
async def stdio_session(token: str, settings_module: str = "tests.settings") -> AsyncIterator[ClientSession]:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp"],
        env=server_environment(token, settings_module),
        cwd=ROOT,
    )
    async with (
        stdio_client(parameters) as (read, write),
        ClientSession(read, write, read_timeout_seconds=MCP_TIMEOUT) as session,
    ):
        await session.initialize()
        yield session


@pytest.mark.parametrize("token", [None, "", "not-a-token"])
def test_refuses_to_start_without_a_valid_token(token: str | None) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "mcp"],
        cwd=ROOT,
        env=server_environment(token),
        input=b"",
        capture_output=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert TOKEN_VARIABLE in done.stderr.decode()
    assert done.stdout == b""  # nothing that a client could take for protocol


async def test_every_tool_over_stdio(memory: str, token_for_role) -> None:
    token = await token_for_role("stdio-curator", Role.CURATOR, [memory])
    alice = node_id(memory, "alice")
    progress: list[tuple[float, dict[str, Any]]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, json.loads(message or "{}")))

    async with stdio_session(token) as session:
        assert {tool.name for tool in (await session.list_tools()).tools} == TOOL_NAMES
        groups = await session.call_tool("list_groups", {})
        assert [g["group"] for g in groups.structured_content["groups"]] == [memory]
        found = await session.call_tool("search_memory", {"group": memory, "query": "Bob Novak truck driver"})
        assert found.structured_content["entities"][0]["name"] == "Bob Novak"
        entity = await session.call_tool("get_entity", {"group": memory, "entity_id": alice})
        assert entity.structured_content["entity"]["name"] == "Alice Martin"
        facts = await session.call_tool("get_facts", {"group": memory, "entity_id": alice})
        assert len(facts.structured_content["facts"]) == 2
        retrieved = await session.call_tool(
            "retrieve", {"group": memory, "seeds": [{"id": alice}]}, progress_callback=on_progress
        )
        assert not retrieved.is_error, retrieved
        assert progress and [value for value, _ in progress] == list(range(1, len(progress) + 1))
        assert {event["type"] for _, event in progress} == {"level_expanded"}
        ppr = await session.call_tool("retrieve", {"group": memory, "algorithm": "ppr", "query": "safety gloves"})
        assert not ppr.is_error, ppr
        fact_id = node_id(memory, "party")
        updated = await session.call_tool("update_fact", {"group": memory, "fact_id": fact_id, "tags": ["Team Event"]})
        assert updated.structured_content["fact"]["tags"] == ["team_event"]
        version = updated.structured_content["fact"]["version"]
        ended = await session.call_tool("invalidate_fact", {"group": memory, "fact_id": fact_id, "version": version})
        assert ended.structured_content["fact"]["invalid_at"]
        stale = await session.call_tool("invalidate_fact", {"group": memory, "fact_id": fact_id, "version": version})
        assert problem_of(stale)["code"] == "conflict"
        before = await sync_to_async(count_group)(memory)
        added = await session.call_tool(
            "add_memory",
            {"group": memory, "episodes": [{"content": "Bob Novak now drives for Globex."}, {"content": "Done."}]},
        )
        assert added.structured_content["added"] == 2, added
        assert (await sync_to_async(count_group)(memory))["nodes"] > before["nodes"]
        elsewhere = await session.call_tool("get_entity", {"group": "another-group", "entity_id": alice})
        assert problem_of(elsewhere)["code"] == "not_found"


async def test_a_throttled_caller_is_told_when_to_come_back(memory: str, token_for_role) -> None:
    token = await token_for_role("stdio-viewer", Role.VIEWER, [memory])
    arguments = {"group": memory, "query": "gloves", "scopes": ["facts"]}
    async with stdio_session(token, settings_module="tests.mcp.throttled_settings") as session:
        for _ in range(2):
            assert not (await session.call_tool("search_memory", arguments)).is_error
        refused = problem_of(await session.call_tool("search_memory", arguments))
        assert refused["code"] == "throttled" and refused["scope"] == "search"
        assert refused["limit"] == {"requests": 2, "period_seconds": 60} and refused["retry_after"] >= 1
        other = await session.call_tool("get_entity", {"group": memory, "entity_id": node_id(memory, "alice")})
        assert not other.is_error  # only the search rate is spent


async def test_a_revoked_token_stops_working_at_once(memory: str, token_for_role) -> None:
    token = await token_for_role("stdio-revoked", Role.VIEWER, [memory])
    async with stdio_session(token) as session:
        assert not (await session.call_tool("list_groups", {})).is_error
        await sync_to_async(Token.objects.filter(key=token).delete)()
        refused = problem_of(await session.call_tool("list_groups", {}))
        assert refused["code"] == "not_authenticated"
