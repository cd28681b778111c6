"""Live events for a group's watchers, through one publish function: every event of a retrieval in the group,
committed curation changes (so open views of the group update) and background jobs' progress (Feed says which).

Uses the channel layer (in-process by default, Redis across processes).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from enum import StrEnum
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from memoria.retrieval.journal import retrieval_journal

PUBLISH_TIMEOUT_SECONDS = 5.0


class Feed(StrEnum):
    """What a message on a group's watch channel carries: its channel-layer type, which the watch consumer
    handles in the method of the same name (a dot read as an underscore: `retrieval_event`, …)."""

    RETRIEVAL = "retrieval.event"  # an event of a retrieval in the group; the journal keeps it too
    CURATION = "curation.event"  # a committed curation change (docs/curation.md)
    JOB = "job.event"  # a background job of the group changed state or made progress (docs/api.md, "Jobs")


# The server's event loop, adopted by memoria.asgi on its first request: threads that are not the server's
# (background jobs) publish through it, since the in-process channel layer's queues belong to that loop.
_server_loop: asyncio.AbstractEventLoop | None = None


def adopt_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    global _server_loop
    _server_loop = loop


def watch_channel_group(group: str) -> str:
    """Channel-layer group of a memory group's watchers (group names are already plain ASCII)."""
    return f"retrievals.{group}"


async def publish(group: str, feed: Feed, event: dict[str, Any]) -> None:
    """Send one event to the group's watchers; a retrieval's is kept in the journal as well, for watchers who
    arrive after it started."""
    if feed is Feed.RETRIEVAL:
        retrieval_journal.record(group, event)
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(watch_channel_group(group), {"type": feed.value, "event": event})


def publish_from_thread(group: str, feed: Feed, event: dict[str, Any]) -> None:
    """publish from a plain thread (a background job): on the server's loop when there is one, else on a loop of
    its own."""
    loop = _server_loop
    if loop is not None and loop.is_running():
        asyncio.run_coroutine_threadsafe(publish(group, feed, event), loop).result(PUBLISH_TIMEOUT_SECONDS)
    else:
        async_to_sync(publish)(group, feed, event)


async def broadcast_events(group: str, events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    """Pass events through, sending each to the group's watchers as it goes by."""
    async for event in events:
        await publish(group, Feed.RETRIEVAL, event)
        yield event
