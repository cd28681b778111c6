"""The memory group a signed-in person is looking at: chosen in the header, remembered in their session."""

from __future__ import annotations

from django.http import HttpRequest

from memoria.accounts.services import check_group_access, user_groups
from memoria.errors import GraphUnavailable
from memoria.graph.selectors import visible_groups

SESSION_KEY = "memoria_group"


def switchable_groups(request: HttpRequest) -> list[str]:
    """The groups the header offers: the user's memberships (every stored group for admins)."""
    try:
        return visible_groups(allowed=user_groups(user=request.user))
    except GraphUnavailable:  # admins' list comes from the graph; the header must still render on a 503 page
        remembered = request.session.get(SESSION_KEY)
        return [remembered] if remembered else []


def current_group(request: HttpRequest) -> str | None:
    """The remembered group while the user may still see it, else their first group, else None."""
    groups = switchable_groups(request)
    remembered = request.session.get(SESSION_KEY)
    if remembered in groups:
        return remembered
    return groups[0] if groups else None


def remember_group(request: HttpRequest, group: str) -> str:
    """Check access (GroupNotFound otherwise) and make `group` the session's current group."""
    check_group_access(user=request.user, group=group)
    request.session[SESSION_KEY] = group
    return group
