"""The one mapping from engine errors to websocket error frames."""

from __future__ import annotations

from typing import Any

from explorer import frames
from explorer.frames import ErrorCode
from memoria.admission.throttles import RateLimited
from memoria.api.errors import GRAPH_UNAVAILABLE_DETAIL
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
    """The error frame for an exception, in the same words as the REST answer for it."""
    if isinstance(error, InvalidInput):
        return frames.error(ErrorCode.INVALID, str(error), retrieval_id=retrieval_id, errors=error.problems)
    if isinstance(error, GroupNotFound):
        return frames.error(ErrorCode.NOT_FOUND, str(error), retrieval_id=retrieval_id)
    if isinstance(error, ProjectionLoading):
        return frames.error(
            ErrorCode.PROJECTION_LOADING, str(error), retrieval_id=retrieval_id, retry_after=RETRY_AFTER_SECONDS
        )
    if isinstance(error, GraphUnavailable):  # str(error) names no host or port (memoria.errors.GraphUnavailable)
        return frames.error(
            ErrorCode.GRAPH_UNAVAILABLE, GRAPH_UNAVAILABLE_DETAIL, retrieval_id=retrieval_id, reason=str(error)
        )
    if isinstance(error, QueryTooLarge):  # as the REST 422: final, asking again the same way fails the same way
        return frames.error(ErrorCode.QUERY_TOO_LARGE, str(error), retrieval_id=retrieval_id, too_large=error.what)
    if isinstance(error, LlmUnavailable):  # as the REST 502/503: the model's bad answer, or no model to ask
        code = ErrorCode.LLM_INVALID_ANSWER if isinstance(error, LlmInvalidAnswer) else ErrorCode.LLM_UNAVAILABLE
        return frames.error(code, str(error), retrieval_id=retrieval_id)
    if isinstance(error, RateLimited):  # as the REST 429: what was throttled, its limit, and when to retry
        problem = error.problem()
        return frames.error(
            ErrorCode.THROTTLED,
            problem["detail"],
            retrieval_id=retrieval_id,
            scope=problem["scope"],
            limit=problem["limit"],
            retry_after=problem["retry_after"],
        )
    return frames.error(ErrorCode.INTERNAL, "The retrieval failed unexpectedly.", retrieval_id=retrieval_id)
