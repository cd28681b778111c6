"""The one error table: what each error the engine raises on purpose answers, whichever face renders it.

A row names the error, its `code`, its HTTP status, its message, whether and when to retry, and the fields it
adds (the offending items, the job to start instead, the rate that was spent). REST (memoria/api/errors.py), the
websocket (explorer/errors.py) and MCP (memoria/mcp/errors.py) only render a `Problem`: a body with `detail` (a
frame's `message`), a Retry-After header for REST. Adding an error is one row here; adding a face is one renderer.

`retry_after` is shown wherever the caller may retry: a number of seconds. A failure that the same request meets
again (bad input, a query or a piece of work too large, a conflict made on a state that is gone) carries none, so no
client retries it; a final conflict also says so in its message, since its code is the retryable one's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from memoria.accounts.roles import RoleRequired
from memoria.admission.throttles import RateLimited
from memoria.errors import (
    GraphUnavailable,
    GroupNotFound,
    InvalidInput,
    LlmInvalidAnswer,
    LlmUnavailable,
    NeedsAJob,
    NotAuthenticated,
    ProjectionLoading,
    QueryTooLarge,
    WriteConflict,
)

GRAPH_UNAVAILABLE_DETAIL: Final = "The graph server is unavailable; try again shortly."
RETRY_AFTER_OUTAGE: Final = 5  # seconds: an outage or a projection still loading is usually over by then


@dataclass(frozen=True)
class Problem:
    """What one refused or failed request answers. `retry_after`: the seconds after which the same request may
    succeed, or None when it cannot (then the answer has no `retry_after` at all)."""

    code: str
    status: int
    detail: str
    retry_after: int | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)

    def body(self, *, message_key: str = "detail") -> dict[str, Any]:
        """The answer as JSON: the message under `message_key`, the code, the row's fields, then `retry_after`."""
        answer: dict[str, Any] = {message_key: self.detail, "code": self.code, **self.fields}
        if self.retry_after is not None:
            answer["retry_after"] = self.retry_after
        return answer

    def headers(self) -> dict[str, str]:
        """HTTP headers: Retry-After when there is a time to come back at."""
        return {"Retry-After": str(self.retry_after)} if self.retry_after is not None else {}


@dataclass(frozen=True)
class Row:
    """One line of the table. `detail` and `fields` read the error; `retry_after` says when to come back: a fixed
    number of seconds, or a function of the error; None (from either) says the error is final."""

    error: type[BaseException]
    code: str
    status: int
    detail: Callable[[Any], str] = str
    fields: Callable[[Any], dict[str, Any]] = lambda error: {}
    retry_after: int | Callable[[Any], int | None] | None = None

    def problem(self, error: BaseException) -> Problem:
        wait = self.retry_after(error) if callable(self.retry_after) else self.retry_after
        return Problem(self.code, self.status, self.detail(error), wait, self.fields(error))


FINAL_CONFLICT_NOTE: Final = "sending the same request again cannot succeed"


def _conflict_detail(error: WriteConflict) -> str:
    """A conflict's message; a final one says that a retry is useless, as `conflict` alone reads as retryable."""
    return str(error) if error.retry_after is not None else f"{error} ({FINAL_CONFLICT_NOTE})"


# Read top to bottom, the first row whose error the exception is wins: subclasses stand above their bases.
TABLE: tuple[Row, ...] = (
    Row(
        RateLimited,
        "throttled",
        429,
        detail=lambda error: error.message,
        fields=lambda error: {"scope": error.scope, "limit": error.limit()},
        retry_after=lambda error: error.retry_after,
    ),
    Row(ProjectionLoading, "projection_loading", 503, retry_after=RETRY_AFTER_OUTAGE),
    # str(error) is ours and names no host (memoria.errors.GraphUnavailable); the driver's text is in the log.
    Row(
        GraphUnavailable,
        "graph_unavailable",
        503,
        detail=lambda error: GRAPH_UNAVAILABLE_DETAIL,
        fields=lambda error: {"reason": str(error)},
        retry_after=RETRY_AFTER_OUTAGE,
    ),
    # Deterministic like a query too large: the same work goes through the jobs endpoint instead.
    Row(NeedsAJob, "use_a_job", 413, fields=lambda error: {"job": f"/api/groups/{error.group}/jobs/{error.kind}"}),
    # Not an outage: the same request fails the same way again; the client must ask for less.
    Row(QueryTooLarge, "query_too_large", 422, fields=lambda error: {"too_large": error.what}),
    # A bad answer is the model's fault (502); an unreachable or unconfigured model is an outage (503).
    Row(LlmInvalidAnswer, "llm_invalid_answer", 502),
    Row(LlmUnavailable, "llm_unavailable", 503),
    Row(InvalidInput, "invalid", 400, fields=lambda error: {"errors": error.problems}),
    Row(WriteConflict, "conflict", 409, detail=_conflict_detail, retry_after=lambda error: error.retry_after),
    Row(NotAuthenticated, "not_authenticated", 401),
    Row(RoleRequired, "permission_denied", 403),  # raised before any group is looked at: it says nothing of one
    Row(GroupNotFound, "not_found", 404),  # a group the caller may not see answers as a missing one
)


def problem_of(error: BaseException) -> Problem | None:
    """The problem an error answers, or None when it is not one the table knows (an unexpected failure)."""
    for row in TABLE:
        if isinstance(error, row.error):
            return row.problem(error)
    return None
