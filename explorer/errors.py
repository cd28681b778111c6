"""The one mapping from engine errors to websocket error frames."""

from __future__ import annotations

from typing import Any

from memoria.api.errors import GRAPH_UNAVAILABLE_DETAIL
from memoria.api.throttles import RateLimited
from memoria.errors import (
    GraphUnavailable,
    GroupNotFound,
    InvalidInput,
    LlmInvalidAnswer,
    LlmUnavailable,
    ProjectionLoading,
    QueryTooLarge,
)

RETRY_AFTER_SECONDS = 5  # a projection still loading: as the REST 503's Retry-After
# What a client is told about in its own words (error_frame): no stack trace in the log for these.
EXPECTED_ERRORS = (
    InvalidInput,
    GroupNotFound,
    ProjectionLoading,
    GraphUnavailable,
    QueryTooLarge,
    LlmUnavailable,
    RateLimited,
)


def is_expected(error: BaseException) -> bool:
    return isinstance(error, EXPECTED_ERRORS)


def error_frame(error: Exception, *, retrieval_id: str | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error"}
    if isinstance(error, InvalidInput):
        frame.update(code="invalid", message=str(error), errors=error.problems)
    elif isinstance(error, GroupNotFound):
        frame.update(code="not_found", message=str(error))
    elif isinstance(error, ProjectionLoading):
        frame.update(code="projection_loading", message=str(error), retry_after=RETRY_AFTER_SECONDS)
    elif isinstance(error, GraphUnavailable):  # str(error) names no host or port (memoria.errors.GraphUnavailable)
        frame.update(code="graph_unavailable", message=GRAPH_UNAVAILABLE_DETAIL, reason=str(error))
    elif isinstance(error, QueryTooLarge):  # as the REST 422: final, asking again the same way fails the same way
        frame.update(code="query_too_large", message=str(error), too_large=error.what)
    elif isinstance(error, LlmUnavailable):  # as the REST 502/503: the model's bad answer, or no model to ask
        bad_answer = isinstance(error, LlmInvalidAnswer)
        frame.update(code="llm_invalid_answer" if bad_answer else "llm_unavailable", message=str(error))
    elif isinstance(error, RateLimited):  # as the REST 429: what was throttled, its limit, and when to retry
        problem = error.problem()
        frame.update(
            code="throttled",
            message=problem["detail"],
            scope=problem["scope"],
            limit=problem["limit"],
            retry_after=problem["retry_after"],
        )
    else:
        frame.update(code="internal", message="The retrieval failed unexpectedly.")
    if retrieval_id:
        frame["retrieval_id"] = retrieval_id
    return frame
