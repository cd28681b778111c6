"""The websocket's own frames (docs/websocket.md), declared once; the retrieval events are memoria's.

A client's frame names what it asks (`retrieve`, `cancel`, `ping`, `list`, `replay`); the server's name what it
answers. The pages get these names exported (explorer/context.py) rather than retyping them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from memoria.live import WatchEventType

ECHOED_CHARS = 64  # a rejected value is quoted back at most this long, so an error never mirrors a flood
JSON_KINDS = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
}


class FrameType(StrEnum):
    # asked by the client
    RETRIEVE = "retrieve"
    CANCEL = "cancel"
    PING = "ping"
    LIST = "list"
    REPLAY = "replay"  # asked, and answered under the same name
    # answered by the server
    ERROR = "error"
    HEALTH = "health"
    WATCHING = "watching"
    RETRIEVALS = "retrievals"
    CURATION = WatchEventType.CURATION.value  # a committed curation change in the group (docs/curation.md)
    JOB = WatchEventType.JOB.value  # a background job of the group changed (docs/websocket.md): JobState


class ErrorCode(StrEnum):
    """The `code` of an error frame: the websocket's own, and the error table's (memoria/admission/problems.py)."""

    UNAUTHENTICATED = "unauthenticated"
    TOO_LARGE = "too_large"
    UNKNOWN_TYPE = "unknown_type"
    UNKNOWN_RETRIEVAL = "unknown_retrieval"
    BUSY = "busy"
    INVALID = "invalid"
    NOT_FOUND = "not_found"
    PROJECTION_LOADING = "projection_loading"
    GRAPH_UNAVAILABLE = "graph_unavailable"
    QUERY_TOO_LARGE = "query_too_large"
    LLM_INVALID_ANSWER = "llm_invalid_answer"
    LLM_UNAVAILABLE = "llm_unavailable"
    THROTTLED = "throttled"
    INTERNAL = "internal"


def error(code: str, message: str, *, retrieval_id: str | None = None, **details: Any) -> dict[str, Any]:
    """An error frame; `retrieval_id` when it concerns one retrieval."""
    frame: dict[str, Any] = {"type": FrameType.ERROR, "code": code, "message": message, **details}
    if retrieval_id:
        frame["retrieval_id"] = retrieval_id
    return frame


def unknown_type(kind: str, *expected: FrameType) -> dict[str, Any]:
    return error(ErrorCode.UNKNOWN_TYPE, f"unknown type {echoed(kind)}: use {' or '.join(expected)}")


def json_kind(value: Any) -> str:
    """What a decoded JSON value was, with its article: for messages that name what came instead."""
    return "null" if value is None else JSON_KINDS.get(type(value), type(value).__name__)


def echoed(value: str) -> str:
    return repr(value if len(value) <= ECHOED_CHARS else value[:ECHOED_CHARS] + "…")


def shown_value(value: Any) -> str:
    return echoed(value) if isinstance(value, str) else json_kind(value)
