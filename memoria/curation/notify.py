"""After a change has committed: tell the group's open views, and embed again the texts that lost their vectors.

Neither may undo or fail the change (it is already stored): failures are logged, and a missing
vector is also filled later by `python manage.py reindex`, which embeds whatever lacks one.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync

from memoria.curation.audit import audit_entry_as_dict
from memoria.curation.models import AuditEntry
from memoria.curation.state import GraphState
from memoria.curation.store import AppliedChange
from memoria.graph import kinds
from memoria.live import CurationChanged, publish
from memoria.reindex import reindex_after_write

logger = logging.getLogger(__name__)


def curation_event(entry: AuditEntry) -> CurationChanged:
    """The websocket event of a change: the entry without its full states, plus the touched items as they are now."""
    after = GraphState.from_json(entry.after)
    return CurationChanged(
        group=entry.group,
        entry=audit_entry_as_dict(entry, with_states=False),
        nodes={
            key: (
                {"name": node.name, "labels": [label for label in node.labels if label != kinds.MEMORY_LABEL]}
                if node
                else None
            )
            for key, node in after.nodes.items()
        },
        edges={
            key: (_edge_now(edge.source, edge.target, edge.props) if edge else None)
            for key, edge in after.edges.items()
        },
    )


def _edge_now(source: str, target: str, props: dict[str, Any]) -> dict[str, Any]:
    """Every stored property, plus `category` named as the edge API names it: an open inspector compares the
    event's edge with the record it shows, and a missing name would read as a change and redraw it."""
    return {"source": source, "target": target, **props, "category": props.get("relation_category")}


def curation_broadcast(entry: AuditEntry) -> None:
    try:
        async_to_sync(publish)(entry.group, curation_event(entry))
    except Exception:  # a listener's outage must not turn a stored change into an error
        logger.exception("could not broadcast curation entry %s", entry.pk)


def vectors_refresh(*, group: str, applied: AppliedChange) -> int | None:
    """Embed what the write left without a vector; how many were embedded, or None when that failed."""
    if not applied.unembedded:
        return 0
    outcome = reindex_after_write(group=group, ids=applied.unembedded)
    if outcome.error is not None:
        logger.warning("curation in %s left %s text(s) to embed: %s", group, outcome.left, outcome.error)
        return None
    return outcome.embedded


def change_announce(*, entry: AuditEntry, applied: AppliedChange) -> int | None:
    curation_broadcast(entry)
    return vectors_refresh(group=entry.group, applied=applied)
