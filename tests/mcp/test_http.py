"""The MCP server over streamable HTTP on a real daphne, driven by the SDK's own client: every tool, progress
during retrieve, auth, access, and bad arguments that write nothing."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import random
import urllib.error
import urllib.request
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command

from memoria.accounts.roles import Role
from memoria.admission.problems import FINAL_CONFLICT_NOTE
from memoria.context.tokens import token_count
from memoria.curation.undo import audit_entry_undo
from memoria.graph import driver
from memoria.graph.clear import group_clear
from memoria.graph.versions import group_stamps_delete
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.mcp.client import http_session
from memoria.mcp.inputs import DEFAULT_ANSWER_TOKENS, DEFAULT_MAX_PATHS
from memoria.reindex import group_reindex
from tests.conftest import count_group
from tests.mcp.conftest import TOOL_NAMES, problem_of
from tests.search.memory import node_id, store_search_memory

pytestmark = pytest.mark.django_db(transaction=True)


def raw_request(
    url: str, headers: dict[str, str], method: str = "POST", timeout: float = 60
) -> tuple[int, dict[str, str], bytes]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode() if method == "POST" else None
    request = urllib.request.Request(
        url,
        data=body,
        method=method,
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def raw_post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    return raw_request(url, headers)


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic abc"}])
async def test_no_or_wrong_token_is_401_before_any_tool(daphne_url: str, headers: dict[str, str]) -> None:
    status, answer_headers, body = await asyncio.to_thread(raw_post, daphne_url + "/mcp", headers)
    assert status == 401, body
    assert json.loads(body)["code"] == "not_authenticated"
    assert "Bearer" in answer_headers.get("WWW-Authenticate", answer_headers.get("www-authenticate", ""))


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_a_stateless_server_answers_405_to_get_and_delete(daphne_url: str, method: str, token_for_role) -> None:
    """No stream of the server's own to hold open (the SDK's GET pinged forever), no session to end: 405 at once,
    with Allow naming POST; the timeout is what a hanging stream would hit."""
    token = await token_for_role("mcp-viewer", Role.VIEWER, ["g"])
    headers = {"Authorization": f"Bearer {token}"}
    status, answer_headers, body = await asyncio.to_thread(raw_request, daphne_url + "/mcp", headers, method, 10)
    assert status == 405, body
    assert {name.lower(): value for name, value in answer_headers.items()}["allow"] == "POST"
    assert json.loads(body)["code"] == "method_not_allowed" and method in json.loads(body)["detail"]
    refused, _, _ = await asyncio.to_thread(raw_request, daphne_url + "/mcp", {}, method, 10)
    assert refused == 401  # the token is checked first, as for every call
    status, _, _ = await asyncio.to_thread(raw_post, daphne_url + "/mcp", headers)
    assert status == 200  # POST still serves


async def test_every_tool_over_http(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("mcp-curator", Role.CURATOR, [memory])
    alice, lyon = node_id(memory, "alice"), node_id(memory, "lyon")
    async with http_session(daphne_url, token, scheme="Token") as session:
        listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOL_NAMES
        assert all(tool.output_schema and tool.description for tool in listed.tools)
        search_schema = next(tool for tool in listed.tools if tool.name == "search_memory").input_schema
        assert search_schema["additionalProperties"] is False and "group" in search_schema["required"]
        recipes = search_schema["properties"]["recipe"]["anyOf"][0]["enum"]  # no cross-encoder ships: not listed
        assert "combined_hybrid_rrf" in recipes and not [name for name in recipes if "cross_encoder" in name]

        groups = await session.call_tool("list_groups", {})
        assert not groups.is_error, groups
        assert [g["group"] for g in groups.structured_content["groups"]] == [memory]
        assert groups.structured_content["role"] == "curator"

        found = await session.call_tool(
            "search_memory", {"group": memory, "query": "safety gloves stockout", "scopes": ["facts", "entities"]}
        )
        assert not found.is_error, found
        hits = found.structured_content
        assert hits["facts"] and hits["entities"] and hits["episodes"] == [] and hits["communities"] == []

        context = await session.call_tool(
            "get_context", {"group": memory, "query": "safety gloves", "budget_tokens": 200}
        )
        assert not context.is_error, context
        block = context.content[0].text  # the default: the block itself is what the model reads
        assert block.startswith("Memory (what holds now):") and token_count(block) <= 200
        assert context.structured_content["used_tokens"] == token_count(block)
        assert "items" not in context.structured_content and "text" not in context.structured_content
        cited = await session.call_tool(
            "get_context", {"group": memory, "query": "safety gloves", "budget_tokens": 200, "format": "json"}
        )
        compact = cited.content[0].text
        assert json.loads(compact) == cited.structured_content and "\n  " not in compact  # no indentation
        assert cited.structured_content["text"] == block and compact.count(block.splitlines()[-1]) == 1
        assert all("episodes" in item and isinstance(item["line"], int) for item in cited.structured_content["items"])

        entity = await session.call_tool("get_entity", {"group": memory, "entity_id": alice})
        assert entity.structured_content["entity"]["name"] == "Alice Martin"
        assert entity.structured_content["fact_total"] == 2

        facts = await session.call_tool("get_facts", {"group": memory, "entity_id": lyon})
        assert {f["relation"] for f in facts.structured_content["facts"]} >= {"works_at", "stocks", "ran_out_of"}
        before = await session.call_tool(
            "get_facts", {"group": memory, "entity_id": node_id(memory, "bob"), "valid_at": "2021-01-01T00:00:00Z"}
        )
        assert [f["relation"] for f in before.structured_content["facts"]] == ["drove_for"]
        bob = node_id(memory, "bob")
        as_of = await session.call_tool(
            "get_facts", {"group": memory, "entity_id": bob, "as_of": "2021-01-01T00:00:00Z"}
        )
        assert as_of.structured_content["facts"] == before.structured_content["facts"]  # valid_at: as_of's old name
        every = await session.call_tool("get_facts", {"group": memory, "entity_id": bob, "include_invalidated": True})
        now = await session.call_tool("get_facts", {"group": memory, "entity_id": bob, "include_invalidated": False})
        default = await session.call_tool("get_facts", {"group": memory, "entity_id": bob})
        assert "drove_for" in {f["relation"] for f in every.structured_content["facts"]}  # history, for audits
        assert "drove_for" not in {f["relation"] for f in now.structured_content["facts"]}  # it ended
        assert default.structured_content["facts"] == now.structured_content["facts"]  # no moment: now
        both = await session.call_tool(
            "get_facts",
            {"group": memory, "entity_id": bob, "valid_at": "2021-01-01T00:00:00Z", "as_of": "2021-01-01T00:00:00Z"},
        )
        assert both.is_error and "valid_at" in str(both.content)

        ppr = await session.call_tool(
            "retrieve", {"group": memory, "algorithm": "ppr", "seeds": [{"id": alice}], "top_k": 3}
        )
        assert not ppr.is_error, ppr
        assert ppr.structured_content["algorithm"] == "ppr" and len(ppr.structured_content["result"]["scores"]) == 3

        fact_id = node_id(memory, "works")
        updated = await session.call_tool("update_fact", {"group": memory, "fact_id": fact_id, "weight": 0.9})
        assert not updated.is_error, updated
        assert updated.structured_content["fact"]["weight"] == 0.9
        assert updated.structured_content["entry"]["action"]

        ended = await session.call_tool(
            "invalidate_fact", {"group": memory, "fact_id": fact_id, "invalid_at": "2025-01-01T00:00:00Z"}
        )
        assert not ended.is_error, ended
        assert ended.structured_content["fact"]["invalid_at"] == "2025-01-01T00:00:00Z"

        added = await session.call_tool(
            "add_memory",
            {"group": memory, "episodes": [{"content": "Alice Martin moved to the Rotterdam port.", "id": "mcp-ep-1"}]},
        )
        assert not added.is_error, added
        assert added.structured_content["added"] == 1
        again = await session.call_tool(
            "add_memory",
            {"group": memory, "episodes": [{"content": "Alice Martin moved to the Rotterdam port.", "id": "mcp-ep-1"}]},
        )
        assert again.structured_content == {**again.structured_content, "added": 0, "unchanged": 1}

        resource = await session.read_resource(f"memoria://groups/{memory}/entities/{alice}")
        assert json.loads(resource.contents[0].text)["entity"]["name"] == "Alice Martin"
        page = json.loads(resource.contents[0].text)
        assert len(page["facts"]) == page["fact_total"] >= 2  # add_memory above may have added one
        assert all(len(fact["version"]) == 16 for fact in page["facts"])
        episode = await session.read_resource(f"memoria://groups/{memory}/episodes/{node_id(memory, 'ep1')}")
        assert json.loads(episode.contents[0].text)["entities"]


async def test_status_facts_with_their_versions_and_deleting_one(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("mcp-curator", Role.CURATOR, [memory])
    fact_id, alice = node_id(memory, "works"), node_id(memory, "alice")
    async with http_session(daphne_url, token) as session:
        status = (await session.call_tool("status", {})).structured_content
        assert status["status"] == "ok" and status["graph"]["status"] == "up" and status["graph"]["dialect"]
        assert (status["user"], status["role"], status["groups"]) == ("mcp-curator", "curator", 1)

        got = await session.call_tool("get_fact", {"group": memory, "fact_id": fact_id})
        assert not got.is_error, got
        fact = got.structured_content["fact"]
        assert fact["id"] == fact_id and fact["relation"] == "works_at" and fact["source"]["name"] == "Alice Martin"
        version = fact["version"]
        assert len(version) == 16
        listed = await session.call_tool("get_facts", {"group": memory, "entity_id": alice})
        versions = {item["id"]: item["version"] for item in listed.structured_content["facts"]}
        assert versions[fact_id] == version and all(versions.values())
        found = await session.call_tool("search_memory", {"group": memory, "query": "supply planner", "limit": 10})
        hits = {hit["id"]: hit["version"] for hit in found.structured_content["facts"]}
        assert hits[fact_id] == version and all(hits.values())

        edited = await session.call_tool(
            "update_fact", {"group": memory, "fact_id": fact_id, "weight": 0.9, "version": version}
        )
        new_version = edited.structured_content["fact"]["version"]
        reread = await session.call_tool("get_fact", {"group": memory, "fact_id": fact_id})
        assert reread.structured_content["fact"]["version"] == new_version != version

        stale = problem_of(
            await session.call_tool("delete_fact", {"group": memory, "fact_id": fact_id, "version": version})
        )
        assert stale["code"] == "conflict" and "retry_after" not in stale, stale  # a retry cannot succeed
        assert stale["detail"].endswith(f"({FINAL_CONFLICT_NOTE})") and new_version in stale["detail"]
        assert stale["detail"].startswith(f"fact {fact_id!r} changed since you read it"), stale
        assert not (await session.call_tool("get_fact", {"group": memory, "fact_id": fact_id})).is_error

        deleted = await session.call_tool("delete_fact", {"group": memory, "fact_id": fact_id, "version": new_version})
        assert not deleted.is_error, deleted
        entry = deleted.structured_content["entry"]
        assert entry["action"] == "edge.delete" and entry["item_id"] == fact_id and entry["actor"] == "mcp-curator"
        assert deleted.structured_content["fact"] is None
        gone = problem_of(await session.call_tool("get_fact", {"group": memory, "fact_id": fact_id}))
        assert gone["code"] == "not_found"
        again = problem_of(await session.call_tool("delete_fact", {"group": memory, "fact_id": fact_id}))
        assert again["code"] == "not_found"

        ended = node_id(memory, "drove")  # already invalid since 2022: ending it again can never succeed
        twice = problem_of(await session.call_tool("invalidate_fact", {"group": memory, "fact_id": ended}))
        assert twice["code"] == "conflict" and "retry_after" not in twice and FINAL_CONFLICT_NOTE in twice["detail"]

        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert tools["delete_fact"].annotations.destructive_hint and not tools["get_fact"].annotations.destructive_hint
        assert tools["get_fact"].input_schema["properties"]["fact_id"]["description"].startswith("a fact's id")


async def test_search_finds_facts_that_hold_now_unless_told_otherwise(
    daphne_url: str, memory: str, token_for_role
) -> None:
    """Bob drove for Nordbalt until 2022: an agent searching by default is not shown it as if it held."""
    token = await token_for_role("mcp-viewer", Role.VIEWER, [memory])
    drove = node_id(memory, "drove")
    asked = {"group": memory, "query": "Bob Novak truck driver Nordbalt", "scopes": ["facts"], "limit": 10}
    async with http_session(daphne_url, token) as session:
        default = await session.call_tool("search_memory", asked)
        every = await session.call_tool("search_memory", {**asked, "include_invalidated": True})
        then = await session.call_tool("search_memory", {**asked, "valid_at": "2021-01-01T00:00:00Z"})
        both = await session.call_tool(
            "search_memory", {**asked, "include_invalidated": True, "valid_at": "2021-01-01T00:00:00Z"}
        )
    facts = {
        name: {hit["id"]: hit for hit in answer.structured_content["facts"]}
        for name, answer in (("default", default), ("every", every), ("then", then))
    }
    assert drove not in facts["default"] and node_id(memory, "drives") in facts["default"]
    assert facts["every"][drove]["invalid_at"] == "2022-06-01T00:00:00Z"
    assert drove in facts["then"] and node_id(memory, "drives") not in facts["then"]
    assert problem_of(both)["code"] == "invalid" and "include_invalidated" in problem_of(both)["detail"]


async def test_list_episodes_newest_first_a_page_at_a_time(daphne_url: str, memory: str, token_for_role) -> None:
    viewer = await token_for_role("mcp-viewer", Role.VIEWER, [memory])
    curator = await token_for_role("mcp-curator", Role.CURATOR, [memory])
    episodes = [node_id(memory, key) for key in ("ep3", "ep2", "ep1")]  # one valid_at: the id breaks the tie
    async with http_session(daphne_url, viewer) as session:
        first = await session.call_tool("list_episodes", {"group": memory, "limit": 2})
        assert not first.is_error, first
        page = first.structured_content
        assert [item["id"] for item in page["episodes"]] == episodes[:2] and (page["total"], page["more"]) == (3, 1)
        assert page["episodes"][0]["content"] == "Nordbalt Metals delayed the steel bolt kit again"
        assert json.loads(first.content[0].text) == page and "\n  " not in first.content[0].text  # compact
        rest = (await session.call_tool("list_episodes", {"group": memory, "limit": 2, "offset": 2})).structured_content
        assert [item["id"] for item in rest["episodes"]] == episodes[2:] and rest["more"] == 0
        short = await session.call_tool("list_episodes", {"group": memory, "text_tokens": 2})
        assert all(token_count(item["content"]) <= 3 for item in short.structured_content["episodes"])
        past = await session.call_tool("list_episodes", {"group": memory, "offset": 10})
        assert past.structured_content == {"episodes": [], "total": 3, "more": 0}
    async with http_session(daphne_url, curator) as session:
        await session.call_tool(
            "add_memory", {"group": memory, "episodes": [{"content": "Alice flew to Oslo.", "id": "new"}]}
        )
        newest = await session.call_tool("list_episodes", {"group": memory, "limit": 1})
        assert [item["id"] for item in newest.structured_content["episodes"]] == ["new"]
        assert newest.structured_content["total"] == 4


async def test_add_memory_takes_chat_messages_and_list_episodes_filters_by_scope(
    daphne_url: str, memory: str, token_for_role
) -> None:
    curator = await token_for_role("mcp-curator", Role.CURATOR, [memory])
    chat = {
        "group": memory,
        "messages": [
            {"role": "user", "name": "Alice", "content": "I moved to Lyon in March."},
            {"role": "assistant", "content": "Noted, Lyon it is."},
        ],
        "user_id": "alice",
        "session_id": "chat-1",
        "metadata": [{"key": "channel", "value": "support"}, {"key": "priority", "value": 2}],
    }
    async with http_session(daphne_url, curator) as session:
        added = await session.call_tool("add_memory", chat)
        assert not added.is_error, added
        assert added.structured_content["added"] == 2
        again = await session.call_tool("add_memory", chat)
        assert again.structured_content["added"] == 0  # the same turns again change nothing
        other = {"group": memory, "episodes": [{"content": "Bob flew to Oslo.", "id": "bob-1"}], "user_id": "bob"}
        assert not (await session.call_tool("add_memory", other)).is_error

        async def listed(**scope: Any) -> dict[str, Any]:
            found = await session.call_tool("list_episodes", {"group": memory, **scope})
            assert not found.is_error, found
            return found.structured_content

        alice = await listed(user_id="alice")
        assert alice["total"] == 2
        contents = sorted(item["content"] for item in alice["episodes"])
        assert contents == ["Alice (user): I moved to Lyon in March.", "assistant: Noted, Lyon it is."]
        first = alice["episodes"][0]
        assert (first["user_id"], first["session_id"], first.get("agent_id")) == ("alice", "chat-1", None)
        assert first["metadata"] == {"channel": "support", "priority": 2}
        assert [item["id"] for item in (await listed(user_id="bob"))["episodes"]] == ["bob-1"]
        by_metadata = await listed(metadata=[{"key": "priority", "value": 2.0}])
        assert by_metadata["total"] == 2  # 2.0 is the whole number 2
        assert (await listed(metadata=[{"key": "priority", "value": "2"}]))["total"] == 0  # a text is not a number
        assert (await listed(user_id="alice", session_id="chat-2"))["total"] == 0
        assert (await listed(user_id="carol"))["episodes"] == []
        assert (await listed())["total"] == 6  # the three stored before scopes, unscoped, are still listed

        async def searched(**scope: Any) -> set[str]:
            found = await session.call_tool(
                "search_memory", {"group": memory, "query": "Lyon Oslo", "scopes": ["episodes"], **scope}
            )
            assert not found.is_error, found
            return {hit["id"] for hit in found.structured_content["episodes"]}

        alices = {item["id"] for item in alice["episodes"]}
        assert (await searched(user_id="alice")) <= alices and await searched(user_id="alice")
        assert await searched(user_id="bob") == {"bob-1"}
        assert await searched(metadata=[{"key": "channel", "value": "support"}]) <= alices
        assert await searched(agent_id="nobody") == set()
        retrieved = await session.call_tool(
            "retrieve", {"group": memory, "query": "Lyon Oslo", "user_id": "bob", "detail": "full"}
        )
        assert not retrieved.is_error, retrieved
        seeds = {seed["seed_id"] for seed in retrieved.structured_content["result"]["seeds"]}
        bobs = await sync_to_async(_mentioned_by)(memory, ["bob-1"])
        assert seeds and seeds <= bobs


def _mentioned_by(group: str, episodes: list[str]) -> set[str]:
    rows = driver.read(
        "MATCH (e:Episode {group_id: $group})-[:MENTIONS]->(n) WHERE e.id IN $ids RETURN n.id AS id",
        group=group,
        ids=episodes,
    )
    return {row["id"] for row in rows}


async def test_delete_episode_takes_what_it_alone_said_and_undo_puts_it_back(
    daphne_url: str, memory: str, token_for_role
) -> None:
    token = await token_for_role("mcp-curator", Role.CURATOR, [memory])
    alice = node_id(memory, "alice")
    async with http_session(daphne_url, token) as session:
        added = await session.call_tool(
            "add_memory",
            {"group": memory, "episodes": [{"content": "Alice Martin moved to the Rotterdam port.", "id": "mcp-gone"}]},
        )
        created = added.structured_content["episodes"][0]["facts_created"]
        assert created, added.structured_content
        before = await sync_to_async(count_group)(memory)

        refused = problem_of(await session.call_tool("delete_episode", {"group": memory, "episode_id": alice}))
        assert refused["code"] == "not_found" and "episode" in refused["detail"]  # an entity is not an episode
        assert await sync_to_async(count_group)(memory) == before

        deleted = await session.call_tool("delete_episode", {"group": memory, "episode_id": "mcp-gone"})
        assert not deleted.is_error, deleted
        answer = deleted.structured_content
        assert answer["entry"]["action"] == "episode.delete" and answer["entry"]["item_kind"] == "episode"
        assert answer["entry"]["actor"] == "mcp-curator" and set(created) <= set(answer["facts_deleted"])
        for fact_id in created:
            gone = problem_of(await session.call_tool("get_fact", {"group": memory, "fact_id": fact_id}))
            assert gone["code"] == "not_found"
        listed = await session.call_tool("list_episodes", {"group": memory})
        assert "mcp-gone" not in [item["id"] for item in listed.structured_content["episodes"]]
        assert listed.structured_content["total"] == 3
        entity = await session.call_tool("get_entity", {"group": memory, "entity_id": alice})
        assert "mcp-gone" not in [item["id"] for item in entity.structured_content["episodes"]]
        again = problem_of(await session.call_tool("delete_episode", {"group": memory, "episode_id": "mcp-gone"}))
        assert again["code"] == "not_found"

        await sync_to_async(audit_entry_undo)(group=memory, entry_id=answer["entry"]["id"], actor="mcp-curator")
        assert await sync_to_async(count_group)(memory) == before  # the audit trail kept it whole
        back = await session.call_tool("get_fact", {"group": memory, "fact_id": created[0]})
        assert not back.is_error and "mcp-gone" in [item["id"] for item in back.structured_content["fact"]["episodes"]]


async def test_undo_takes_back_the_callers_own_latest_change(daphne_url: str, memory: str, token_for_role) -> None:
    """Each call takes back the caller's latest change still in force; another curator's are not the caller's, and
    a change whose items someone changed since is refused as a final conflict."""
    carla = await token_for_role("mcp-carla", Role.CURATOR, [memory])
    dave = await token_for_role("mcp-dave", Role.CURATOR, [memory])
    works, stocks = node_id(memory, "works"), node_id(memory, "stocks")

    async def fact(session: Any, fact_id: str) -> dict[str, Any]:
        return (await session.call_tool("get_fact", {"group": memory, "fact_id": fact_id})).structured_content["fact"]

    async with http_session(daphne_url, carla) as session:
        nothing = problem_of(await session.call_tool("undo", {"group": memory}))
        assert nothing["code"] == "not_found" and "no change of yours" in nothing["detail"]
        edited = await session.call_tool("update_fact", {"group": memory, "fact_id": works, "weight": 0.9})
        ended = await session.call_tool("invalidate_fact", {"group": memory, "fact_id": stocks})
        assert not edited.is_error and not ended.is_error
    async with http_session(daphne_url, dave) as session:
        theirs = problem_of(await session.call_tool("undo", {"group": memory}))
        assert theirs["code"] == "not_found"  # carla's changes are not dave's to take back with this tool
    async with http_session(daphne_url, carla) as session:
        first = await session.call_tool("undo", {"group": memory})
        assert not first.is_error, first
        assert first.structured_content["entry"]["undoes"] == ended.structured_content["entry"]["id"]
        assert (await fact(session, stocks))["invalid_at"] is None and (await fact(session, works))["weight"] == 0.9
        second = await session.call_tool("undo", {"group": memory})
        assert second.structured_content["entry"]["undoes"] == edited.structured_content["entry"]["id"]
        assert (await fact(session, works))["weight"] == 0.5
        assert problem_of(await session.call_tool("undo", {"group": memory}))["code"] == "not_found"

        await session.call_tool("update_fact", {"group": memory, "fact_id": works, "weight": 0.8})
    async with http_session(daphne_url, dave) as session:
        await session.call_tool("update_fact", {"group": memory, "fact_id": works, "weight": 0.7})
    async with http_session(daphne_url, carla) as session:
        refused = problem_of(await session.call_tool("undo", {"group": memory}))
        assert refused["code"] == "conflict" and "retry_after" not in refused, refused
        assert FINAL_CONFLICT_NOTE in refused["detail"]
        assert (await fact(session, works))["weight"] == 0.7  # dave's change stands


async def test_clear_group_is_for_admins_and_takes_the_name_twice(daphne_url: str, memory: str, token_for_role) -> None:
    kept = f"{memory}-kept"
    await sync_to_async(store_search_memory)(kept)
    try:
        curator = await token_for_role("mcp-curator", Role.CURATOR, [memory])
        admin = await token_for_role("mcp-admin", Role.ADMIN, [])
        before, other = await sync_to_async(count_group)(memory), await sync_to_async(count_group)(kept)
        async with http_session(daphne_url, curator) as session:
            refused = await session.call_tool("clear_group", {"group": memory, "confirm": memory})
            assert problem_of(refused)["code"] == "permission_denied"
        async with http_session(daphne_url, admin) as session:
            for arguments in ({"group": memory, "confirm": kept}, {"group": memory}, {"group": memory, "confirm": ""}):
                wrong = problem_of(await session.call_tool("clear_group", arguments))
                assert wrong["code"] == "invalid" and any("confirm" in error for error in wrong["errors"]), wrong
            assert await sync_to_async(count_group)(memory) == before

            cleared = await session.call_tool("clear_group", {"group": memory, "confirm": memory})
            assert not cleared.is_error, cleared
            assert cleared.structured_content == {"group": memory, "nodes_deleted": before["nodes"]}
            assert await sync_to_async(count_group)(memory) == {"nodes": 0, "edges": 0}
            assert await sync_to_async(count_group)(kept) == other  # another group's memory is untouched
            found = await session.call_tool("search_memory", {"group": memory, "query": "safety gloves"})
            assert all(found.structured_content[scope] == [] for scope in ("facts", "entities", "episodes"))
            listed = await session.call_tool("list_episodes", {"group": memory})
            assert listed.structured_content["total"] == 0
            groups = (await session.call_tool("list_groups", {})).structured_content["groups"]
            assert {"group": memory, "episodes": 0, "entities": 0, "communities": 0, "facts": 0} in groups
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert tools["clear_group"].annotations.destructive_hint
    finally:
        await sync_to_async(group_clear)(group=kept)
        await sync_to_async(group_stamps_delete)(group=kept)


async def test_a_fact_of_another_group_is_answered_like_a_missing_one(
    daphne_url: str, memory: str, token_for_role
) -> None:
    """The caller reads two groups; a fact id of one, named in the other, is not found exactly as a made-up id."""
    token = await token_for_role("mcp-curator", Role.CURATOR, [memory, "mcp-second"])
    fact_id = node_id(memory, "works")
    async with http_session(daphne_url, token) as session:
        for name in ("get_fact", "delete_fact"):
            borrowed = problem_of(await session.call_tool(name, {"group": "mcp-second", "fact_id": fact_id}))
            missing = problem_of(await session.call_tool(name, {"group": "mcp-second", "fact_id": "made-up"}))
            assert borrowed["code"] == missing["code"] == "not_found", name
            assert borrowed["detail"].replace(fact_id, "F") == missing["detail"].replace("made-up", "F"), name
            assert missing["detail"].startswith("no fact 'made-up'"), missing  # the tools' word, not "edge"
            assert "Alice" not in json.dumps(borrowed)
        assert not (await session.call_tool("get_fact", {"group": memory, "fact_id": fact_id})).is_error


async def test_retrieve_sends_each_level_as_progress_in_order(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("mcp-viewer", Role.VIEWER, [memory])
    progress: list[tuple[float, dict[str, Any]]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, json.loads(message or "{}")))

    seeds = [{"id": node_id(memory, "alice"), "score": 1.0}]
    async with http_session(daphne_url, token) as session:
        result = await session.call_tool(
            "retrieve",
            {"group": memory, "seeds": seeds, "min_activation": 0.01},
            progress_callback=on_progress,
        )
    assert not result.is_error, result
    answer = result.structured_content["result"]
    assert progress, "no progress notification arrived"
    assert [value for value, _ in progress] == list(range(1, len(progress) + 1))
    assert all(event["type"] == "level_expanded" for _, event in progress)
    assert [event["depth"] for _, event in progress] == sorted(event["depth"] for _, event in progress)
    assert all(event["retrieval_id"] == answer["retrieval_id"] for _, event in progress)
    paths = answer["seeds"][0]["paths"]
    assert paths and all("energy" in path for path in paths)


async def test_retrieve_at_a_moment_reports_it_and_refuses_a_contradiction(
    daphne_url: str, memory: str, token_for_role
) -> None:
    """The MCP tool takes the moment fields REST and the websocket take (docs/retrieval.md), checked alike."""
    token = await token_for_role("mcp-viewer", Role.VIEWER, [memory])
    seeds = [{"id": node_id(memory, "alice"), "score": 1.0}]
    async with http_session(daphne_url, token) as session:
        for algorithm in ("activation", "ppr"):
            arguments = {"group": memory, "seeds": seeds, "algorithm": algorithm, "as_of": "2021-01-01T02:00:00+02:00"}
            result = await session.call_tool("retrieve", arguments)
            assert not result.is_error, result
            assert result.structured_content["result"]["time"]["as_of"] == "2021-01-01T00:00:00Z", algorithm
        refused = await session.call_tool(
            "retrieve", {"group": memory, "seeds": seeds, "as_of": "2021-01-01T00:00:00Z", "include_invalidated": True}
        )
        problem = problem_of(refused)
        assert problem["code"] == "invalid" and "include_invalidated" in json.dumps(problem)


async def test_viewer_cannot_call_a_curator_tool(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("mcp-viewer", Role.VIEWER, [memory])
    before = await sync_to_async(count_group)(memory)
    async with http_session(daphne_url, token) as session:
        for name, arguments in (
            ("update_fact", {"group": memory, "fact_id": node_id(memory, "works"), "weight": 0.9}),
            ("invalidate_fact", {"group": memory, "fact_id": node_id(memory, "works")}),
            ("add_memory", {"group": memory, "episodes": [{"content": "A viewer tries to write."}]}),
            ("delete_fact", {"group": memory, "fact_id": node_id(memory, "works")}),
            ("delete_episode", {"group": memory, "episode_id": node_id(memory, "ep1")}),
            ("undo", {"group": memory}),
            ("clear_group", {"group": memory, "confirm": memory}),
        ):
            refused = await session.call_tool(name, arguments)
            assert problem_of(refused)["code"] == "permission_denied", name
    assert await sync_to_async(count_group)(memory) == before


async def test_another_groups_data_is_not_found_and_not_revealed(daphne_url: str, memory: str, token_for_role) -> None:
    """A token for group A naming group B (which exists and holds data) is answered like a missing group."""
    token = await token_for_role("mcp-other", Role.CURATOR, ["some-other-group"])
    alice = node_id(memory, "alice")
    async with http_session(daphne_url, token) as session:
        groups = await session.call_tool("list_groups", {})
        assert memory not in [g["group"] for g in groups.structured_content["groups"]]
        for name, arguments in (
            ("search_memory", {"group": memory, "query": "gloves"}),
            ("get_entity", {"group": memory, "entity_id": alice}),
            ("get_facts", {"group": memory, "entity_id": alice}),
            ("get_context", {"group": memory, "query": "Alice Martin"}),
            ("retrieve", {"group": memory, "seeds": [{"id": alice}]}),
            ("update_fact", {"group": memory, "fact_id": node_id(memory, "works"), "weight": 0.9}),
            ("add_memory", {"group": memory, "episodes": [{"content": "x"}]}),
            ("get_fact", {"group": memory, "fact_id": node_id(memory, "works")}),
            ("delete_fact", {"group": memory, "fact_id": node_id(memory, "works")}),
            ("list_episodes", {"group": memory}),
            ("delete_episode", {"group": memory, "episode_id": node_id(memory, "ep1")}),
            ("undo", {"group": memory}),
        ):
            refused = problem_of(await session.call_tool(name, arguments))
            missing = problem_of(await session.call_tool(name, {**arguments, "group": "no-such-group"}))
            assert refused["code"] == "not_found", name
            assert refused["detail"].replace(memory, "G") == missing["detail"].replace("no-such-group", "G"), name
            assert "Alice" not in json.dumps(refused)
        with pytest.raises(Exception) as raised:
            await session.read_resource(f"memoria://groups/{memory}/entities/{alice}")
        assert "not_found" in str(raised.value) and "Alice" not in str(raised.value)


BAD_ARGUMENTS: list[tuple[str, dict[str, Any], str]] = [
    ("list_groups", {"group": "x"}, "body: unknown field(s) group"),
    ("search_memory", {"query": "gloves", "limit": 0}, "limit"),
    ("search_memory", {"query": "gloves", "scopes": ["planets"]}, "scopes[0]"),
    ("search_memory", {"query": "", "recipe": "combined_hybrid_rrf"}, "query"),
    ("search_memory", {"query": "gloves", "valid_at": "yesterday"}, "valid_at"),
    ("search_memory", {"query": "gloves", "recipe": "best"}, "recipe: 'best' is not one of"),
    ("search_memory", {"query": "gloves", "recipe": "facts_hybrid_cross_encoder"}, "MEMORIA_CROSS_ENCODER_MODEL"),
    ("add_memory", {"episodes": [{"content": "x", "colour": "red"}]}, "episodes[0]: unknown field(s) colour"),
    (
        "add_memory",
        {"episodes": [{"content": "ok"}, {"content": "bad", "valid_at": "2024-13-01"}]},
        "episodes[1].valid_at",
    ),
    ("add_memory", {"episode": {"content": "x"}}, "unknown field(s) episode"),
    ("add_memory", {"episodes": []}, "episodes"),
    ("add_memory", {"episodes": [{"content": "x"}], "user_id": "a b"}, "user_id: must be a scope id"),
    ("add_memory", {"messages": [{"role": "bot", "content": "x"}]}, "messages[0].role: 'bot' is not one of user"),
    ("add_memory", {"messages": [{"role": "user", "content": "x", "time": 1}]}, "messages[0]: unknown field(s)"),
    ("add_memory", {"episodes": [{"content": "x"}], "messages": [{"role": "user", "content": "y"}]}, "not both"),
    ("add_memory", {"update_communities": False}, "give `episodes` or `messages`"),
    ("add_memory", {"episodes": [{"content": "x"}], "metadata": [{"key": "1x", "value": 1}]}, "metadata[0].key"),
    ("add_memory", {"episodes": [{"content": "x"}], "metadata": [{"key": "a", "value": [1]}]}, "metadata[0].value"),
    (
        "add_memory",
        {"episodes": [{"content": "x"}], "metadata": [{"key": "a", "value": 1}, {"key": "a", "value": 2}]},
        "metadata: key 'a' given twice",
    ),
    ("list_episodes", {"session_id": "s" * 129}, "session_id: must be a scope id"),
    ("add_memory", {"episodes": [{"content": "x\u0000y"}]}, "episodes[0].content"),
    ("get_context", {"query": "gloves", "budget_tokens": 5}, "budget_tokens"),
    ("get_context", {"query": "gloves", "as_of": "tomorrow", "format": "yaml"}, "format"),
    ("get_entity", {"entity_id": "bad id"}, "entity_id"),
    ("get_facts", {"entity_id": "x", "limit": 100000}, "limit"),
    ("retrieve", {"seeds": [{"id": "x", "score": 2}]}, "seeds[0].score"),
    ("retrieve", {"algorithm": "ppr", "query": "gloves", "query_tags": ["a"]}, "query_tags"),
    ("retrieve", {"seeds": [{"id": "x"}], "max_branches": -1}, "max_branches"),
    ("retrieve", {"seeds": [{"id": "x"}], "params": {"max_depth": 2}}, "unknown field(s) params"),
    ("retrieve", {"algorithm": "ppr", "seeds": [{"id": "x"}], "max_depth": 2}, "max_depth"),
    ("update_fact", {"fact_id": "x", "weight": 7}, "weight"),
    ("update_fact", {"fact_id": "x", "tags": ["a"] * 40}, "tags"),
    ("invalidate_fact", {"fact_id": "x", "invalid_at": "soon"}, "invalid_at"),
    ("invalidate_fact", {"fact_id": "x", "version": "NOT HEX"}, "version"),
    ("status", {"verbose": True}, "body: unknown field(s) verbose"),
    ("get_fact", {"fact_id": "bad id"}, "fact_id"),
    ("get_fact", {}, "fact_id"),
    ("delete_fact", {"fact_id": "x", "version": "NOT HEX"}, "version"),
    ("delete_fact", {"fact_id": "x", "reason": "dup"}, "unknown field(s) reason"),
    ("list_episodes", {"limit": 1000}, "limit"),
    ("list_episodes", {"offset": -1}, "offset"),
    ("list_episodes", {"text_tokens": 0}, "text_tokens"),
    ("delete_episode", {"episode_id": "a b"}, "episode_id"),
    ("delete_episode", {"episode_id": "x", "cascade": False}, "unknown field(s) cascade"),
    ("undo", {"entry": 3}, "unknown field(s) entry"),
]


async def test_bad_arguments_name_the_field_and_write_nothing(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("mcp-curator", Role.CURATOR, [memory])
    before = await sync_to_async(count_group)(memory)
    async with http_session(daphne_url, token) as session:
        for name, arguments, field in BAD_ARGUMENTS:
            given = arguments if name in ("list_groups", "status") else {"group": memory, **arguments}
            found = problem_of(await session.call_tool(name, given))
            assert found["code"] == "invalid", (name, found)
            assert any(field in problem for problem in found["errors"]), (name, field, found["errors"])
        bad_group = problem_of(await session.call_tool("get_entity", {"group": "no spaces", "entity_id": "x"}))
        assert bad_group["code"] == "invalid" and bad_group["errors"][0].startswith("group:")
    assert await sync_to_async(count_group)(memory) == before


def _store_hostile(group: str) -> None:
    """Thirty entities with 400-character names and long base64 summaries, long facts between them, and episodes
    of 50,000 characters mentioning them: what a default call must not pass on whole."""
    rng = random.Random(29)
    names = [f"Pump {index} " + "x" * 400 for index in range(30)]
    document = {
        "nodes": [
            {
                "id": f"n{index}",
                "name": name,
                "labels": ["Entity"],
                "summary": base64.b64encode(rng.randbytes(3000)).decode(),
            }
            for index, name in enumerate(names)
        ]
        + [
            {"id": f"e{index}", "name": f"e{index}", "labels": ["Episode"], "content": "pump 泵 🔧 " * 5000}
            for index in range(30)
        ],
        "edges": [
            {
                "id": f"f{index}-{step}",
                "source": f"n{index}",
                "target": f"n{(index + step) % 30}",
                "relation": "feeds",
                "weight": 0.9,
                "tags": [],
                "fact": "pump feeds " + "y" * 5000,
            }
            for index in range(30)
            for step in (1, 2, 3)
        ],
        "mentions": [{"episode": f"e{index}", "entity": f"n{index}"} for index in range(30)],
    }
    graph_document_import(document=parse_graph_document(document, group=group), group=group)
    group_reindex(group=group)


async def test_default_search_and_retrieve_stay_under_their_stated_size(
    daphne_url: str, group: str, token_for_role
) -> None:
    await sync_to_async(_store_hostile)(group)
    token = await token_for_role("mcp-viewer", Role.VIEWER, [group])
    async with http_session(daphne_url, token) as session:
        found = await session.call_tool("search_memory", {"group": group, "query": "pump feeds pump"})
        assert not found.is_error, found
        assert sum(len(found.structured_content[scope]) for scope in found.structured_content if scope != "engine") > 10
        assert token_count(found.content[0].text) <= DEFAULT_ANSWER_TOKENS
        walked = await session.call_tool(
            "retrieve", {"group": group, "query": "pump feeds pump", "min_activation": 0.0001}
        )
        assert not walked.is_error, walked
        result = walked.structured_content["result"]
        kept = sum(len(seed["paths"]) for seed in result["seeds"])
        assert 0 < kept <= DEFAULT_MAX_PATHS <= result["paths_total"]
        assert token_count(walked.content[0].text) <= DEFAULT_ANSWER_TOKENS
        wider = await session.call_tool(
            "search_memory", {"group": group, "query": "pump feeds pump", "limit": 20, "text_tokens": 500}
        )
        assert token_count(wider.content[0].text) > DEFAULT_ANSWER_TOKENS  # the limits are what kept it small


async def test_default_answers_on_the_demo_memory_stay_under_their_stated_size(
    daphne_url: str, group: str, token_for_role
) -> None:
    await sync_to_async(call_command)("load_demo", "--group", group, "--quiet", stdout=io.StringIO())
    token = await token_for_role("mcp-viewer", Role.VIEWER, [group])
    sizes = {}
    async with http_session(daphne_url, token) as session:
        for query in ("stockouts in Lyon", "safety stock", "Who approved the transfer to Valencia?"):
            found = await session.call_tool("search_memory", {"group": group, "query": query})
            walked = await session.call_tool("retrieve", {"group": group, "query": query})
            assert not found.is_error and not walked.is_error, (found, walked)
            sizes[query] = (token_count(found.content[0].text), token_count(walked.content[0].text))
        full = await session.call_tool("retrieve", {"group": group, "query": query, "detail": "full"})
        hop = full.structured_content["result"]["seeds"][0]["paths"][0]["hops"][0]
        assert {"weight", "degree", "tag_similarity", "parent_activation"} <= set(hop)  # the arithmetic, on request
        assert token_count(full.content[0].text) > DEFAULT_ANSWER_TOKENS  # compact is what kept the default small
    print(sizes)
    assert all(size <= DEFAULT_ANSWER_TOKENS for pair in sizes.values() for size in pair), sizes
