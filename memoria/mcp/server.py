"""The MCP server: Memoria's tools and resources on the official SDK, served over streamable HTTP at /mcp (by
the app's own ASGI application) and over stdio (`manage.py mcp`).

HTTP runs stateless: every POST is authenticated and served on its own, so no session lives in one process's
memory and several app processes can share the load, as the REST API does. A tool's progress notifications
travel on the stream of the POST that called it; there is no stream of the server's own to open with GET, nor a
session to end with DELETE, so both answer 405 (the SDK would hold a GET's stream open with pings forever).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.transport_security import TransportSecuritySettings

from memoria.accounts.services import check_access
from memoria.browse.selectors import entity_page, episode_page
from memoria.errors import GroupNotFound
from memoria.mcp.auth import TokenAuth, caller, json_answer
from memoria.mcp.errors import HANDLED, problem
from memoria.mcp.tools import TOOLS, facts_versioned, sdk_tool
from memoria.requests.vocabulary import GroupName, NodeId, RequestModel, input_parse

MCP_PATH = "/mcp"
STATELESS_METHODS = ("POST",)  # what /mcp answers when stateless: each call is a POST, its answer streams back
SERVER_NAME = "memoria"
INSTRUCTIONS = (
    "Memoria is a memory graph: episodes (what was said or happened), the entities they mention, and facts"
    " between entities that hold over a time span. Start with list_groups; find things with search_memory;"
    " follow connections with retrieve; read an entity with get_entity and get_facts, a fact with get_fact (its"
    " version is what an edit sends back), recent episodes with list_episodes; remember with add_memory."
)
ENTITY_URI = "memoria://groups/{group}/entities/{entity_id}"
EPISODE_URI = "memoria://groups/{group}/episodes/{episode_id}"


class _NodeAddress(RequestModel):
    group: GroupName
    id: NodeId


def _page_json(ctx: Context, group: str, node_id: str, read: Any) -> str:
    """A resource read: the same access check as the tools (a group you may not see is not found)."""
    try:
        user: AbstractBaseUser = caller(ctx)
        address = input_parse(_NodeAddress, {"group": group, "id": node_id})
        check_access(user=user, group=address.group)
        page = read(address.group, address.id)
    except GroupNotFound as error:
        raise ResourceNotFoundError(json.dumps(problem(error))) from error
    except HANDLED as error:
        raise ResourceError(json.dumps(problem(error))) from error
    return json.dumps(page, ensure_ascii=False, default=list)


def _entity(group: str, entity_id: str) -> dict[str, Any]:
    page = entity_page(group=group, entity_id=entity_id)
    return {
        "entity": page.detail.as_dict(),
        "facts": facts_versioned(group, [fact.as_dict() for fact in page.facts]),
        "fact_total": page.fact_total,
        "episodes": [vars(episode) for episode in page.episodes],
        "episode_total": page.episode_total,
    }


def _episode(group: str, episode_id: str) -> dict[str, Any]:
    page = episode_page(group=group, episode_id=episode_id)
    return {
        "episode": page.detail.as_dict(),
        "entities": [card.as_dict() for card in page.entities],
        "facts": facts_versioned(group, [fact.as_dict() for fact in page.facts]),
    }


def build_server(*, stdio_token: str | None = None) -> MCPServer:
    """The MCP server with every tool and resource; `stdio_token` names the caller when no HTTP request does."""
    server: MCPServer = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, tools=[sdk_tool(spec) for spec in TOOLS])
    server.stdio_token = stdio_token  # read by memoria.mcp.auth.caller

    @server.resource(ENTITY_URI, name="entity", mime_type="application/json")
    async def entity_resource(group: str, entity_id: str, ctx: Context) -> str:
        """An entity with its facts and the episodes that mention it."""
        return await database_sync_to_async(_page_json)(ctx, group, entity_id, _entity)

    @server.resource(EPISODE_URI, name="episode", mime_type="application/json")
    async def episode_resource(group: str, episode_id: str, ctx: Context) -> str:
        """An episode with the entities it mentions and the facts drawn from it."""
        return await database_sync_to_async(_page_json)(ctx, group, episode_id, _episode)

    return server


def transport_security() -> TransportSecuritySettings:
    """DNS-rebinding protection from Django's own host settings, so /mcp accepts the hosts the site does."""
    hosts = list(settings.ALLOWED_HOSTS)
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = list(settings.CSRF_TRUSTED_ORIGINS)
    for host in hosts:
        origins += [f"http://{host}", f"https://{host}", f"http://{host}:*", f"https://{host}:*"]
    return TransportSecuritySettings(allowed_hosts=[*hosts, *(f"{host}:*" for host in hosts)], allowed_origins=origins)


class McpHttpApp:
    """ASGI app for /mcp: the token check, then the SDK's streamable-HTTP handler.

    The SDK's session manager must be running before it serves a request; it is normally started by ASGI
    lifespan events, which daphne does not send, so it is started here on the first authenticated request and
    stopped just before daphne's reactor stops. Stopping it matters: the worker threads the SDK starts (a
    resource read runs through one) end only when the manager's task does, and would keep the process alive.
    """

    def __init__(self) -> None:
        self.server = build_server()
        self.starlette = self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            transport_security=transport_security(),
            # The REST API's limit (MEMORIA_MAX_REQUEST_BYTES): add_memory takes the batches the REST face does.
            max_request_body_size=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        )
        self.started: asyncio.Event | None = None
        self.runner: asyncio.Task | None = None
        self.app = TokenAuth(self._serve)

    async def _run_manager(self, started: asyncio.Event) -> None:
        async with self.server.session_manager.run():
            started.set()
            await asyncio.Event().wait()

    async def _stop_manager(self) -> None:
        if self.runner is not None:
            self.runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.runner

    def _stop_with_daphne(self) -> None:
        if "twisted.internet.reactor" not in sys.modules:  # not under daphne: the process's end stops the task
            return
        from twisted.internet import defer, reactor

        reactor.addSystemEventTrigger(
            "before", "shutdown", lambda: defer.Deferred.fromFuture(asyncio.ensure_future(self._stop_manager()))
        )

    async def _serve(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("method") not in STATELESS_METHODS:
            allowed = ", ".join(STATELESS_METHODS)
            detail = f"{scope.get('method')} is not served: this MCP server is stateless; send each call as {allowed}"
            await json_answer(
                send, 405, {"detail": detail, "code": "method_not_allowed"}, [(b"allow", allowed.encode())]
            )
            return
        if self.started is None:
            self.started = asyncio.Event()
            self.runner = asyncio.get_running_loop().create_task(self._run_manager(self.started))
            self._stop_with_daphne()
        assert self.runner is not None
        if not self.started.is_set():
            waiting = asyncio.ensure_future(self.started.wait())
            await asyncio.wait({waiting, self.runner}, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
        if self.runner.done():  # the manager failed to start or stopped: say so rather than wait forever
            raise RuntimeError("the MCP session manager is not running") from self._failure()
        await self.starlette(scope, receive, send)

    def _failure(self) -> BaseException | None:
        if self.runner is None or not self.runner.done() or self.runner.cancelled():
            return None
        return self.runner.exception()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)
