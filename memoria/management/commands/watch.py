"""`watch --group G`: an example websocket client that prints a group's retrievals as they happen.

Also shows how a program talks to Memoria: through the Python client (clients/python), with a token.
With `--run-query TEXT` it starts a retrieval itself and prints its events.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from memoria_client import (
    AsyncRetrievalStream,
    AsyncWatchStream,
    ErrorEvent,
    RetrievalFinished,
    StreamError,
    socket_url,
)

from memoria.retrieval.engines import ENGINES
from memoria.retrieval.event_types import EventType


class Command(BaseCommand):
    help = "Watch a group's retrievals live over the websocket (or run one with --run-query)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", required=True)
        parser.add_argument("--token", required=True, help="an API token (python manage.py memoria_token ...)")
        parser.add_argument("--url", default=None, help="server base URL (default: this instance's host and port)")
        parser.add_argument("--run-query", default=None, help="start an activation retrieval for this text instead")
        parser.add_argument(
            "--engine", choices=ENGINES, default=None, help="with --run-query: the engine (default: the server's)"
        )
        parser.add_argument("--count", type=int, default=0, help="stop after this many retrievals (0: never)")
        parser.add_argument("--json", action="store_true", dest="raw", help="print raw JSON events")

    def handle(
        self,
        *args: Any,
        group: str,
        token: str,
        url: str | None,
        run_query: str | None,
        engine: str | None,
        count: int,
        raw: bool,
        **options: Any,
    ) -> None:
        base = (url or f"http://{settings.MEMORIA_HOST}:{settings.MEMORIA_PORT}").rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise CommandError("--url must start with http:// or https://")
        try:
            asyncio.run(self.watch(base, group, token, run_query, engine, count, raw))
        except KeyboardInterrupt:
            pass
        except OSError as error:
            raise CommandError(f"cannot connect to {socket_url(base, '')}: {error}") from error

    async def watch(
        self, base: str, group: str, token: str, run_query: str | None, engine: str | None, count: int, raw: bool
    ) -> None:
        """Print events as they come, through the Python client (clients/python): the same code an agent would use."""
        stream = AsyncRetrievalStream(base, token) if run_query else AsyncWatchStream(base, token, group)
        try:
            async with stream:
                if isinstance(stream, AsyncRetrievalStream):
                    await stream.start(group, query=run_query, engine=engine)
                    count = 1
                finished = 0
                async for event in stream.events():
                    self.stdout.write(json.dumps(event.data) if raw else describe(event.data))
                    if isinstance(event, ErrorEvent) and event.code in ("unauthenticated", "not_found"):
                        raise CommandError(event.message)
                    if isinstance(event, RetrievalFinished):
                        finished += 1
                        if count and finished >= count:
                            return
        except StreamError as error:  # a refused handshake ("the server refused the websocket: HTTP 403")
            raise CommandError(str(error)) from error


def describe(event: dict[str, Any]) -> str:
    """One readable line per event."""
    kind = event["type"]
    rid = event.get("retrieval_id", "")[:8]
    if kind == EventType.RETRIEVAL_STARTED:
        seeds = ", ".join(f"{s['id']} ({s['score']:.2f})" for s in event["seeds"])
        engine = event.get("engine") or {}
        on = f" on {engine['name']}" if engine else ""
        return f"[{rid}] started by {event.get('requested_by')}{on}: seeds {seeds or '-'}; tags {event['query_tags']}"
    if kind == EventType.SEED_STARTED:
        return f"[{rid}] {event['seed_id']} started (score {event['score']:.2f})"
    if kind == EventType.LEVEL_EXPANDED:
        return f"[{rid}] {event['seed_id']} depth {event['depth']}: {event['frontier_size']} → {event['selected']}"
    if kind == EventType.PATH_COMPLETED:
        path = event["path"]
        return f"[{rid}]   path {' → '.join(path['nodes'])} (energy {path['energy']:.4f}, {path['end_reason']})"
    if kind == EventType.SEED_FINISHED:
        return f"[{rid}] {event['seed_id']} {event['status']}: {len(event.get('paths', []))} path(s)"
    if kind == EventType.RETRIEVAL_FINISHED:
        return f"[{rid}] finished {event['status']}: {event.get('paths', 0)} path(s) in {event.get('elapsed_ms', 0)} ms"
    return f"[{rid}] {kind}: {event.get('message', '')}"
