"""The client's decoding, without a server: every documented event type typed, anything else a generic event
(never an exception), and refusals mapped to one exception per meaning (the running server: test_python_client.py)."""

from __future__ import annotations

import pytest
from memoria_client import (
    Conflict,
    ErrorEvent,
    Event,
    InvalidRequest,
    MemoriaError,
    NotAllowed,
    NotFound,
    RetrievalFinished,
    SearchResults,
    SeedStarted,
    Throttled,
    TooLarge,
    Unavailable,
    error_for_frame,
    event_from_json,
)
from memoria_client.errors import error_for_status
from memoria_client.rest import Response


def test_known_events_are_typed_and_keep_their_frame() -> None:
    frame = {"type": "seed_started", "retrieval_id": "r", "seed_id": "g-a", "score": 0.5, "later_field": 1}
    event = event_from_json(frame)
    assert isinstance(event, SeedStarted) and (event.seed_id, event.score, event.retrieval_id) == ("g-a", 0.5, "r")
    assert event.data == frame
    finished = event_from_json({"type": "retrieval_finished", "retrieval_id": "r", "status": "cancelled", "paths": 3})
    assert isinstance(finished, RetrievalFinished) and (finished.status, finished.paths) == ("cancelled", 3)
    error = event_from_json({"type": "error", "code": "throttled", "message": "m", "retry_after": 2})
    assert isinstance(error, ErrorEvent) and error.retry_after == 2.0
    assert isinstance(error_for_frame(error.data), Throttled)


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "something_new", "retrieval_id": "r"},
        {"type": "seed_started", "score": "high"},  # a known type with a field of the wrong kind
        {"no_type": True},
        ["not", "an", "object"],
    ],
)
def test_anything_else_is_a_generic_event(frame: object) -> None:
    event = event_from_json(frame)
    assert type(event) is Event


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, InvalidRequest),
        (401, NotAllowed),
        (403, NotAllowed),
        (404, NotFound),
        (409, Conflict),
        (413, TooLarge),
        (422, TooLarge),
        (429, Throttled),
        (503, Unavailable),
        (500, MemoriaError),
    ],
)
def test_statuses_map_to_one_exception_each(status: int, kind: type[MemoriaError]) -> None:
    error = error_for_status(status, {"detail": "why", "code": "c"}, None)
    assert type(error) is kind and (error.status, error.detail, error.code) == (status, "why", "c")


def test_retry_after_and_search_results_are_read() -> None:
    assert Response(429, {"retry-after": "3"}, None).retry_after == 3.0
    assert Response(503, {"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}, None).retry_after is None
    hit = {"group": "g", "id": "g-a", "name": "a", "text": "a", "score": 0.7, "scores": {"bm25": 1.0}}
    results = SearchResults.from_json({"entities": [hit], "facts": [], "engine": {"name": "view"}})
    assert [(h.group, h.id) for h in results.all()] == [("g", "g-a")] and results.engine == {"name": "view"}
