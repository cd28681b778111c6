"""The OpenAPI document (GET /api/schema/) and the Swagger UI page over it (GET /api/docs/)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response


class SchemaView(SpectacularAPIView):
    """Built from the views alone, without asking the graph server (so the schema documents no 503 for it)."""

    graph_free = True

    def handle_exception(self, exc: Exception) -> Response:
        # Errors (no token, an unknown ?format=) answer JSON like every endpoint, not in the asked-for format.
        response = super().handle_exception(exc)
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return response


# Swagger UI's files come from drf-spectacular-sidecar (SWAGGER_UI_DIST = "SIDECAR"), so the page needs no CDN.
# A browser without a session is sent to sign in rather than shown a bare 401.
docs_page = login_required(SpectacularSwaggerView.as_view(url_name="api-schema"))
