"""A typed client for Memoria: `MemoriaClient` (REST, with retries of 429/503 after Retry-After) and the retrieval
websockets as async iterators of typed events (`AsyncRetrievalStream`, `AsyncWatchStream`)."""

from memoria_client.errors import (
    Conflict,
    InvalidRequest,
    MemoriaError,
    NotAllowed,
    NotFound,
    StreamError,
    Throttled,
    TooLarge,
    Unavailable,
    error_for_frame,
)
from memoria_client.models import (
    ErrorEvent,
    Event,
    GroupSummary,
    LevelExpanded,
    PathCompleted,
    RetrievalFinished,
    RetrievalStarted,
    SearchHit,
    SearchResults,
    SeedFinished,
    SeedStarted,
    Watching,
    event_from_json,
)
from memoria_client.rest import MemoriaClient, Response, auth_headers
from memoria_client.stream import AsyncRetrievalStream, AsyncWatchStream, socket_url

__all__ = [
    "AsyncRetrievalStream",
    "AsyncWatchStream",
    "Conflict",
    "ErrorEvent",
    "Event",
    "GroupSummary",
    "InvalidRequest",
    "LevelExpanded",
    "MemoriaClient",
    "MemoriaError",
    "NotAllowed",
    "NotFound",
    "PathCompleted",
    "Response",
    "RetrievalFinished",
    "RetrievalStarted",
    "SearchHit",
    "SearchResults",
    "SeedFinished",
    "SeedStarted",
    "StreamError",
    "Throttled",
    "TooLarge",
    "Unavailable",
    "Watching",
    "auth_headers",
    "error_for_frame",
    "event_from_json",
    "socket_url",
]
