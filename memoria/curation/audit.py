"""Reading the audit trail: pages of entries, newest first, and what an entry looks like to readers and listeners."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoria.curation.errors import ItemNotFound
from memoria.curation.models import UNDO, AuditEntry, AuditItem
from memoria.curation.state import GraphState, state_changes

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200


@dataclass(frozen=True)
class AuditPage:
    entries: tuple[dict[str, Any], ...]
    next_before: int | None  # pass as `before` for the next (older) page; None on the last page


def audit_entry_get(*, group: str, entry_id: int) -> AuditEntry:
    entry = AuditEntry.objects.filter(group=group, pk=entry_id).first()
    if entry is None:
        raise ItemNotFound(f"no audit entry {entry_id} in group {group!r}")
    return entry


def item_keys(entry: AuditEntry) -> list[tuple[str, str]]:
    return [(item.kind, item.item_id) for item in entry.items.all()]


def undo_refusal(*, entry: AuditEntry, exclude: Sequence[int] = ()) -> str | None:
    """Why `entry` cannot be undone now, or None if it can.

    Undo works like an editor's: the changes to an item form a stack, and only the top one comes off.
    An undone change and an undo are off the stack, so after undoing the latest change the one before
    it can be undone next. An undo can itself be undone (a redo) while nothing newer touched its items.
    """
    if entry.undone_by_id is not None:
        return f"entry {entry.pk} is already undone (by entry {entry.undone_by_id})"
    keys = set(item_keys(entry))
    later = (
        AuditEntry.objects.filter(group=entry.group, pk__gt=entry.pk, items__item_id__in=sorted(k for _, k in keys))
        .exclude(pk__in=list(exclude))
        .distinct()
        .prefetch_related("items")
        .order_by("-id")
    )
    for other in later:
        if not keys & set(item_keys(other)):
            continue
        if entry.action == UNDO or (other.action != UNDO and other.undone_by_id is None):
            return (
                f"entry {other.pk} ({other.action} by {other.actor}) changed these items later; "
                "only the latest change to an item can be undone"
            )
    return None


def audit_entry_as_dict(entry: AuditEntry, *, undoable: bool | None = None, with_states: bool = True) -> dict[str, Any]:
    """The shape of an entry in the API and in `curation` events (docs/curation.md)."""
    before, after = GraphState.from_json(entry.before), GraphState.from_json(entry.after)
    shown: dict[str, Any] = {
        "id": entry.pk,
        "group": entry.group,
        "created_at": entry.created_at.isoformat().replace("+00:00", "Z"),
        "actor": entry.actor,
        "action": entry.action,
        "item_kind": entry.item_kind,
        "item_id": entry.item_id,
        "items": [{"kind": kind, "id": key} for kind, key in item_keys(entry)],
        "undoes": entry.undoes_id,
        "undone_by": entry.undone_by_id,
        "changes": state_changes(before, after),
    }
    if undoable is not None:
        shown["undoable"] = undoable
    if with_states:
        shown["before"] = entry.before
        shown["after"] = entry.after
    return shown


def audit_entries_page(
    *,
    group: str,
    item_id: str | None = None,
    item_kind: str | None = None,
    before: int | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
) -> AuditPage:
    """Entries of a group, newest first; with `item_id`, only those that touched that item (of `item_kind`)."""
    entries = AuditEntry.objects.filter(group=group).prefetch_related("items")
    if item_id is not None:
        items = AuditItem.objects.filter(group=group, item_id=item_id)
        if item_kind is not None:
            items = items.filter(kind=item_kind)
        entries = entries.filter(pk__in=items.values("entry_id"))
    if before is not None:
        entries = entries.filter(pk__lt=before)
    page = list(entries.order_by("-id")[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    return AuditPage(
        entries=tuple(audit_entry_as_dict(entry, undoable=undo_refusal(entry=entry) is None) for entry in page),
        next_before=page[-1].pk if more else None,
    )
