"""Websocket consumers: thin adapters from frames to the engine's services and back (protocol: docs/websocket.md)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from explorer import frames
from explorer.errors import error_frame, is_expected
from explorer.frame_inputs import frame_envelope, retrieval_named, retrieve_header
from explorer.frames import ErrorCode, FrameType, unknown_type
from memoria.accounts.services import check_group_access
from memoria.admission.throttles import RateLimited, retrieval_count
from memoria.errors import GroupNotFound, InvalidInput
from memoria.graph.health import graph_health
from memoria.live import broadcast_events, publish, watch_channel_group
from memoria.ppr.events import ppr_events
from memoria.ppr.request import PprBody, PprRequest
from memoria.requests.vocabulary import input_parse
from memoria.retrieval.event_types import Algorithm, EventType, RetrievalFinished
from memoria.retrieval.journal import retrieval_journal
from memoria.retrieval.request import ActivationBody
from memoria.retrieval.runs import activation_run, new_retrieval_id

logger = logging.getLogger(__name__)

# Close codes in the 4000 range are ours (documented in docs/websocket.md).
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
MAX_RUNNING_PER_SOCKET = 4
ALGORITHMS = tuple(Algorithm)


class AuthenticatedConsumer(AsyncJsonWebsocketConsumer):
    """Accepts only signed-in users (session or token); others get an error frame and close code 4401."""

    refused = False

    async def connect(self) -> None:
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            # Accepting first lets the client read why: a close before accept is an HTTP 403 seen only as 1006.
            await self.refuse(frames.error(ErrorCode.UNAUTHENTICATED, "sign in or send a token"), CLOSE_UNAUTHENTICATED)
            return
        await self.on_authenticated()

    async def refuse(self, frame: dict[str, Any], code: int) -> None:
        """Say why, then close; frames the client sent meanwhile are dropped unread."""
        self.refused = True
        await self.send_json(frame)
        await self.close(code=code)

    async def on_authenticated(self) -> None:
        """Hook for subclasses, run once the user is known."""

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        """Bounded, decoded, and well-formed before any handler sees it; bad frames never close the socket."""
        if self.refused:
            return
        limit = settings.MEMORIA_WS_MAX_MESSAGE_BYTES
        # A character is at least one UTF-8 byte: a long text is refused before it is encoded, let alone parsed.
        if text_data is not None:
            too_large = len(text_data) > limit or len(text_data.encode()) > limit
        else:
            too_large = len(bytes_data or b"") > limit
        if too_large:
            await self.send_json(frames.error(ErrorCode.TOO_LARGE, f"messages are limited to {limit} bytes"))
            return
        if text_data is None:
            await self.send_json(error_frame(InvalidInput("message: send JSON text frames, not binary ones")))
            return
        try:
            content = json.loads(text_data)
        except (json.JSONDecodeError, RecursionError) as error:
            await self.send_json(error_frame(InvalidInput(f"message: malformed JSON: {error}")))
            return
        try:
            frame_envelope(content)
        except InvalidInput as error:
            await self.send_json(error_frame(error))
            return
        try:
            await self.receive_json(content)
        except InvalidInput as error:
            await self.send_json(error_frame(error))
        except Exception as error:  # one bad frame must not take the socket, or the server, down with it
            logger.exception("websocket frame %r failed", content.get("type"))
            await self.send_json(error_frame(error))


class HealthConsumer(AuthenticatedConsumer):
    async def on_authenticated(self) -> None:
        await self.send_health()

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if content.get("type") == FrameType.PING:
            await self.send_health()
        else:
            await self.send_json(unknown_type(content["type"], FrameType.PING))

    async def send_health(self) -> None:
        health = await database_sync_to_async(graph_health)()
        user = self.scope["user"].get_username()
        await self.send_json({"type": FrameType.HEALTH, "user": user, "graph": health.as_dict()})


class RetrievalConsumer(AuthenticatedConsumer):
    """Runs retrievals for the client and streams their events; `cancel` stops one."""

    async def on_authenticated(self) -> None:
        self.running: dict[str, asyncio.Task[None]] = {}

    async def disconnect(self, code: int) -> None:
        for task in list(getattr(self, "running", {}).values()):
            task.cancel()

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        kind = content["type"]
        if kind == FrameType.RETRIEVE:
            await self.start_retrieval(content)
        elif kind == FrameType.CANCEL:
            await self.cancel_retrieval(retrieval_named(content))
        else:
            await self.send_json(unknown_type(kind, FrameType.RETRIEVE, FrameType.CANCEL))

    async def start_retrieval(self, content: dict[str, Any]) -> None:
        header = retrieve_header(content)  # InvalidInput: an error frame, naming no retrieval (none was accepted)
        retrieval_id = header.retrieval_id or new_retrieval_id()
        if retrieval_id in self.running:
            await self.send_json(error_frame(InvalidInput(f"retrieval_id: {retrieval_id!r} is already running")))
            return
        if len(self.running) >= MAX_RUNNING_PER_SOCKET:
            busy = f"at most {MAX_RUNNING_PER_SOCKET} retrievals run at once per socket"
            await self.send_json(frames.error(ErrorCode.BUSY, busy, retrieval_id=retrieval_id))
            return
        try:  # the REST retrieval rate, counted as REST counts it: before the body is read
            await database_sync_to_async(retrieval_count)(user=self.scope["user"])
        except RateLimited as error:
            await self.send_json(error_frame(error, retrieval_id=retrieval_id))
            return
        try:
            model = PprBody if header.algorithm == Algorithm.PPR else ActivationBody
            request = input_parse(model, header.body()).request()
            await database_sync_to_async(check_group_access)(user=self.scope["user"], group=request.group)
        except (InvalidInput, GroupNotFound) as error:
            await self.send_json(error_frame(error, retrieval_id=retrieval_id))
            return
        self.running[retrieval_id] = asyncio.create_task(self.stream(request, retrieval_id))

    async def stream(self, request: Any, retrieval_id: str) -> None:
        user = self.scope["user"].get_username()
        if isinstance(request, PprRequest):
            events = ppr_events(request, retrieval_id=retrieval_id, requested_by=user)
        else:
            events = activation_run(request, retrieval_id=retrieval_id, requested_by=user)
        try:
            async for event in broadcast_events(request.group, events):
                await self.send_json(event.frame())
        except asyncio.CancelledError:
            cancelled = RetrievalFinished(retrieval_id=retrieval_id, status="cancelled")
            await self.send_json(cancelled.frame())
            await publish(request.group, cancelled)
        except Exception as error:
            # An outage, a projection still loading or an LLM failure is the client's to retry; those were logged
            # where they happened, so only the unexpected get a stack trace.
            if is_expected(error):
                logger.warning("retrieval %s failed: %s: %s", retrieval_id, type(error).__name__, error)
            else:
                logger.exception("retrieval %s failed", retrieval_id)
            await self.send_json(error_frame(error, retrieval_id=retrieval_id))
        finally:
            self.running.pop(retrieval_id, None)

    async def cancel_retrieval(self, retrieval_id: str) -> None:
        """Only this socket's own runs: another socket's (or user's) id is unknown here, whoever guesses it."""
        task = self.running.get(retrieval_id)
        if task is None:
            missing = "no retrieval with this id is running on this socket"
            await self.send_json(frames.error(ErrorCode.UNKNOWN_RETRIEVAL, missing, retrieval_id=retrieval_id))
            return
        task.cancel()


class WatchConsumer(AuthenticatedConsumer):
    """Forwards every retrieval event of one memory group, whoever started it, its curation changes and its jobs.

    Access is checked again at each retrieval's start, each curation change and each request, so a watcher
    whose access to the group is withdrawn is closed (4404) before it sees anything more of it.
    """

    async def on_authenticated(self) -> None:
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        group = query.get("group", [""])[0]
        if not await self.still_allowed(group):
            return
        self.group = group
        self.watched = watch_channel_group(group)
        await self.channel_layer.group_add(self.watched, self.channel_name)
        await self.send_json({"type": FrameType.WATCHING, "group": group})

    async def still_allowed(self, group: str) -> bool:
        """Whether the user may (still) see the group; if not, the socket is refused with 4404."""
        if self.refused:
            return False
        try:
            await database_sync_to_async(check_group_access)(user=self.scope["user"], group=group)
        except GroupNotFound as error:
            await self.disconnect(CLOSE_NOT_FOUND)
            await self.refuse(error_frame(error), CLOSE_NOT_FOUND)
            return False
        return True

    async def disconnect(self, code: int) -> None:
        if getattr(self, "watched", None):
            await self.channel_layer.group_discard(self.watched, self.channel_name)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        """`list` the group's journaled retrievals, or `replay` one's events so far; nothing else is asked."""
        if not await self.still_allowed(self.group):
            return
        kind = content["type"]
        if kind == FrameType.LIST:
            await self.send_json(
                {"type": FrameType.RETRIEVALS, "group": self.group, "retrievals": retrieval_journal.runs(self.group)}
            )
        elif kind == FrameType.REPLAY:
            retrieval_id = retrieval_named(content)
            replay = retrieval_journal.replay(self.group, retrieval_id)
            if replay is None:
                missing = "no recent retrieval with this id in this group"
                await self.send_json(frames.error(ErrorCode.UNKNOWN_RETRIEVAL, missing, retrieval_id=retrieval_id))
            else:
                await self.send_json({"type": FrameType.REPLAY, **replay})
        else:
            await self.send_json(unknown_type(kind, FrameType.LIST, FrameType.REPLAY))

    async def retrieval_event(self, message: dict[str, Any]) -> None:
        event = message["event"]
        # Once per retrieval, not per event: a run's later events follow its start, or the socket is closed.
        if event.get("type") == EventType.RETRIEVAL_STARTED and not await self.still_allowed(self.group):
            return
        if not self.refused:
            await self.send_json(event)

    async def curation_event(self, message: dict[str, Any]) -> None:
        """A committed curation change in the group: open views apply it (docs/curation.md)."""
        if await self.still_allowed(self.group):
            await self.send_json(message["event"])

    async def job_event(self, message: dict[str, Any]) -> None:
        """A background job of the group was queued, made progress or ended (docs/websocket.md, "Jobs")."""
        if await self.still_allowed(self.group):
            await self.send_json(message["event"])
