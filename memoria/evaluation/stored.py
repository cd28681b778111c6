"""How much of a dataset a group holds already, so an evaluation loads only what is missing (a rerun resumes)."""

from __future__ import annotations

from collections.abc import Sequence

from memoria.ingest.pipeline import stored_episodes

STORED_CHUNK = 1000  # ids per read: a large corpus must not become one huge parameter list


def stored_count(*, group: str, ids: Sequence[str]) -> int:
    """How many of these episode ids the group holds; an id it holds as an entity is refused (InvalidInput)."""
    return sum(
        len(stored_episodes(group=group, ids=ids[start : start + STORED_CHUNK]))
        for start in range(0, len(ids), STORED_CHUNK)
    )
