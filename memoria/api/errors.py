"""REST's rendering of the error table (memoria/admission/problems.py), and the answers of DRF's own body parsing."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import status
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from memoria.admission.problems import problem_of
from memoria.errors import request_too_large_problem


def _raised_parsing_json(error: BaseException) -> bool:
    """Whether the error rose from DRF's JSON parser (a body nested too deep), not from our own code."""
    frame = error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code is JSONParser.parse.__code__:
            return True
        frame = frame.tb_next
    return False


def problem(error: Exception) -> tuple[int, dict[str, Any], dict[str, str]] | None:
    """The status, body and headers an error answers with (memoria/admission/problems.py), or None when the table
    does not know it.

    Both the DRF views (exception_handler) and the plain Django views under /api/ (memoria.middleware) answer
    from here, so an error has one HTTP answer wherever it rises.
    """
    found = problem_of(error)
    if found is None:
        return None
    return found.status, found.body(), found.headers()


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
