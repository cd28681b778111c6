"""The one way a curation change lands: audit entry and graph write together, then (only once committed) the news.

Order, and what a failure leaves:
1. A Django transaction opens and the audit entry is inserted (on SQLite this takes the write lock,
   so curation changes are serialised and audit order is commit order).
2. The graph transaction checks the graph still holds `before`, writes `after`, and commits.
   If it fails, nothing was written to the graph and the Django transaction rolls back: no entry.
3. The Django transaction commits. Should that fail after step 2 — the one window where the two
   stores disagree — the graph keeps the change without an entry; the full entry is logged at
   ERROR level so an operator can replay it, and the caller gets the error.
4. After both commits: the `curation` event goes to the group's listeners, and texts that lost
   their vectors are embedded again. Failures here are logged, never undo the change.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from neo4j import exceptions as neo4j_errors

from memoria.curation.audit import audit_entry_as_dict, undo_refusal
from memoria.curation.errors import StaleEdit
from memoria.curation.models import EDGE, ENTITY, EPISODE, UNDO, AuditEntry, AuditItem
from memoria.curation.notify import change_announce
from memoria.curation.state import EdgeState, GraphState, NodeState
from memoria.curation.store import AppliedChange, state_apply
from memoria.errors import GraphUnavailable
from memoria.graph import driver, kinds

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Change:
    """A planned change: the items' state now (as read) and as it should become."""

    group: str
    action: str
    item_kind: str
    item_id: str
    before: GraphState
    after: GraphState


@dataclass(frozen=True)
class ChangeOutcome:
    entry: AuditEntry | None  # None when the change changed nothing (no write, no entry)
    reindexed: int | None  # texts embedded after the commit; None when that failed (the reindex command catches up)

    def as_dict(self, **extra: Any) -> dict[str, Any]:
        """The answer of every face that made the change (REST view, MCP tool): the audit entry, then `extra`."""
        entry = audit_entry_as_dict(self.entry) if self.entry is not None else None
        return {"entry": entry, "reindexed": self.reindexed, **extra}


def edge_change(*, group: str, action: str, edge_id: str, before: EdgeState | None, after: EdgeState | None) -> Change:
    """A change of one edge (None: absent), the shape of every edge action."""
    return Change(
        group=group,
        action=action,
        item_kind=EDGE,
        item_id=edge_id,
        before=GraphState(edges={edge_id: before}),
        after=GraphState(edges={edge_id: after}),
    )


def version_check(*, what: str, state: EdgeState | NodeState, version: str | None) -> None:
    """Optimistic concurrency: an edit names the version it was made on, and a newer one refuses it."""
    if version is not None and state.version() != version:
        raise StaleEdit(
            f"{what} changed since you read it (you sent version {version}, it is {state.version()} now); "
            "reload it and make your change again"
        )


def _node_kind(change: Change, key: str) -> str:
    """An episode is recorded as one (the audit filter finds its deletion); every other node as an entity."""
    node = change.before.nodes.get(key) or change.after.nodes.get(key)
    return EPISODE if node is not None and node.kind == kinds.EPISODE else ENTITY


def _items(change: Change) -> list[tuple[str, str]]:
    nodes = [(_node_kind(change, key), key) for key in sorted(change.after.nodes)]
    return nodes + [(EDGE, key) for key in sorted(change.after.edges)]


def _commit_unknown(error: BaseException) -> bool:
    """Whether the graph write failed with its connection lost during COMMIT: it may have landed."""
    return isinstance(error, GraphUnavailable) and isinstance(error.__cause__, neo4j_errors.IncompleteCommit)


def change_commit(*, change: Change, actor: str, undoes: AuditEntry | None = None) -> ChangeOutcome:
    """Write the change and its audit entry as described above; CurationConflict when the graph moved meanwhile."""
    if change.before == change.after:
        return ChangeOutcome(entry=None, reindexed=0)
    applied: AppliedChange | None = None
    entry = AuditEntry(
        group=change.group,
        actor=actor,
        action=change.action,
        item_kind=change.item_kind,
        item_id=change.item_id,
        before=change.before.as_json(),
        after=change.after.as_json(),
        undoes=undoes,
    )
    try:
        with transaction.atomic():
            entry.save()
            AuditItem.objects.bulk_create(
                AuditItem(entry=entry, group=change.group, kind=kind, item_id=key) for kind, key in _items(change)
            )
            if undoes is not None:
                undoes.refresh_from_db(fields=["undone_by"])  # under the write lock now: another undo may have won
                refusal = undo_refusal(entry=undoes, exclude=[entry.pk])
                if refusal is not None:
                    raise StaleEdit(refusal)
                AuditEntry.objects.filter(pk=undoes.pk).update(undone_by=entry)
                if undoes.action == UNDO:  # a redo: the change that undo had undone is in force again
                    AuditEntry.objects.filter(pk=undoes.undoes_id).update(undone_by=None)
            applied = driver.write_transaction(
                lambda tx: state_apply(tx, group=change.group, expected=change.before, target=change.after)
            )
    except Exception as error:
        if applied is not None or _commit_unknown(error):
            logger.error(
                "curation change %s the graph but its audit entry was not saved: %s",
                "written to" if applied is not None else "perhaps written to (the connection was lost at commit)",
                json.dumps(
                    {
                        "group": change.group,
                        "actor": actor,
                        "action": change.action,
                        "before": entry.before,
                        "after": entry.after,
                    }
                ),
            )
        raise
    return ChangeOutcome(entry=entry, reindexed=change_announce(entry=entry, applied=applied))
