"""Undoing the latest change to an item: its `before` state is applied back, and the undo is audited too.

Undoing an undo re-applies the original change (a redo), by the same rule.
"""

from __future__ import annotations

from memoria.curation.audit import audit_entry_get
from memoria.curation.commit import Change, ChangeOutcome, change_commit
from memoria.curation.errors import CurationConflict, StaleEdit
from memoria.curation.models import UNDO
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
