"""Undoing the latest change to an item: its `before` state is applied back, and the undo is audited too.

Undoing an undo re-applies the original change (a redo), by the same rule. An agent's `undo` names no entry: it
takes back the caller's own latest change in the group that is still in force, so calling it again walks further
back through that caller's changes.
"""

from __future__ import annotations

from memoria.curation.audit import audit_entry_get
from memoria.curation.commit import Change, ChangeOutcome, change_commit
from memoria.curation.errors import CurationConflict, ItemNotFound, StaleEdit
from memoria.curation.models import UNDO, AuditEntry
from memoria.curation.state import GraphState


def audit_entry_undo(*, group: str, entry_id: int, actor: str) -> ChangeOutcome:
    """CurationConflict when a later entry touched the same items, or the items changed since the entry
    (the graph must still hold the entry's `after`); nothing is written then."""
    entry = audit_entry_get(group=group, entry_id=entry_id)
    change = Change(
        group=group,
        action=UNDO,
        item_kind=entry.item_kind,
        item_id=entry.item_id,
        before=GraphState.from_json(entry.after),
        after=GraphState.from_json(entry.before),
    )
    try:
        return change_commit(change=change, actor=actor, undoes=entry)
    except StaleEdit:
        raise
    except CurationConflict as conflict:  # the items are no longer as the entry left them: no retry changes that
        raise StaleEdit(str(conflict)) from conflict


def own_last_change_undo(*, group: str, actor: str) -> ChangeOutcome:
    """Undo `actor`'s latest change in `group` not undone yet (undos themselves are not changes to take back here);
    ItemNotFound when there is none, StaleEdit when someone changed its items since (as for any undo)."""
    entry = (
        AuditEntry.objects.filter(group=group, actor=actor, undone_by__isnull=True)
        .exclude(action=UNDO)
        .order_by("-id")
        .first()
    )
    if entry is None:
        raise ItemNotFound(f"no change of yours to undo in group {group!r}")
    return audit_entry_undo(group=group, entry_id=entry.pk, actor=actor)
