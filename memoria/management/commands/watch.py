"""`watch --group G`: an example websocket client that prints a group's retrievals as they happen.

Also shows how a program talks to Memoria: a token in the Authorization header.
With `--run-query TEXT` it starts a retrieval itself and prints its events.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.retrieval.engines import ENGINES


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
        socket_base = "ws" + base[4:]
        try:
            asyncio.run(self.watch(socket_base, group, token, run_query, engine, count, raw))
        except KeyboardInterrupt:
            pass
        except OSError as error:
            raise CommandError(f"cannot connect to {socket_base}: {error}") from error

    async def watch(
        self, base: str, group: str, token: str, run_query: str | None, engine: str | None, count: int, raw: bool
    ) -> None:
        import websockets

        headers = {"Authorization": f"Token {token}"}
        path = "/ws/retrievals/" if run_query else f"/ws/retrievals/watch/?group={group}"
        try:
            async with websockets.connect(base + path, additional_headers=headers, max_size=2**24) as socket:
                if run_query:
                    frame = {"type": "retrieve", "algorithm": "activation", "group": group, "query": run_query}
                    await socket.send(json.dumps({**frame, **({"engine": engine} if engine else {})}))
                    count = 1
                finished = 0
                async for frame in socket:
                    event = json.loads(frame)
                    self.stdout.write(json.dumps(event) if raw else describe(event))
                    if event["type"] == "error" and event.get("code") in ("unauthenticated", "not_found"):
                        raise CommandError(event["message"])
                    if event["type"] == "retrieval_finished":
                        finished += 1
                        if count and finished >= count:
                            return
        except websockets.InvalidStatus as error:
            raise CommandError(f"the server refused the websocket: HTTP {error.response.status_code}") from error


def describe(event: dict[str, Any]) -> str:
    """One readable line per event."""
    kind = event["type"]
    rid = event.get("retrieval_id", "")[:8]
    if kind == "retrieval_started":
        seeds = ", ".join(f"{s['id']} ({s['score']:.2f})" for s in event["seeds"])
        engine = event.get("engine") or {}
        on = f" on {engine['name']}" if engine else ""
        return f"[{rid}] started by {event.get('requested_by')}{on}: seeds {seeds or '-'}; tags {event['query_tags']}"
    if kind == "seed_started":
        return f"[{rid}] {event['seed_id']} started (score {event['score']:.2f})"
    if kind == "level_expanded":
        return f"[{rid}] {event['seed_id']} depth {event['depth']}: {event['frontier_size']} → {event['selected']}"
    if kind == "path_completed":
        path = event["path"]
        return f"[{rid}]   path {' → '.join(path['nodes'])} (energy {path['energy']:.4f}, {path['end_reason']})"
    if kind == "seed_finished":
        return f"[{rid}] {event['seed_id']} {event['status']}: {len(event.get('paths', []))} path(s)"
    if kind == "retrieval_finished":
        return f"[{rid}] finished {event['status']}: {event.get('paths', 0)} path(s) in {event.get('elapsed_ms', 0)} ms"
    return f"[{rid}] {kind}: {event.get('message', '')}"
