"""The browser side of curation (docs/curation.md): who may edit, and the audit page's rows.

The server refuses a viewer's writes anyway (permissions.ReadOrCurate); pages use `can_curate` only so that
viewers are not shown controls that would fail.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.urls import reverse

from memoria.accounts.roles import Role
from memoria.accounts.services import user_can_access_group, user_has_role

# A value longer than this is cut in the audit list (the API has the full text).
SHOWN_VALUE = 160


def curation_settings(request: HttpRequest, group: str) -> dict[str, Any]:
    user = request.user
    can_curate = user_can_access_group(user=user, group=group) and user_has_role(user=user, role=Role.CURATOR)
    return {"group": group, "can_curate": can_curate, "csrf": get_token(request) if can_curate else ""}


def shown_value(value: Any) -> str:
    if value is None:
        return "—"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_VALUE else f"{text[: SHOWN_VALUE - 1]}…"


def item_url(group: str, kind: str, item_id: str, entry: dict[str, Any]) -> str | None:
    """Where an item can be seen: an entity's page, or an edge in the graph view between its ends."""
    if kind == "entity":
        return reverse("explorer:entity", args=[group, item_id])
    for state in (entry.get("after") or {}, entry.get("before") or {}):
        edge = (state.get("edges") or {}).get(item_id)
        if edge:
            query = urlencode({"nodes": f"{edge['source']},{edge['target']}", "edge": item_id})
            return f"{reverse('explorer:graph', args=[group])}?{query}"
    return None


def diff_row(change: dict[str, Any]) -> dict[str, Any]:
    return {**change, "before_text": shown_value(change.get("before")), "after_text": shown_value(change.get("after"))}


def audit_rows(group: str, entries: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """Entries as the audit page shows them: the item with a link, and each change as before → after text."""
    return [
        {
            **entry,
            "item_url": item_url(group, entry["item_kind"], entry["item_id"], entry),
            "diff": [diff_row(change) for change in entry["changes"]],
        }
        for entry in entries
    ]
