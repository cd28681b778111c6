"""Websocket authentication for programs: a DRF token in the `Authorization: Token …` header or `?token=`.

Browsers arrive with their session cookie instead, handled by Channels' AuthMiddlewareStack.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import OriginValidator
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host
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


def _header(scope: dict[str, Any], wanted: bytes) -> str | None:
    for name, value in scope.get("headers", []):
        if name == wanted:
            return value.decode("latin-1")
    return None


def own_origin(scope: dict[str, Any]) -> str | None:
    """The origin the handshake was addressed to (scheme, host and port of its Host header), when that host is
    one of ALLOWED_HOSTS: the origin of the server's own pages, which Django's CSRF check trusts the same way."""
    host = _header(scope, b"host")
    if not host:
        return None
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    scheme = "https" if scope.get("scheme") == "wss" else "http"
    return f"{scheme}://{host.lower()}"


class OriginCheck:
    """Browsers always send Origin, and only they carry session cookies: when present it must be the server's own
    origin or one of MEMORIA_ALLOWED_ORIGINS, scheme, host and port alike (channels' OriginValidator compares the
    three, a missing port read as the scheme's default). A page on another port of the same host is another site.

    A program sends no Origin; it is let through only with a token, so a missing Origin can never smuggle a browser
    session in. A token connection that does send an Origin is held to the same rule as a cookie one.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if _header(scope, b"origin") is None and _token_from_scope(scope) is not None:
            return await self.app(scope, receive, send)
        allowed = [origin for origin in (own_origin(scope), *settings.MEMORIA_ALLOWED_ORIGINS) if origin]
        return await OriginValidator(self.app, allowed)(scope, receive, send)
