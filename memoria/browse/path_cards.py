"""A found path as the graph view draws it: the cards of its nodes and facts, in path order."""

from __future__ import annotations

from typing import Any

from memoria.browse.paths import PathResult
from memoria.browse.selectors import facts_by_ends, node_cards


def path_answer(*, group: str, result: PathResult) -> dict[str, Any]:
    nodes = node_cards(group=group, ids=result.nodes)
    edges = facts_by_ends(group=group, ends=[(step.edge, step.source, step.target) for step in result.steps])
    return {
        "mode": result.mode.value,
        "found": result.found,
        "hops": result.hops,
        "strength": result.strength,
        "visited": result.visited,
        "levels": result.levels,
        "cut": result.cut,
        "nodes": [card.as_dict() for card in nodes],
        "edges": [card.as_dict() for card in edges],
    }
