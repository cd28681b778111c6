"""Graph connectivity of search candidates, blended into the reranked score by a scope's `graph_weight`.

The graph index RFD boosts a candidate that has an edge to one of the entities the query is about (score 1,
else 0). Our explicit "about" entities are the scope's `center_node_id` and `bfs_origin_ids`; without any, a
candidate is scored by how many of the other candidates it links to, divided by the best such count, so a fact
or entity at the heart of the results rises. One parameterised query counts the links for every node at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memoria.graph import driver, kinds
from memoria.search.rerankers import Ranked

LINKS = f"""
UNWIND $nodes AS node
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: node}})
OPTIONAL MATCH (n)-[:{kinds.RELATES}]-(other:{kinds.MEMORY_LABEL})
WHERE other.id IN $targets AND other.id <> node
RETURN node, count(DISTINCT other.id) AS links
"""


def node_links(*, nodes: Sequence[str], targets: Sequence[str], group: str) -> dict[str, int]:
    """How many distinct target nodes each node has a RELATES edge with (either direction, itself excluded)."""
    unique = list(dict.fromkeys(nodes))
    if not unique or not targets:
        return {}
    rows = driver.read(LINKS, nodes=unique, targets=list(dict.fromkeys(targets)), group=group)
    return {row["node"]: int(row["links"]) for row in rows}


def connectivity(*, ends: Mapping[str, tuple[str, ...]], anchors: Sequence[str], group: str) -> dict[str, float]:
    """Each candidate's connectivity in [0, 1]; `ends` maps a candidate to its nodes (an entity: itself; a fact:
    its two endpoints), and a candidate is as connected as its best-connected node.

    With anchors it is the RFD's binary score: 1 when linked to an anchor. Without, the links to the other
    candidates' nodes, over the best candidate's count (all 0 when no candidate links to another).
    """
    nodes = [node for pair in ends.values() for node in pair if node]
    links = node_links(nodes=nodes, targets=anchors or nodes, group=group)
    counts = {item: max((links.get(node, 0) for node in pair if node), default=0) for item, pair in ends.items()}
    if anchors:
        return {item: 1.0 if count else 0.0 for item, count in counts.items()}
    best = max(counts.values(), default=0)
    return {item: count / best if best else 0.0 for item, count in counts.items()}


def blend(ranked: Ranked, graph: Mapping[str, float], *, graph_weight: float) -> Ranked:
    """(1 − w)·score + w·connectivity, best first, the reranked order breaking ties.

    Reranker scores live on different scales (RRF sums, cosines, mention counts), so they are first
    min–max scaled into [0, 1] (all 1 when equal) to weigh like the connectivity.
    """
    if not ranked:
        return []
    low, high = min(score for _, score in ranked), max(score for _, score in ranked)
    span = high - low

    def scaled(score: float) -> float:
        return (score - low) / span if span > 0 else 1.0

    blended = [(item, (1.0 - graph_weight) * scaled(score) + graph_weight * graph[item]) for item, score in ranked]
    return sorted(blended, key=lambda pair: -pair[1])  # stable: ties keep the reranked order
