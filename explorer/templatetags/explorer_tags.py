"""Template pieces every explorer page shares: the header's group switcher, and small formatting filters."""

from __future__ import annotations

import functools
from typing import Any

from django import template
from django.utils.html import json_script
from django.utils.safestring import SafeString

from explorer.current_group import current_group, switchable_groups
from explorer.frames import ErrorCode, FrameType
from memoria.accounts.services import user_role
from memoria.jobs.models import JobKind, JobState
from memoria.retrieval.event_types import Algorithm, EventType

NAMES_ELEMENT_ID = "memoria-names"  # explorer/static/explorer/js/names.js reads it

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


@register.simple_tag
@functools.cache
def protocol_names() -> SafeString:
    """The names of retrieval events, websocket frames, error codes and algorithms, from the enums that declare
    them, for the pages' scripts: a renamed event cannot leave a page matching the old name. The same for every
    page of the process, so written once."""
    names = {
        "EVENT": {member.name: member.value for member in EventType},
        "FRAME": {member.name: member.value for member in FrameType},
        "ERROR": {member.name: member.value for member in ErrorCode},
        "ALGORITHM": {member.name: member.value for member in Algorithm},
        "JOB_STATE": {member.name: member.value for member in JobState},
        "JOB_KIND": {member.name: member.value for member in JobKind},
    }
    return json_script(names, NAMES_ELEMENT_ID)


@register.filter
def day(timestamp: str | None) -> str:
    """'2025-03-01T09:30:00Z' → '2025-03-01' (stored timestamps are fixed-width UTC text)."""
    return timestamp[:10] if timestamp else ""


@register.filter
def score(value: float | None) -> str:
    return "" if value is None else f"{value:.3g}"
