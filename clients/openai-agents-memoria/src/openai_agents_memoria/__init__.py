"""Memoria's MCP server for the OpenAI Agents SDK.

Memoria serves its memory tools over MCP (Streamable HTTP, stateless, a bearer token per user); the SDK's
`MCPServerStreamableHttp` speaks it as is. This module only saves the details an agent builder would otherwise
look up: the `/mcp` path, the token header, timeouts that fit a retrieval, and a read-only choice that keeps an
agent to the tools the server marks `readOnlyHint` (the server refuses a viewer's writes anyway; the filter keeps
them out of the model's tool list). Every tool's schema is strict-mode ready, so pass
`mcp_config={"convert_schemas_to_strict": True}` to the Agent (MEMORIA_MCP_CONFIG).
"""

from __future__ import annotations

from typing import Any

from agents.mcp import MCPServerStreamableHttp, MCPServerStreamableHttpParams

__all__ = ["MEMORIA_MCP_CONFIG", "memoria_mcp_server"]

# What an Agent built over Memoria's tools should be given as `mcp_config`: every tool converts to strict mode.
MEMORIA_MCP_CONFIG: dict[str, Any] = {"convert_schemas_to_strict": True}


def _read_only(_context: Any, tool: Any) -> bool:
    """A tool the server marks read-only (its MCP annotations); one without annotations is kept out."""
    annotations = getattr(tool, "annotations", None)
    # The MCP SDK names the hint readOnlyHint in its 1.x types and read_only_hint in its 2.x types.
    hint = getattr(annotations, "read_only_hint", getattr(annotations, "readOnlyHint", None))
    return hint is True


def memoria_mcp_server(
    url: str,
    token: str,
    *,
    name: str = "memoria",
    read_only: bool = False,
    timeout_seconds: float = 30.0,
) -> MCPServerStreamableHttp:
    """The SDK's MCP server for the Memoria at `url` (its base, e.g. http://127.0.0.1:8000), signed in with `token`
    (`python manage.py token <user>`). Use it as an async context manager, or connect() and cleanup() yourself.

    `timeout_seconds` bounds each request and each tool call: a retrieval over a large group takes seconds, where
    the SDK's default is 5.
    """
    params = MCPServerStreamableHttpParams(
        url=url.rstrip("/") + "/mcp",
        headers={"Authorization": f"Bearer {token}"},
        timeout=timeout_seconds,
        sse_read_timeout=timeout_seconds,
    )
    return MCPServerStreamableHttp(
        params,
        name=name,
        cache_tools_list=True,
        client_session_timeout_seconds=timeout_seconds,
        tool_filter=_read_only if read_only else None,
    )
