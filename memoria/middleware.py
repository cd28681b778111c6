"""Request middleware: an id in every log line a request causes; a plain 503, no traceback, while the graph is down."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

from memoria.api.errors import problem
from memoria.errors import GraphUnavailable, QueryTooLarge
from memoria.observability import request_id_accept, request_id_bound

REQUEST_ID_HEADER = "X-Request-ID"
logger = logging.getLogger("memoria.request")


class RequestIdMiddleware:
    """Binds the request's id (the caller's X-Request-ID when sane, else a new one) for every log line the
    request causes, answers it in the X-Request-ID header, and logs one line per request with its duration.

    Sync and async: under daphne an async chain then stays on the event loop instead of hopping to a thread.
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._answer_async(request)
        request_id = request_id_accept(request.headers.get(REQUEST_ID_HEADER))
        started = time.perf_counter()
        with request_id_bound(request_id):
            response = self.get_response(request)
            return _answered(request, response, request_id, started)

    async def _answer_async(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_accept(request.headers.get(REQUEST_ID_HEADER))
        started = time.perf_counter()
        with request_id_bound(request_id):
            response = await self.get_response(request)
            return _answered(request, response, request_id, started)


def _answered(request: HttpRequest, response: HttpResponse, request_id: str, started: float) -> HttpResponse:
    """The access line, logged inside the request's id, and the id in the answer."""
    duration_ms = (time.perf_counter() - started) * 1000
    logger.info(
        "%s %s %s %.1f ms",
        request.method,
        request.path,
        response.status_code,
        duration_ms,
        extra={
            "method": request.method,
            "path": request.path,
            "status": response.status_code,
            "duration_ms": round(duration_ms, 3),
        },
    )
    response[REQUEST_ID_HEADER] = request_id
    return response


class GraphUnavailableMiddleware:
    """Engine errors met outside DRF: under /api/ the problem JSON of memoria.api.errors, on pages a plain page.

    A graph outage is a 503 page that works again by itself; a query the graph server refuses for its size is a
    422 page saying so (asking again will not help). Neither shows a traceback, a host or a port.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, GraphUnavailable | QueryTooLarge):
            return None
        answer = problem(exception)
        assert answer is not None  # both are mapped there
        status, body, headers = answer
        if request.path.startswith("/api/"):
            return JsonResponse(body, status=status, headers=headers)
        html = render_to_string(f"{status}.html", {"detail": body.get("reason") or body["detail"]}, request=request)
        return HttpResponse(html, status=status, headers=headers)
