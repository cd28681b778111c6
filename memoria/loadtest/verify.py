"""After the load: is every ingested episode stored exactly once? Asked of the graph, not of the responses."""

from __future__ import annotations

from memoria.graph import driver, kinds
from memoria.loadtest.report import EpisodeCheck

STORED_EPISODES = f"""
MATCH (e:{kinds.MEMORY_LABEL}:{kinds.EPISODE} {{group_id: $group}})
WHERE e.id STARTS WITH $prefix
RETURN e.id AS id, count(*) AS copies
"""


def episode_check(*, group: str, prefix: str, sent: list[str], acknowledged: list[str]) -> EpisodeCheck:
    """Lost: acknowledged but absent. Duplicated: one id on several nodes. Unexpected: stored, never sent."""
    copies = {row["id"]: row["copies"] for row in driver.read(STORED_EPISODES, group=group, prefix=prefix)}
    sent_ids, acknowledged_ids = set(sent), set(acknowledged)
    return EpisodeCheck(
        sent=len(sent),
        acknowledged=len(acknowledged),
        stored=len(copies),
        lost=tuple(sorted(acknowledged_ids - set(copies))),
        duplicated=tuple(sorted(episode_id for episode_id, count in copies.items() if count > 1)),
        unexpected=tuple(sorted(set(copies) - sent_ids)),
        stored_despite_error=len((sent_ids - acknowledged_ids) & set(copies)),
    )
