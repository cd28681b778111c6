"""GET /healthz: up or down for each component, for load balancers and orchestrators, without signing in.

It is the one page open to anonymous callers, so it says only "up" or "down" and how long each check took:
no hosts, versions, counts or error text (those are logged, and shown to signed-in users by /api/health).
A signed-in admin also gets `memory`: this process's group views and projections, their sizes and budgets.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from memoria.accounts.roles import Role
from memoria.accounts.services import user_role
from memoria.health import memory_report, system_health


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> HttpResponse:
    health = await system_health()
    answer: dict[str, object] = {
        "status": "ok" if health.up else "degraded",
        "components": {
            name: {"status": component.status, "latency_ms": component.latency_ms}
            for name, component in health.components.items()
        },
    }
    user = await request.auser()
    if user.is_authenticated and await sync_to_async(user_role)(user=user) is Role.ADMIN:
        answer["memory"] = memory_report()
    return JsonResponse(answer, status=200 if health.up else 503)
