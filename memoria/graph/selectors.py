"""Read-only questions about groups that pages, APIs and commands share.

These are admin reads, made one at a time (a group's page, a command, a backup), so they go through the models
(docs/architecture.md, "Reads through the models"); every one filters by `group_id`, and each count is a
`count()` the server computes: no node is inflated, so no stored vector crosses the wire.
"""

from __future__ import annotations

from dataclasses import dataclass

from memoria.graph.driver import model_read
from memoria.graph.models import Community, Entity, Episode, GroupStamp, Memory
from memoria.graph.versions import stamped_groups


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
    """How many of each kind the group holds; a fact is counted once, from its source node's group."""

    def counts() -> GroupSummary:
        return GroupSummary(
            group=group,
            episodes=len(Episode.nodes.filter(group_id=group)),
            entities=len(Entity.nodes.filter(group_id=group)),
            communities=len(Community.nodes.filter(group_id=group)),
            facts=len(Memory.nodes.filter(group_id=group).traverse("relates")),
        )

    return model_read(counts)


def group_version_counted(*, group: str) -> int:
    """The group's version summed over its stamps through the GroupStamp model: for a command's look at a group
    (a backup reads it before and after the group); hot paths read `versions.group_version`, one `sum()`."""

    def version() -> int:
        return sum(stamp.count or 0 for stamp in GroupStamp.nodes.filter(group_id=group))

    return model_read(version)


def visible_groups(*, allowed: list[str] | None) -> list[str]:
    """Groups to list for a user: their memberships, or every stored group for admins (None)."""
    return group_ids() if allowed is None else sorted(allowed)
