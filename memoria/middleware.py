"""Request middleware: an id in every log line a request causes; a plain 503, no traceback, while the graph is down."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

from memoria.errors import GraphUnavailable
from memoria.observability import request_id_accept, request_id_bound

REQUEST_ID_HEADER = "X-Request-ID"
logger = logging.getLogger("memoria.request")


class RequestIdMiddleware:
    """Binds the request's id (the caller's X-Request-ID when sane, else a new one) for every log line the
    request causes, answers it in the X-Request-ID header, and logs one line per request with its duration."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_accept(request.headers.get(REQUEST_ID_HEADER))
        started = time.perf_counter()
        with request_id_bound(request_id):
            response = self.get_response(request)
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
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, GraphUnavailable):
            return None
        if request.path.startswith("/api/"):
            return graph_unavailable_json(exception)
        html = render_to_string("503.html", {"detail": str(exception)}, request=request)
        return HttpResponse(html, status=503, headers={"Retry-After": "5"})


def graph_unavailable_json(error: GraphUnavailable) -> JsonResponse:
    return JsonResponse(
        {
            "detail": "The graph server is unavailable; try again shortly.",
            "code": "graph_unavailable",
            "reason": str(error),
        },
        status=503,
        headers={"Retry-After": "5"},
    )
