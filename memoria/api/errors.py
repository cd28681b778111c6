"""The one mapping from engine errors to HTTP answers."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import status
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from memoria.accounts.roles import RoleRequired
from memoria.errors import (
    GraphUnavailable,
    GroupNotFound,
    InvalidInput,
    LlmInvalidAnswer,
    LlmUnavailable,
    NeedsAJob,
    ProjectionLoading,
    QueryTooLarge,
    WriteConflict,
    request_too_large_problem,
)


def _raised_parsing_json(error: BaseException) -> bool:
    """Whether the error rose from DRF's JSON parser (a body nested too deep), not from our own code."""
    frame = error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code is JSONParser.parse.__code__:
            return True
        frame = frame.tb_next
    return False


GRAPH_UNAVAILABLE_DETAIL = "The graph server is unavailable; try again shortly."
RETRY_AFTER_OUTAGE = "5"


def problem(error: Exception) -> tuple[int, dict[str, Any], dict[str, str]] | None:
    """The status, problem body and headers an engine error answers with, or None when it is not one of ours.

    Both the DRF views (exception_handler) and the plain Django views under /api/ (memoria.middleware) answer
    from here, so an error has one HTTP answer wherever it rises.
    """
    if isinstance(error, ProjectionLoading):
        return 503, {"detail": str(error), "code": "projection_loading"}, {"Retry-After": RETRY_AFTER_OUTAGE}
    if isinstance(error, GraphUnavailable):
        # str(error) is ours and names no host (memoria.errors.GraphUnavailable); the driver's text is in the log.
        body = {"detail": GRAPH_UNAVAILABLE_DETAIL, "code": "graph_unavailable", "reason": str(error)}
        return 503, body, {"Retry-After": RETRY_AFTER_OUTAGE}
    if isinstance(error, NeedsAJob):
        # Deterministic like a query too large, so no Retry-After: the same work goes through the jobs endpoint.
        job = f"/api/groups/{error.group}/jobs/{error.kind}"
        return 413, {"detail": str(error), "code": "use_a_job", "job": job}, {}
    if isinstance(error, QueryTooLarge):
        # Not an outage: the same request fails the same way again, so no Retry-After; the client must ask for less.
        return 422, {"detail": str(error), "code": "query_too_large", "too_large": error.what}, {}
    if isinstance(error, LlmUnavailable):
        # A bad answer is the model's fault (502); an unreachable or unconfigured model is an outage (503).
        bad_answer = isinstance(error, LlmInvalidAnswer)
        body = {"detail": str(error), "code": "llm_invalid_answer" if bad_answer else "llm_unavailable"}
        return (502 if bad_answer else 503), body, {}
    if isinstance(error, InvalidInput):
        return 400, {"detail": str(error), "code": "invalid", "errors": error.problems}, {}
    if isinstance(error, WriteConflict):
        if error.retry_after is None:  # the same request cannot succeed: no hint to send it again
            return 409, {"detail": str(error), "code": "conflict", "retry_after": None}, {}
        body = {"detail": str(error), "code": "conflict", "retry_after": error.retry_after}
        return 409, body, {"Retry-After": str(error.retry_after)}
    if isinstance(error, RoleRequired):  # raised before any group is looked at: it says nothing of one
        return 403, {"detail": str(error), "code": "permission_denied"}, {}
    if isinstance(error, GroupNotFound):
        return 404, {"detail": str(error), "code": "not_found"}, {}
    return None


def exception_handler(error: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(error, RequestDataTooBig):
        problem_body = request_too_large_problem(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        return Response(problem_body, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(error, RecursionError) and _raised_parsing_json(error):
        problem_text = "body: JSON nested too deeply (Python's parser follows about 1,000 levels)"
        return Response(
            {"detail": problem_text, "code": "parse_error", "errors": [problem_text]},
            status=status.HTTP_400_BAD_REQUEST,
        )
    answer = problem(error)
    if answer is not None:
        code, body, headers = answer
        return Response(body, status=code, headers=headers or None)
    response = drf_exception_handler(error, context)
    if response is not None and isinstance(response.data, dict) and "code" not in response.data:
        codes = getattr(error, "get_codes", lambda: None)()
        if isinstance(codes, str):
            response.data["code"] = codes
    return response
