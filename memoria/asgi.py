"""ASGI entry point: HTTP through Django (and /mcp through the MCP server), websockets through Channels."""

import asyncio
import logging
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoria.settings")
django_asgi_app = get_asgi_application()

from asgiref.sync import sync_to_async  # noqa: E402
from channels.auth import AuthMiddlewareStack  # noqa: E402 - needs Django set up first
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from explorer.routing import websocket_urlpatterns  # noqa: E402
from memoria.accounts.websocket_auth import OriginCheck, TokenAuthMiddleware  # noqa: E402
from memoria.graph.driver import adopt_running_loop  # noqa: E402
from memoria.heap import long_lived_frozen  # noqa: E402
from memoria.jobs.service import jobs_recover_once  # noqa: E402
from memoria.live import adopt_server_loop  # noqa: E402
from memoria.mcp.server import MCP_PATH, McpHttpApp  # noqa: E402


class AdoptServerLoop:
    """Marks the server's event loop as long-lived on the first call, so the process shares one async driver and
    background jobs publish through it; jobs a stopped server left running are marked failed then too."""

    def __init__(self, app: object) -> None:
        self.app = app
        self.adopted = False

    async def __call__(self, scope: dict, receive: object, send: object) -> object:
        if not self.adopted:
            adopt_running_loop()
            adopt_server_loop(asyncio.get_running_loop())
            self.adopted = True
            try:
                await sync_to_async(jobs_recover_once)()
            except Exception:  # a database not migrated yet: the jobs API says so when it is used
                logging.getLogger(__name__).exception("could not mark interrupted jobs failed")
        return await self.app(scope, receive, send)


class McpOrDjango:
    """/mcp goes to the MCP server (its own token check, no session cookies); every other path to Django."""

    def __init__(self, django_app: object) -> None:
        self.django_app = django_app
        self.mcp_app = McpHttpApp()

    async def __call__(self, scope: dict, receive: object, send: object) -> object:
        if scope["path"] == MCP_PATH:
            return await self.mcp_app(scope, receive, send)
        return await self.django_app(scope, receive, send)


router = ProtocolTypeRouter(
    {
        "http": McpOrDjango(django_asgi_app),
        "websocket": OriginCheck(AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))),
    }
)
application = AdoptServerLoop(router)
long_lived_frozen()  # the modules and settings just loaded live as long as the process (memoria/heap.py)
