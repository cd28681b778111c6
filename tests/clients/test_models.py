"""The client's decoding, without a server: every documented event type typed, anything else a generic event
(never an exception), and refusals mapped to one exception per meaning (the running server: test_python_client.py)."""

from __future__ import annotations

import pytest
from memoria_client import (
    Conflict,
    ErrorEvent,
    Event,
    Fact,
    FactEpisode,
    InvalidRequest,
    MemoriaClient,
    MemoriaError,
    NotAllowed,
    NotFound,
    Recalled,
    RetrievalFinished,
    SearchResults,
    SeedStarted,
    Throttled,
    TooLarge,
    Unavailable,
    error_for_frame,
    event_from_json,
    recall,
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


def test_a_fact_keeps_its_source_episodes_and_version() -> None:
    answer = {
        "id": "rel-1",
        "group": "g",
        "relation": "lives_in",
        "fact": "Liv lives in Tallinn",
        "valid_at": "2024-03-01T00:00:00Z",
        "invalid_at": None,
        "expired_at": None,
        "episodes": [{"id": "e1", "found": True, "name": "message 1"}, {"id": "e0", "found": False, "name": None}],
        "version": "9f2c41d0a7b3e118",
        "weight": 0.6,
    }
    fact = Fact.from_json(answer)
    assert (fact.id, fact.fact, fact.version, fact.valid_at) == (
        "rel-1",
        "Liv lives in Tallinn",
        "9f2c41d0a7b3e118",
        answer["valid_at"],
    )
    assert fact.episode_ids == ("e1", "e0")  # a deleted episode is still the fact's source
    assert fact.episodes[1] == FactEpisode(id="e0", found=False)
    assert fact.data["weight"] == 0.6  # what the type does not name is kept


def test_recall_refuses_unknown_scopes_before_asking_the_server() -> None:
    client = MemoriaClient("http://127.0.0.1:9", "token")  # nothing listens: a request would raise OSError
    for scopes in [("facts", "people"), ()]:
        with pytest.raises(ValueError, match="scopes must be a non-empty subset"):
            recall(client, "g", "q", scopes=scopes)  # type: ignore[arg-type]
    hit = Recalled(group="g", kind="fact", id="r", name="n", text="t", score=0.5, episode_ids=("e1",))
    assert hit.metadata() == {
        "id": "r",
        "group": "g",
        "kind": "fact",
        "name": "n",
        "score": 0.5,
        "valid_at": None,
        "invalid_at": None,
        "episode_ids": ["e1"],
    }
