"""Strict websocket origins (issue 33, item 2), against a real daphne: scheme, host and port must all match.

The probe found that with the admin's session cookie, `Origin: http://127.0.0.1:9999`, `https://127.0.0.1` and
`http://localhost:8000` were accepted and ran a retrieval: any page served on another local port could drive the
signed-in user's retrievals. Each is refused here at the handshake (403), for cookie and token connections alike;
the server's own origin and the configured MEMORIA_ALLOWED_ORIGINS are let in.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
import websockets
from asgiref.sync import sync_to_async
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.config import env_origins
from tests.conftest import running_daphne
from tests.explorer.test_retrieval_socket import receive

pytestmark = pytest.mark.django_db(transaction=True)


def _credentials() -> tuple[str, str]:
    """An admin's session cookie (what the probe used) and a token of the same user."""
    admin = user_grant(username="origin-admin", role=Role.ADMIN, groups=[])
    client = Client()
    client.force_login(admin)
    return f"sessionid={client.cookies['sessionid'].value}", token_for(user=admin)


async def _first_frame(url: str, **headers: str) -> dict:
    async with websockets.connect(f"{url}/ws/health/", additional_headers=headers, open_timeout=10) as socket:
        return await receive(socket)


async def _refused(url: str, **headers: str) -> int:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await _first_frame(url, **headers)
    return refused.value.response.status_code


def _foreign_origins(own: str) -> list[str]:
    """Origins that share something with the server's own but are other sites: another port, another scheme,
    another name for the same host, no port at all, a look-alike domain."""
    port = urlsplit(own).port
    return [
        "http://127.0.0.1:9999",
        f"https://127.0.0.1:{port}",
        "https://127.0.0.1",
        f"http://localhost:{port}",
        "http://127.0.0.1",
        f"http://127.0.0.1.evil.example:{port}",
        "null",
    ]


async def test_only_the_servers_own_origin_opens_a_socket(daphne_url: str) -> None:
    cookie, token = await sync_to_async(_credentials)()
    ws = daphne_url.replace("http://", "ws://")
    assert (await _first_frame(ws, Cookie=cookie, Origin=daphne_url))["type"] == "health"
    assert (await _first_frame(ws, Authorization=f"Token {token}"))["type"] == "health"  # a program: no Origin
    for origin in _foreign_origins(daphne_url):
        assert await _refused(ws, Cookie=cookie, Origin=origin) == 403, origin
        assert await _refused(ws, Authorization=f"Token {token}", Origin=origin) == 403, origin


async def test_configured_origins_are_let_in_exactly(tmp_path: Path, daphne_url: str) -> None:
    cookie, _ = await sync_to_async(_credentials)()
    allowed = "https://memoria.example:8443"
    with running_daphne(tmp_path / "daphne.log", wait_seconds=60, MEMORIA_ALLOWED_ORIGINS=allowed) as port:
        ws = f"ws://127.0.0.1:{port}"
        assert (await _first_frame(ws, Cookie=cookie, Origin=allowed))["type"] == "health"
        assert (await _first_frame(ws, Cookie=cookie, Origin=f"http://127.0.0.1:{port}"))["type"] == "health"
        for origin in ("https://memoria.example", "http://memoria.example:8443", "https://memoria.example:8444"):
            assert await _refused(ws, Cookie=cookie, Origin=origin) == 403, origin


@pytest.mark.parametrize(
    "value", ["https://memoria.example/", "memoria.example", "ftp://memoria.example", "https://a.example/x", "https://"]
)
def test_a_malformed_allowed_origin_stops_the_start(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("MEMORIA_ALLOWED_ORIGINS", value)
    with pytest.raises(ImproperlyConfigured, match="must be an origin"):
        env_origins("MEMORIA_ALLOWED_ORIGINS")


def test_allowed_origins_are_read_lower_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORIA_ALLOWED_ORIGINS", "https://Memoria.Example:8443, http://127.0.0.1:9000")
    assert env_origins("MEMORIA_ALLOWED_ORIGINS") == ["https://memoria.example:8443", "http://127.0.0.1:9000"]
