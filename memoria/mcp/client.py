"""An MCP client session to a Memoria server over streamable HTTP, with a token: what `bench mcp` and the tests use.

The SDK's own client (httpx2 underneath); the REST calls the benchmark compares with go through the same kind of
HTTP client (create_mcp_http_client), so the two differ only in what the server does.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from memoria.mcp.server import MCP_PATH

READ_TIMEOUT_SECONDS = 120.0  # a retrieval on a loaded machine may take a while; the server has its own budget


@contextlib.asynccontextmanager
async def http_session(
    base_url: str, token: str, *, scheme: str = "Bearer", read_timeout: float = READ_TIMEOUT_SECONDS
) -> AsyncIterator[ClientSession]:
    """An initialised session to base_url/mcp sending `Authorization: <scheme> <token>`."""
    headers = {"Authorization": f"{scheme} {token}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(f"{base_url}{MCP_PATH}", http_client=http) as (read, write),
        ClientSession(read, write, read_timeout_seconds=read_timeout) as session,
    ):
        await session.initialize()
        yield session
