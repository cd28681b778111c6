"""Live retrieval events for watchers: every event of a retrieval in a group is also sent to that group's watchers.

Committed curation changes reach the same watchers, so open views of the group update.

Uses the channel layer (in-process by default, Redis across processes).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from channels.layers import get_channel_layer

from memoria.retrieval.journal import retrieval_journal

WATCH_MESSAGE_TYPE = "retrieval.event"
CURATION_MESSAGE_TYPE = "curation.event"  # a committed curation change (docs/curation.md), on the same group


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


async def broadcast_events(group: str, events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    """Pass events through, sending each to the group's watchers as it goes by."""
    async for event in events:
        await publish_event(group, event)
        yield event
