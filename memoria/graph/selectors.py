"""Read-only questions about groups that pages, APIs and commands share."""

from __future__ import annotations

from dataclasses import dataclass

from memoria.graph import driver
from memoria.graph.versions import stamped_groups

GROUP_NODE_COUNTS = """
MATCH (n:Memory {group_id: $group})
RETURN
  sum(CASE WHEN 'Episode' IN labels(n) THEN 1 ELSE 0 END) AS episodes,
  sum(CASE WHEN 'Entity' IN labels(n) THEN 1 ELSE 0 END) AS entities,
  sum(CASE WHEN 'Community' IN labels(n) THEN 1 ELSE 0 END) AS communities
"""
GROUP_FACT_COUNT = """
MATCH (n:Memory {group_id: $group})-[r:RELATES]->()
RETURN count(r) AS facts
"""


@dataclass(frozen=True)
class GroupSummary:
    group: str
    episodes: int
    entities: int
    communities: int
    facts: int


def group_ids() -> list[str]:
    """Every stored group, from the version stamps every writer leaves (memoria/graph/versions.py)."""
    return stamped_groups()


def group_summary(*, group: str) -> GroupSummary:
    counts = driver.read(GROUP_NODE_COUNTS, group=group)[0]
    facts = driver.read(GROUP_FACT_COUNT, group=group)[0]["facts"]
    return GroupSummary(
        group=group,
        episodes=counts["episodes"] or 0,
        entities=counts["entities"] or 0,
        communities=counts["communities"] or 0,
        facts=facts or 0,
    )


def visible_groups(*, allowed: list[str] | None) -> list[str]:
    """Groups to list for a user: their memberships, or every stored group for admins (None)."""
    return group_ids() if allowed is None else sorted(allowed)
