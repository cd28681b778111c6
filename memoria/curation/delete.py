"""Deleting an edge: gone from the graph, kept whole in the audit entry so undo can put it back exactly."""

from __future__ import annotations

from memoria.curation.commit import ChangeOutcome, change_commit, edge_change, version_check
from memoria.curation.models import EDGE_DELETE
from memoria.curation.selectors import edge_state_get


def edge_delete(*, group: str, edge_id: str, version: str | None, actor: str) -> ChangeOutcome:
    current = edge_state_get(group=group, edge_id=edge_id)
    version_check(what=f"edge {edge_id!r}", state=current, version=version)
    change = edge_change(group=group, action=EDGE_DELETE, edge_id=edge_id, before=current, after=None)
    return change_commit(change=change, actor=actor)
