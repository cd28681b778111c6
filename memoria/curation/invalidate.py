"""Invalidating an edge: it stops being true at invalid_at, and we record when we learned it; nothing is deleted."""

from __future__ import annotations

from memoria.curation.commit import ChangeOutcome, change_commit, edge_change, version_check
from memoria.curation.errors import StaleEdit
from memoria.curation.inputs import EdgeInvalidation
from memoria.curation.models import EDGE_INVALIDATE
from memoria.curation.selectors import edge_state_get
from memoria.curation.state import timestamp_now
from memoria.errors import InvalidInput


def edge_invalidate(*, group: str, edge_id: str, invalidation: EdgeInvalidation, actor: str) -> ChangeOutcome:
    """Set invalid_at (the given time, or now) and expired_at (now), as ingestion does for a contradicted fact."""
    current = edge_state_get(group=group, edge_id=edge_id)
    version_check(what=f"fact {edge_id!r}", state=current, version=invalidation.version)
    ended = current.props.get("invalid_at")
    if ended is not None:
        raise StaleEdit(f"fact {edge_id!r} is already invalid since {ended}; undo that change to move it")
    now = timestamp_now()
    invalid_at = invalidation.invalid_at or now
    valid_at = current.props.get("valid_at")
    if valid_at is not None and invalid_at < valid_at:
        raise InvalidInput(f"invalidate.invalid_at: {invalid_at} is before the fact's valid_at {valid_at}")
    change = edge_change(
        group=group,
        action=EDGE_INVALIDATE,
        edge_id=edge_id,
        before=current,
        after=current.with_props(invalid_at=invalid_at, expired_at=now),
    )
    return change_commit(change=change, actor=actor)
