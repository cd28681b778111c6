"""Live events for a group's watchers, through one publish function: every event of a retrieval in the group,
committed curation changes (so open views of the group update) and background jobs' progress.

Every event is built and handed over as a typed object (memoria.retrieval.event_types for retrievals, the classes
below for curation and jobs); its class says its feed, and it becomes the JSON frame it travels as only here, once,
for the channel layer (in-process by default, Redis across processes) and the retrieval journal.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from memoria.retrieval.event_types import RetrievalEvent
from memoria.retrieval.journal import retrieval_journal

PUBLISH_TIMEOUT_SECONDS = 5.0


class Feed(StrEnum):
    """What a message on a group's watch channel carries: its channel-layer type, which the watch consumer
    handles in the method of the same name (a dot read as an underscore: `retrieval_event`, …)."""

    RETRIEVAL = "retrieval.event"  # an event of a retrieval in the group; the journal keeps it too
    CURATION = "curation.event"  # a committed curation change (docs/curation.md)
    JOB = "job.event"  # a background job of the group changed state or made progress (docs/api.md, "Jobs")


class WatchEventType(StrEnum):
    """The frame "type" of the events that are not a retrieval's (those are EventType's)."""

    CURATION = "curation"
    JOB = "job"


@dataclass(frozen=True, kw_only=True)
class CurationChanged:
    """A committed curation change (docs/curation.md): the audit entry without its full states, and the touched
    nodes and facts as they are now (None for one the change removed)."""

    type: ClassVar[WatchEventType] = WatchEventType.CURATION
    group: str
    entry: dict[str, Any]
    nodes: dict[str, dict[str, Any] | None]
    edges: dict[str, dict[str, Any] | None]

    def frame(self) -> dict[str, Any]:
        return {
            "type": self.type.value,
            "group": self.group,
            "entry": self.entry,
            "nodes": self.nodes,
            "edges": self.edges,
        }


@dataclass(frozen=True, kw_only=True)
class JobChanged:
    """A background job as it is stored now: queued, progressing or ended (docs/websocket.md, "Jobs")."""

    type: ClassVar[WatchEventType] = WatchEventType.JOB
    job: dict[str, Any]

    def frame(self) -> dict[str, Any]:
        return {"type": self.type.value, "job": self.job}


LiveEvent = RetrievalEvent | CurationChanged | JobChanged


def feed_of(event: LiveEvent) -> Feed:
    match event:
        case RetrievalEvent():
            return Feed.RETRIEVAL
        case CurationChanged():
            return Feed.CURATION
        case JobChanged():
            return Feed.JOB


# The server's event loop, adopted by memoria.asgi on its first request: threads that are not the server's
# (background jobs) publish through it, since the in-process channel layer's queues belong to that loop.
_server_loop: asyncio.AbstractEventLoop | None = None


def adopt_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    global _server_loop
    _server_loop = loop


def watch_channel_group(group: str) -> str:
    """Channel-layer group of a memory group's watchers (group names are already plain ASCII)."""
    return f"retrievals.{group}"


async def publish(group: str, event: LiveEvent) -> None:
    """Send one event to the group's watchers; a retrieval's is kept in the journal as well, for watchers who
    arrive after it started."""
    feed = feed_of(event)
    frame = event.frame()
    if feed is Feed.RETRIEVAL:
        retrieval_journal.record(group, frame)
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(watch_channel_group(group), {"type": feed.value, "event": frame})


def publish_from_thread(group: str, event: LiveEvent) -> None:
    """publish from a plain thread (a background job): on the server's loop when there is one, else on a loop of
    its own."""
    loop = _server_loop
    if loop is not None and loop.is_running():
        asyncio.run_coroutine_threadsafe(publish(group, event), loop).result(PUBLISH_TIMEOUT_SECONDS)
    else:
        async_to_sync(publish)(group, event)


async def broadcast_events(group: str, events: AsyncIterator[RetrievalEvent]) -> AsyncIterator[RetrievalEvent]:
    """Pass events through, sending each to the group's watchers as it goes by."""
    async for event in events:
        await publish(group, event)
        yield event
