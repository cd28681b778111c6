"""Live retrieval events for watchers: every event of a retrieval in a group is also sent to that group's watchers.

Committed curation changes reach the same watchers, so open views of the group update.

Uses the channel layer (in-process by default, Redis across processes).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from memoria.retrieval.journal import retrieval_journal

WATCH_MESSAGE_TYPE = "retrieval.event"
CURATION_MESSAGE_TYPE = "curation.event"  # a committed curation change (docs/curation.md), on the same group
JOB_MESSAGE_TYPE = "job.event"  # a background job of the group changed state or made progress (docs/api.md, "Jobs")
PUBLISH_TIMEOUT_SECONDS = 5.0

# The server's event loop, adopted by memoria.asgi on its first request: threads that are not the server's
# (background jobs) publish through it, since the in-process channel layer's queues belong to that loop.
_server_loop: asyncio.AbstractEventLoop | None = None


def adopt_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    global _server_loop
    _server_loop = loop


def watch_channel_group(group: str) -> str:
    """Channel-layer group of a memory group's watchers (group names are already plain ASCII)."""
    return f"retrievals.{group}"


async def publish_event(group: str, event: dict[str, Any]) -> None:
    retrieval_journal.record(group, event)  # for watchers who arrive after it started
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(watch_channel_group(group), {"type": WATCH_MESSAGE_TYPE, "event": event})


async def publish_curation(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(watch_channel_group(group), {"type": CURATION_MESSAGE_TYPE, "event": event})


async def publish_job(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(watch_channel_group(group), {"type": JOB_MESSAGE_TYPE, "event": event})


def publish_job_from_thread(group: str, event: dict[str, Any]) -> None:
    """publish_job from a plain thread: on the server's loop when there is one, else on a loop of its own."""
    loop = _server_loop
    if loop is not None and loop.is_running():
        asyncio.run_coroutine_threadsafe(publish_job(group, event), loop).result(PUBLISH_TIMEOUT_SECONDS)
    else:
        async_to_sync(publish_job)(group, event)


async def broadcast_events(group: str, events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    """Pass events through, sending each to the group's watchers as it goes by."""
    async for event in events:
        await publish_event(group, event)
        yield event
