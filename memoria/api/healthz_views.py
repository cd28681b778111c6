"""GET /healthz: up or down for each component, for load balancers and orchestrators, without signing in.

It is the one page open to anonymous callers, so it says only "up" or "down" and how long each check took:
no hosts, versions, counts or error text (those are logged, and shown to signed-in users by /api/health).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from memoria.health import system_health


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> HttpResponse:
    health = await system_health()
    return JsonResponse(
        {
            "status": "ok" if health.up else "degraded",
            "components": {
                name: {"status": component.status, "latency_ms": component.latency_ms}
                for name, component in health.components.items()
            },
        },
        status=200 if health.up else 503,
    )
