"""Claiming nodes at the start of a write that reads what it is about to change, so concurrent writers of the same
nodes take turns instead of overwriting one another.

Neo4j reads at read-committed isolation: a transaction that reads a node, works something out and writes it back
loses another transaction's update made in between, unless it held the node's write lock before it read. Writing
a property takes that lock, so a claim writes a fresh `revision` on each node, in id order (two claimants never
wait for each other in a circle). ArcadeDB instead fails, at commit, the later of two transactions that changed
one record, with a transient error; the claim makes sure the record did change (a property set and removed again
changes nothing ArcadeDB sees), so the later writer runs again from the start (memoria.graph.retry) and reads what
the first one wrote. On both, what a claimant reads after its claim stays as read until it commits.

A claim also says which of the nodes still exist: one merged or deleted meanwhile is missing from the answer.
`revision` is bookkeeping, not memory: curation leaves it out of the states it compares and audits.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

import neo4j

from memoria.graph import kinds

REVISION = "revision"
CLAIM = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})
SET n.{REVISION} = $revision
RETURN n.id AS id, labels(n) AS labels
"""


def nodes_claim(tx: neo4j.ManagedTransaction, *, group: str, ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Inside a write transaction: claim the group's nodes with these ids, before reading them. Answers the labels
    of each node found; an id with no node is left out."""
    ordered = sorted(set(ids))
    if not ordered:
        return {}
    found = tx.run(CLAIM, ids=ordered, group=group, revision=uuid.uuid4().hex)
    return {record["id"]: tuple(record["labels"]) for record in found}
