"""Step 1: the group's last episodes before an episode's reference time, which extraction reads as context.

One round trip serves a whole batch (one row set per distinct reference time); episodes earlier in the
same batch are not stored yet, so they are merged in from memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memoria.graph import driver, kinds

CONTEXT_EPISODES = 10  # Graphiti reads the last 10 episodes

PREVIOUS_EPISODES = f"""
UNWIND $times AS time
CALL (time) {{
  MATCH (e:{kinds.EPISODE} {{group_id: $group}})
  WHERE e.valid_at <= time
  RETURN e
  ORDER BY e.valid_at DESC, e.created_at DESC, e.id DESC
  LIMIT $limit
}}
RETURN time, e.id AS id, e.name AS name, coalesce(e.content, '') AS content, e.source AS source,
       e.valid_at AS valid_at
"""


@dataclass(frozen=True)
class PriorEpisode:
    id: str
    name: str
    content: str
    source: str
    valid_at: str


@dataclass(frozen=True)
class ContextRequest:
    group: str
    reference_times: tuple[str, ...]
    limit: int = CONTEXT_EPISODES


@dataclass(frozen=True)
class StoredContext:
    """The stored episodes before each reference time, newest first."""

    by_time: dict[str, tuple[PriorEpisode, ...]]
    limit: int

    def for_episode(
        self, *, reference_time: str, episode_id: str, earlier_in_batch: Sequence[PriorEpisode] = ()
    ) -> tuple[PriorEpisode, ...]:
        """The episode's context: stored and earlier-in-batch episodes up to its time, newest first."""
        stored = [prior for prior in self.by_time.get(reference_time, ()) if prior.id != episode_id]
        batch = [prior for prior in earlier_in_batch if prior.valid_at <= reference_time and prior.id != episode_id]
        # Batch episodes came after the stored ones of the same time, and later ones in the batch come last.
        ordered = sorted(
            [(prior.valid_at, 0, -index, prior) for index, prior in enumerate(stored)]
            + [(prior.valid_at, 1, index, prior) for index, prior in enumerate(batch)],
            key=lambda item: item[:3],
            reverse=True,
        )
        return tuple(item[3] for item in ordered[: self.limit])


def context_fetch(*, request: ContextRequest) -> StoredContext:
    """Read the previous episodes of every distinct reference time in one query."""
    times = sorted(set(request.reference_times))
    by_time: dict[str, list[PriorEpisode]] = {time: [] for time in times}
    if times and request.limit > 0:
        for row in driver.read(PREVIOUS_EPISODES, group=request.group, times=times, limit=request.limit):
            by_time[row["time"]].append(
                PriorEpisode(row["id"], row["name"], row["content"], row["source"] or "", row["valid_at"])
            )
    return StoredContext({time: tuple(found) for time, found in by_time.items()}, request.limit)
