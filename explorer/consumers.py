"""Websocket consumers. `HealthConsumer` lets a client check its connection and the graph's state."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from memoria.graph.health import graph_health

# Close codes in the 4000 range are ours (documented in docs/websocket.md).
CLOSE_UNAUTHENTICATED = 4401


class HealthConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            # Accept first: a close before accept is an HTTP 403 that browsers report only as 1006.
            await self.accept()
            await self.send_json({"type": "error", "code": "unauthenticated", "message": "sign in or send a token"})
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.accept()
        await self.send_health()

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_health()
        else:
            await self.send_json({"type": "error", "message": 'expected {"type": "ping"}'})

    async def send_health(self) -> None:
        health = await database_sync_to_async(graph_health)()
        await self.send_json({"type": "health", "user": self.scope["user"].get_username(), "graph": health.as_dict()})
