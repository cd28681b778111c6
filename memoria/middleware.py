"""Pages and APIs answer 503 with a plain message when the graph server is down, instead of a traceback."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

from memoria.errors import GraphUnavailable


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
