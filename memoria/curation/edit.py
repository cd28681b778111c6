"""Editing an edge in place: its relation, category, fact, weight, tags or valid_at."""

from __future__ import annotations

from memoria.curation.commit import ChangeOutcome, change_commit, edge_change, version_check
from memoria.curation.inputs import EdgePatch, edge_record_check
from memoria.curation.models import EDGE_UPDATE
from memoria.curation.selectors import edge_state_get
from memoria.curation.state import EdgeState

# Body field → stored property, for the fields a patch may carry.
PROPERTY_OF = {
    "relation": "relation",
    "category": "relation_category",
    "fact": "fact",
    "weight": "weight",
    "tags": "tags",
    "valid_at": "valid_at",
}


def edge_as_document_item(edge: EdgeState) -> dict:
    """The stored edge in the import format's shape, so the import validator can judge it whole."""
    props = edge.props
    return {
        "id": props["id"],
        "source": edge.source,
        "target": edge.target,
        "relation": props.get("relation"),
        "weight": props.get("weight"),
        "tags": list(props.get("tags") or []),
        "fact": props.get("fact"),
        "category": props.get("relation_category"),
        "valid_at": props.get("valid_at"),
        "invalid_at": props.get("invalid_at"),
        "episodes": list(props.get("episodes") or []),
    }


def edge_update(*, group: str, edge_id: str, patch: EdgePatch, actor: str) -> ChangeOutcome:
    """Apply a patch; the edge as it would become is validated whole (valid_at stays before invalid_at)."""
    current = edge_state_get(group=group, edge_id=edge_id)
    version_check(what=f"fact {edge_id!r}", state=current, version=patch.version)
    record = edge_record_check({**edge_as_document_item(current), **patch.fields}, group=group)
    checked = {
        "relation": record.relation,
        "relation_category": record.category,
        "fact": record.fact,
        "weight": record.weight,
        "tags": list(record.tags),
        "valid_at": record.valid_at,
    }
    edited = current.with_props(**{PROPERTY_OF[name]: checked[PROPERTY_OF[name]] for name in patch.fields})
    change = edge_change(group=group, action=EDGE_UPDATE, edge_id=edge_id, before=current, after=edited)
    return change_commit(change=change, actor=actor)
