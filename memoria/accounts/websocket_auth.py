"""Websocket authentication for programs: a DRF token in the `Authorization: Token …` header or `?token=`.

Browsers arrive with their session cookie instead, handled by Channels' AuthMiddlewareStack.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import AllowedHostsOriginValidator
from django.contrib.auth.models import AnonymousUser
from rest_framework.authtoken.models import Token


@database_sync_to_async
def _user_for_token(key: str) -> Any:
    token = Token.objects.select_related("user").filter(key=key).first()
    return token.user if token and token.user.is_active else AnonymousUser()


def _token_from_scope(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, key = value.decode("latin-1").partition(" ")
            if scheme.lower() == "token" and key.strip():
                return key.strip()
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return query.get("token", [None])[0]


class TokenAuthMiddleware(BaseMiddleware):
    """Sets scope['user'] from a token when one is given; otherwise leaves the session's user."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        key = _token_from_scope(scope)
        if key is not None:
            scope = dict(scope, user=await _user_for_token(key))
        return await super().__call__(scope, receive, send)


class OriginCheck:
    """Browsers always send Origin, and only they carry session cookies: check it when present (allowed hosts).

    A program sends no Origin; it is let through only with a token, so a missing
    Origin can never smuggle a browser session in.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.validated = AllowedHostsOriginValidator(app)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        has_origin = any(name == b"origin" for name, _ in scope.get("headers", []))
        if not has_origin and _token_from_scope(scope) is not None:
            return await self.app(scope, receive, send)
        return await self.validated(scope, receive, send)
