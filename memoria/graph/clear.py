"""Emptying a group: every memory of it deleted, a few thousand per transaction, each bumping its version.

In chunks because one DETACH DELETE of a large group would need the graph server's whole query heap. Each chunk
bumps the group's version (touching "anything"), so every in-memory view and cache of the group rebuilds; the
stamps stay rather than being deleted, so the version never returns to a number a stale copy was made at. The group
stays listed, empty, for its members; its curation audit trail stays too (undoing an entry of it is then refused,
as the items it changed are gone).
"""

from __future__ import annotations

import neo4j

from memoria.graph import driver, kinds
from memoria.graph.versions import group_version_bump

CLEAR_CHUNK = 5_000
DELETE_CHUNK_OF_NODES = f"""
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group}}) WITH n LIMIT $limit
DETACH DELETE n RETURN count(*) AS deleted
"""


def _chunk_delete(tx: neo4j.ManagedTransaction, group: str, limit: int) -> int:
    record = tx.run(DELETE_CHUNK_OF_NODES, group=group, limit=limit).single()
    deleted = int(record["deleted"]) if record else 0
    if deleted:
        group_version_bump(tx, group)
    return deleted


def group_clear(*, group: str, chunk: int = CLEAR_CHUNK) -> int:
    """How many nodes (episodes, entities, communities) were deleted; their facts and links go with them."""
    total = 0
    while True:
        deleted = driver.write_transaction(lambda tx: _chunk_delete(tx, group, chunk))
        total += deleted
        if deleted < chunk:
            return total
