"""Adding an edge between two nodes of the group, by hand."""

from __future__ import annotations

from memoria.curation.commit import ChangeOutcome, change_commit, edge_change
from memoria.curation.errors import StaleEdit
from memoria.curation.models import EDGE_CREATE
from memoria.curation.state import EdgeState, timestamp_now
from memoria.curation.store import Scope, state_read
from memoria.errors import InvalidInput
from memoria.graph import driver, kinds
from memoria.interchange.document import EdgeRecord
from memoria.interchange.importer import _edge_props as edge_props

# Fact ids are keyed by group like node ids: the same id in another group is another fact.
EDGE_EXISTS = f"""
MATCH ()-[r:{kinds.RELATES}]->()
WHERE r.id = $id AND r.group_id = $group
RETURN count(r) AS c
"""


def _check_ends(group: str, record: EdgeRecord) -> None:
    """Both ends and every episode must be nodes of this group (read under its keys, so no other group's node)."""
    wanted = {record.source, record.target, *record.episodes}
    nodes = state_read(group=group, scope=Scope(nodes=frozenset(wanted))).nodes
    problems = []
    for field, node_id in (("source", record.source), ("target", record.target)):
        node = nodes[node_id]
        if node is None or node.props.get("group_id") != group:
            problems.append(f"edge.{field}: {node_id!r} is not a node of this group")
    for episode in record.episodes:
        node = nodes[episode]
        if node is None or node.props.get("group_id") != group or node.kind != kinds.EPISODE:
            problems.append(f"edge.episodes: {episode!r} is not an episode of this group")
    if problems:
        raise InvalidInput(problems)


def edge_create(*, group: str, record: EdgeRecord, actor: str) -> ChangeOutcome:
    """Create the edge; its id is the record's (derived from group, source, relation and target when not given)."""
    _check_ends(group, record)
    if driver.read(EDGE_EXISTS, id=record.id, group=group)[0]["c"]:
        raise StaleEdit(f"edge {record.id!r} already exists: edit it instead")
    created = EdgeState.of(record.source, record.target, {**edge_props(record, group), "created_at": timestamp_now()})
    change = edge_change(group=group, action=EDGE_CREATE, edge_id=record.id, before=None, after=created)
    return change_commit(change=change, actor=actor)
