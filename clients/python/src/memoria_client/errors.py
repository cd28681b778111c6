"""One exception hierarchy for every refusal, so a caller catches by meaning (`NotFound`) rather than by status."""

from __future__ import annotations

from typing import Any


class MemoriaError(Exception):
    """An answer the server refused (`status` is 0 for a websocket error frame), with its `{"detail", "code"}` body.

    `retry_after` (seconds) is set when the server said when to come back (429, 503, and their error frames).
    """

    def __init__(
        self,
        detail: str,
        *,
        status: int = 0,
        code: str | None = None,
        body: Any = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.code = code
        self.body = body
        self.retry_after = retry_after


class InvalidRequest(MemoriaError):
    """400: the input was rejected and nothing was written; sending it again fails the same way."""


class NotAllowed(MemoriaError):
    """401/403: no or a bad token, or a write without the role for it."""


class NotFound(MemoriaError):
    """404: no such group or item visible to this token (the server does not say which)."""


class Conflict(MemoriaError):
    """409: concurrent writers collided; nothing was written."""


class TooLarge(MemoriaError):
    """413/422: the body, or the query it asks for, is too large: ask for less, never the same again."""


class Throttled(MemoriaError):
    """429: past the user's request rate; `retry_after` says when the next one is allowed."""


class Unavailable(MemoriaError):
    """503: the graph server is away or a projection is still loading; `retry_after` says when to try again."""


class StreamError(MemoriaError):
    """The websocket was refused at the handshake (`status` is its HTTP status) or closed under the caller."""


_BY_STATUS: dict[int, type[MemoriaError]] = {
    400: InvalidRequest,
    401: NotAllowed,
    403: NotAllowed,
    404: NotFound,
    409: Conflict,
    413: TooLarge,
    422: TooLarge,
    429: Throttled,
    503: Unavailable,
}

# Error frames of the websocket, by code, mapped onto the same classes as the REST statuses they mirror.
_BY_FRAME_CODE: dict[str, type[MemoriaError]] = {
    "invalid": InvalidRequest,
    "unknown_type": InvalidRequest,
    "unauthenticated": NotAllowed,
    "not_found": NotFound,
    "too_large": TooLarge,
    "query_too_large": TooLarge,
    "throttled": Throttled,
    "graph_unavailable": Unavailable,
    "projection_loading": Unavailable,
}


def error_for_status(status: int, body: Any, retry_after: float | None) -> MemoriaError:
    """The exception for a refused REST answer; an unexpected status is a plain `MemoriaError`."""
    detail, code = f"HTTP {status}", None
    if isinstance(body, dict):
        detail = str(body.get("detail", detail))
        code = body.get("code") if isinstance(body.get("code"), str) else None
    elif body:
        detail = f"HTTP {status}: {' '.join(str(body).split())[:160]}"
    kind = _BY_STATUS.get(status, MemoriaError)
    return kind(detail, status=status, code=code, body=body, retry_after=retry_after)


def error_for_frame(frame: dict[str, Any]) -> MemoriaError:
    """The exception an error frame stands for (for callers that prefer raising to inspecting `ErrorEvent`)."""
    code = str(frame.get("code", ""))
    retry_after = frame.get("retry_after")
    kind = _BY_FRAME_CODE.get(code, MemoriaError)
    return kind(
        str(frame.get("message", code)),
        code=code,
        body=frame,
        retry_after=float(retry_after) if isinstance(retry_after, int | float) else None,
    )
