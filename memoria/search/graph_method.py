"""Episodes found through the graph: Personalized PageRank from the entities the query names (HippoRAG).

The seeds are the query's linked entities (memoria.linking.lexicon: names and aliases, IDF-weighted, no model),
the walk is the group's projection as `ppr_run` walks it (facts both ways, episodes through their mentions,
inferred synonymy edges like any fact), and the candidates are the episodes by PPR score. A query that names no
stored entity finds nothing here, so a search that fuses this method with cosine falls back to cosine alone.
"""

from __future__ import annotations

from memoria.graph import driver, kinds
from memoria.graph.asof import valid_time
from memoria.ppr.request import PprRequest
from memoria.ppr.service import UNIFORM, ppr_run
from memoria.search.methods import Candidate

EPISODE_TEXTS = f"""
UNWIND $ids AS episode_id
MATCH (n:{kinds.EPISODE} {{group_id: $group, id: episode_id}})
RETURN n.id AS id, coalesce(n.content, '') AS text
"""


def ppr_episodes(*, group: str, query: str, limit: int, damping: float, valid_at: str | None = None) -> list[Candidate]:
    """Up to `limit` episodes with a PPR score above zero, best first; none when the query links no entity."""
    request = PprRequest(
        group=group,
        query=query,
        linked=True,
        damping=damping,
        top_k=limit,
        moment=valid_time(valid_at) if valid_at else None,
    )
    answer = ppr_run(request)
    if answer.seed_source == UNIFORM:  # nothing linked: a walk from everywhere ranks by centrality, not the query
        return []
    passages = [node for node in answer.passages if node.score > 0]
    texts = {row["id"]: row["text"] for row in driver.read(EPISODE_TEXTS, ids=[n.id for n in passages], group=group)}
    return [Candidate(id=node.id, name=node.name, text=texts.get(node.id, ""), score=node.score) for node in passages]
