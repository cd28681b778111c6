"""Template pieces every explorer page shares: the header's group switcher, and small formatting filters."""

from __future__ import annotations

from typing import Any

from django import template

from explorer.current_group import current_group, switchable_groups
from memoria.accounts.services import user_role

register = template.Library()


@register.inclusion_tag("explorer/_header_nav.html", takes_context=True)
def header_nav(context: template.Context) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"signed_in": False}
    role = user_role(user=user)
    return {
        "signed_in": True,
        "request": request,
        "user": user,
        "role": role.value if role else "",
        "groups": switchable_groups(request),
        "current": current_group(request),
        "csrf_token": context.get("csrf_token"),
    }


@register.filter
def day(timestamp: str | None) -> str:
    """'2025-03-01T09:30:00Z' → '2025-03-01' (stored timestamps are fixed-width UTC text)."""
    return timestamp[:10] if timestamp else ""


@register.filter
def score(value: float | None) -> str:
    return "" if value is None else f"{value:.3g}"
