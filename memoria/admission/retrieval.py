"""Running an admitted activation retrieval to its answer, as REST and MCP both answer it.

The events go to the group's watchers as they pass (memoria.live), and every one is handed to `on_event` (MCP
sends the levels as progress); the answer is collected from the finished stream. A run whose every seed failed
is an outage, answered by the error table as one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from memoria.errors import GraphUnavailable
from memoria.live import broadcast_events
from memoria.retrieval.event_types import RetrievalEvent, RetrievalFinished
from memoria.retrieval.request import ActivationRequest
from memoria.retrieval.runs import activation_response, activation_run

EventSeen = Callable[[RetrievalEvent], Awaitable[None]]


async def activation_answer(
    request: ActivationRequest, *, requested_by: str, on_event: EventSeen | None = None
) -> dict[str, Any]:
    """The answer of one retrieval (activation_response), once its last event is in."""
    events: list[RetrievalEvent] = []
    async for event in broadcast_events(request.group, activation_run(request, requested_by=requested_by)):
        events.append(event)
        if on_event is not None:
            await on_event(event)
    finished = events[-1]
    if isinstance(finished, RetrievalFinished) and finished.status == "failed":
        raise GraphUnavailable(finished.error or "every seed failed")
    return activation_response(events)
