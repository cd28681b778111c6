"""Django's own error pages for URLs no view matched: under /api/ they answer JSON problems like every endpoint."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

API_PREFIX = "/api/"


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A client of the API (e.g. with a non-numeric audit entry id) gets JSON, a browser elsewhere the HTML page."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse(
            {"detail": f"no API endpoint at {request.path} (see /api/schema/)", "code": "not_found"}, status=404
        )
    # The explorer's own 404s carry a sentence ("no group 'x' is visible to you"); the URL resolver's carry a dict.
    reason = exception.args[0] if exception is not None and exception.args else None
    message = reason if isinstance(reason, str) and reason else f"There is nothing at {request.path}."
    return render(request, "404.html", {"message": message}, status=404)
