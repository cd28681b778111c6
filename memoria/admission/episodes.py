"""An episode batch on its way in, as REST (POST …/episodes) and MCP (add_memory) both take it: one episode or a
list, checked by one parser (every problem at once, an id given twice among them), added in one transaction, and
answered in one shape."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from memoria.ingest.episodes import episodes_post_parse
from memoria.ingest.pipeline import episodes_add, extractors_for_settings


def episodes_admit(*, group: str, given: Any, update_communities: bool) -> dict[str, Any]:
    """Add the episodes of a request body (an episode object, or a list of them) to the group, all or nothing.

    The answer: the group, how many were added and left unchanged (already stored under the same id), and each
    episode's result in the order given.
    """
    episodes = episodes_post_parse(given, group=group)
    results = episodes_add(
        group=group,
        episodes=episodes,
        extractors=extractors_for_settings(),
        batch_size=len(episodes),
        update_communities=update_communities,
    )
    added = sum(result.added for result in results)
    return {
        "group": group,
        "added": added,
        "unchanged": len(results) - added,
        "episodes": [asdict(result) for result in results],
    }
