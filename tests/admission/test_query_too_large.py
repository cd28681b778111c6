"""A retrieval too large for the graph server is refused alike by REST and MCP: the real refusal of a server with a
1 MB query heap budget (arcadedb.queryMaxHeapRAM) answers REST's 422 `query_too_large` body as the MCP tool's
problem too, word for word, with no retry advice on either face (before the error table, MCP called it `error`)."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.graph.embedded import EmbeddedServer
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.mcp.client import http_session
from tests.conftest import running_daphne

pytestmark = pytest.mark.django_db(transaction=True)

GROUP = "hub"  # on a server of its own, removed with it (deleting the hub would meet the budget too)
# A seed whose edges activation sorts by transfer energy: thousands of rows for the in-heap ORDER BY.
SPOKES = 4000


def hub_store() -> None:
    spokes = [f"n{index}" for index in range(SPOKES)]
    document = {
        "nodes": [{"id": f"{GROUP}-{name}", "name": name} for name in ["hub", *spokes]],
        "edges": [
            {
                "id": f"{GROUP}-e{index}",
                "source": f"{GROUP}-hub",
                "target": f"{GROUP}-{name}",
                "relation": "rel",
                "weight": 0.9,
            }
            for index, name in enumerate(spokes)
        ],
    }
    graph_document_import(document=parse_graph_document(document, group=GROUP), group=GROUP)


def viewer_token() -> str:
    return token_for(user=user_grant(username="hub-viewer", role=Role.VIEWER, groups=[GROUP]))


async def test_rest_and_mcp_answer_a_query_too_large_with_one_problem(
    heap_limited_graph_server: EmbeddedServer,
) -> None:
    server = heap_limited_graph_server
    await asyncio.to_thread(hub_store)
    token = await sync_to_async(viewer_token)()
    seeds = [{"id": f"{GROUP}-hub", "score": 1.0}]

    def rest_post() -> tuple[int, dict, str | None]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        response = client.post("/api/retrieval/activation", {"group": GROUP, "seeds": seeds}, format="json")
        return response.status_code, response.json(), response.headers.get("Retry-After")

    status, rest, retry_header = await sync_to_async(rest_post)()
    assert (status, rest["code"], rest["too_large"], retry_header) == (422, "query_too_large", "ORDER BY", None), rest
    assert "retry_after" not in rest

    ports = {
        "MEMORIA_TEST_GRAPH_BOLT_PORT": str(server.bolt_port),
        "MEMORIA_TEST_GRAPH_HTTP_PORT": str(server.http_port),
    }
    with running_daphne(settings.VAR_DIR / "daphne-admission-heap.log", wait_seconds=30, **ports) as port:
        async with http_session(f"http://127.0.0.1:{port}", token) as session:
            result = await session.call_tool("retrieve", {"group": GROUP, "seeds": seeds})
    assert result.is_error, result
    text = result.content[0].text
    assert json.loads(text[text.index("{") :]) == rest
