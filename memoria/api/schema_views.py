"""The OpenAPI document (GET /api/schema/) and the Swagger UI page over it (GET /api/docs/)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from memoria.requests.query import EMPTY


class SchemaView(SpectacularAPIView):
    """Built from the views alone, without asking the graph server (so the schema documents no 503 for it)."""

    graph_free = True

    # An empty ?format= answers the default (YAML), as no format does.
    @extend_schema(
        parameters=[OpenApiParameter("format", {"anyOf": [{"type": "string", "enum": ["json", "yaml"]}, EMPTY]})],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def handle_exception(self, exc: Exception) -> Response:
        # Errors (no token, an unknown ?format=) answer JSON like every endpoint, not in the asked-for format.
        response = super().handle_exception(exc)
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return response


# Swagger UI's files come from drf-spectacular-sidecar (SWAGGER_UI_DIST = "SIDECAR"), so the page needs no CDN.
# A browser without a session is sent to sign in rather than shown a bare 401. The split view serves the page's
# start-up script as a file of its own (?script), and templates/api/swagger_ui.html links its styles, so the page
# holds nothing inline for the Content-Security-Policy to refuse.
docs_page = login_required(
    SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html")
)
