"""The one mapping from engine errors to HTTP answers."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import status
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from memoria.errors import (
    GraphUnavailable,
    GroupNotFound,
    InvalidInput,
    LlmInvalidAnswer,
    LlmUnavailable,
    ProjectionLoading,
    WriteConflict,
)


def _raised_parsing_json(error: BaseException) -> bool:
    """Whether the error rose from DRF's JSON parser (a body nested too deep), not from our own code."""
    frame = error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code is JSONParser.parse.__code__:
            return True
        frame = frame.tb_next
    return False


def exception_handler(error: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(error, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response(
            {
                "detail": f"The request body is larger than this server accepts ({limit} bytes, set by "
                "MEMORIA_MAX_REQUEST_BYTES); send less at once, e.g. split an import into several documents.",
                "code": "request_too_large",
                "limit_bytes": limit,
            },
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(error, RecursionError) and _raised_parsing_json(error):
        problem = "body: JSON nested too deeply (Python's parser follows about 1,000 levels)"
        return Response(
            {"detail": problem, "code": "parse_error", "errors": [problem]}, status=status.HTTP_400_BAD_REQUEST
        )
    if isinstance(error, ProjectionLoading):
        return Response(
            {"detail": str(error), "code": "projection_loading"},
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": "5"},
        )
    if isinstance(error, GraphUnavailable):
        return Response(
            {
                "detail": "The graph server is unavailable; try again shortly.",
                "code": "graph_unavailable",
                "reason": str(error),
            },
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": "5"},
        )
    if isinstance(error, LlmUnavailable):
        # A bad answer is the model's fault (502); an unreachable or unconfigured model is an outage (503).
        bad_answer = isinstance(error, LlmInvalidAnswer)
        return Response(
            {"detail": str(error), "code": "llm_invalid_answer" if bad_answer else "llm_unavailable"},
            status=status.HTTP_502_BAD_GATEWAY if bad_answer else status.HTTP_503_SERVICE_UNAVAILABLE,
        )
    if isinstance(error, InvalidInput):
        return Response(
            {"detail": str(error), "code": "invalid", "errors": error.problems}, status=status.HTTP_400_BAD_REQUEST
        )
    if isinstance(error, WriteConflict):
        return Response(
            {"detail": str(error), "code": "conflict"}, status=status.HTTP_409_CONFLICT, headers={"Retry-After": "1"}
        )
    if isinstance(error, GroupNotFound):
        return Response({"detail": str(error), "code": "not_found"}, status=status.HTTP_404_NOT_FOUND)
    response = drf_exception_handler(error, context)
    if response is not None and isinstance(response.data, dict) and "code" not in response.data:
        codes = getattr(error, "get_codes", lambda: None)()
        if isinstance(codes, str):
            response.data["code"] = codes
    return response
