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
from memoria.browse.selectors import node_cards

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


def _states(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [state for state in (entry.get("after") or {}, entry.get("before") or {}) if state]


def _edge(entry: dict[str, Any], edge_id: str) -> dict[str, Any] | None:
    return next((edge for state in _states(entry) if (edge := (state.get("edges") or {}).get(edge_id))), None)


def _end_ids(entries: tuple[dict[str, Any], ...]) -> set[str]:
    """Every node an entry names: its nodes, and both ends of its edges."""
    ids: set[str] = set()
    for entry in entries:
        for state in _states(entry):
            ids |= set(state.get("nodes") or {})
            edges = [edge for edge in (state.get("edges") or {}).values() if edge]
            ids |= {end for edge in edges for end in (edge["source"], edge["target"])}
    return ids


def _node_names(group: str, entries: tuple[dict[str, Any], ...]) -> dict[str, str]:
    """Names of the nodes the entries name: as the entries' states hold them, else as stored now (one read)."""
    names: dict[str, str] = {}
    for entry in entries:
        for state in reversed(_states(entry)):  # the later state's name wins
            for node_id, node in (state.get("nodes") or {}).items():
                if node and (node.get("props") or {}).get("name"):
                    names[node_id] = node["props"]["name"]
    unknown = sorted(_end_ids(entries) - set(names))
    names |= {card.id: card.name for card in node_cards(group=group, ids=unknown) if card.name}
    return names


def item_label(entry: dict[str, Any], names: dict[str, str]) -> dict[str, str]:
    """What the item is, in words: an entity's name; an edge's ends by name and its relation, and its fact text.
    (The audit page showed raw ids only, wrapped mid-id: issue 32.)"""
    item_id = entry["item_id"]
    edge = _edge(entry, item_id) if entry["item_kind"] == "edge" else None
    if edge:
        props = edge.get("props") or {}
        ends = (names.get(edge["source"], edge["source"]), names.get(edge["target"], edge["target"]))
        return {"name": f"{ends[0]} {props.get('relation') or '→'} {ends[1]}", "text": props.get("fact") or ""}
    return {"name": names.get(item_id, item_id), "text": ""}


def audit_rows(group: str, entries: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """Entries as the audit page shows them: the item by name with a link, its fact text, and each change as
    before → after text."""
    names = _node_names(group, entries)
    return [
        {
            **entry,
            "item_url": item_url(group, entry["item_kind"], entry["item_id"], entry),
            "item_label": item_label(entry, names),
            "diff": [{**diff_row(change), "name": names.get(change.get("id", ""))} for change in entry["changes"]],
        }
        for entry in entries
    ]
