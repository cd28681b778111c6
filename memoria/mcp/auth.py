"""Who is calling an MCP tool: the REST API's DRF tokens, checked before the MCP server sees a request.

Over HTTP every request carries `Authorization: Bearer <token>` (what MCP clients send) or `Token <token>` (what
the REST API takes); without a valid one the answer is 401 and no tool runs. Over stdio the token comes from the
environment once, at start (management command `mcp`).
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from django.contrib.auth.models import AbstractBaseUser
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context
from rest_framework.authtoken.models import Token

from memoria.errors import NotAuthenticated

SCHEMES = ("bearer", "token")
TOKEN_VARIABLE = "MEMORIA_TOKEN"  # noqa: S105 - the name of the variable `manage.py mcp` reads, not a token
CHALLENGE = b'Bearer realm="memoria", Token realm="memoria"'


def user_for_token(key: str) -> AbstractBaseUser | None:
    """The active user a DRF token belongs to, or None for an unknown token or an inactive user."""
    token = Token.objects.select_related("user").filter(key=key).first()
    return token.user if token and token.user.is_active else None


def token_from_headers(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The token of an `Authorization: Bearer …` or `Token …` header; None when there is none."""
    for name, value in headers:
        if name == b"authorization":
            scheme, _, key = value.decode("latin-1").partition(" ")
            if scheme.lower() in SCHEMES and key.strip():
                return key.strip()
    return None


class TokenCaller(AuthenticatedUser):
    """The signed-in caller as the MCP SDK sees it (its session ownership compares the user id) and as tools do."""

    def __init__(self, user: AbstractBaseUser, key: str) -> None:
        # No OAuth scopes: what a caller may do is its role and groups, read afresh at every tool call.
        super().__init__(AccessToken(token=key, client_id=str(user.pk), scopes=[]))
        self.user = user


async def json_answer(send: Any, status: int, answer: dict[str, Any], headers: list[tuple[bytes, bytes]]) -> None:
    """A whole JSON answer sent on an ASGI connection, for the refusals made before the SDK sees a request."""
    body = json.dumps(answer).encode()
    fixed = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*fixed, *headers]})
    await send({"type": "http.response.body", "body": body})


async def _refuse(send: Any, detail: str) -> None:
    await json_answer(send, 401, {"detail": detail, "code": "not_authenticated"}, [(b"www-authenticate", CHALLENGE)])


class TokenAuth:
    """ASGI middleware: 401 unless the request carries a valid token; otherwise scope["user"] is its caller."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        key = token_from_headers(scope.get("headers", []))
        if key is None:
            await _refuse(send, "Send your Memoria token as 'Authorization: Bearer <token>' (or 'Token <token>').")
            return
        user = await database_sync_to_async(user_for_token)(key)
        if user is None:
            await _refuse(send, "Invalid token.")
            return
        await self.app(dict(scope, user=TokenCaller(user, key)), receive, send)


def caller(ctx: Context) -> AbstractBaseUser:
    """The Django user behind a tool call: the HTTP request's (its token checked by TokenAuth), else the stdio
    server's, whose token is looked up again at every call so that revoking it takes effect at once."""
    request = ctx.request_context.request
    scope_user = getattr(request, "scope", {}).get("user") if request is not None else None
    if isinstance(scope_user, TokenCaller):
        return scope_user.user
    key = getattr(ctx.mcp_server, "stdio_token", None)
    user = user_for_token(key) if key else None
    if user is None:
        raise NotAuthenticated(f"{TOKEN_VARIABLE} is no longer a valid token of an active user")
    return user
