"""The memory group a signed-in person is looking at: chosen in the header, remembered in their session."""

from __future__ import annotations

from django.http import HttpRequest

from memoria.accounts.services import check_group_access, user_groups
from memoria.errors import GraphUnavailable
from memoria.graph.selectors import visible_groups

SESSION_KEY = "memoria_group"
# Where a person with no remembered group lands when they may see it: the demo `make run` loads, made to be shown.
LANDING_GROUP = "demo"


def switchable_groups(request: HttpRequest) -> list[str]:
    """The groups the header offers: the user's memberships (every stored group for admins); read once a request,
    as the header, the page and the current group all ask."""
    cached = getattr(request, "_memoria_groups", None)
    if cached is not None:
        return cached
    try:
        groups = visible_groups(allowed=user_groups(user=request.user))
    except GraphUnavailable:  # admins' list comes from the graph; the header must still render on a 503 page
        remembered = request.session.get(SESSION_KEY)
        return [remembered] if remembered else []
    request._memoria_groups = groups  # type: ignore[attr-defined]
    return groups


def current_group(request: HttpRequest) -> str | None:
    """The remembered group while the user may still see it, else the demo, else their first group, else None."""
    groups = switchable_groups(request)
    remembered = request.session.get(SESSION_KEY)
    if remembered in groups:
        return remembered
    if LANDING_GROUP in groups:
        return LANDING_GROUP
    return groups[0] if groups else None


def remember_group(request: HttpRequest, group: str) -> str:
    """Check access (GroupNotFound otherwise) and make `group` the session's current group."""
    check_group_access(user=request.user, group=group)
    request.session[SESSION_KEY] = group
    return group
