"""Search's `ppr` method: episodes found through the graph by Personalized PageRank from the entities the query
names (HippoRAG), registered as the method's runner when the app starts (`search_walk_register`).

The seeds are the query's linked entities (memoria.linking.lexicon: names and aliases, IDF-weighted, no model),
the walk is the group's projection as `ppr_run` walks it (facts both ways, episodes through their mentions,
inferred synonymy edges like any fact), and the candidates are the episodes by PPR score. A query that names no
stored entity finds nothing here, so a search that fuses this method with cosine falls back to cosine alone.

`seed_share` is the gate: entities that more than that share of the group's episodes mention do not seed (a
conversation's speakers, named in half its turns). With no seed left nothing is walked, and the search ranks by its
text methods alone, at their cost.
"""

from __future__ import annotations

import logging

from memoria.errors import ProjectionLoading
from memoria.graph import driver, kinds
from memoria.graph.asof import valid_time
from memoria.ppr.request import PprRequest
from memoria.ppr.service import linked_walk
from memoria.search.config import SearchMethod
from memoria.search.methods import Candidate
from memoria.search.walks import WalkRequest, walk_register

logger = logging.getLogger(__name__)

# Matched as Memory, the label the (group_id, id) key is declared on: ArcadeDB does not use that key for a pattern
# labelled Episode and scans the group instead (113-126 ms against 2.7-3.4 ms for 20 MuSiQue passages).
EPISODE_TEXTS = f"""
UNWIND $ids AS episode_id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: episode_id}})
WHERE n:{kinds.EPISODE}
RETURN n.id AS id, coalesce(n.content, '') AS text
"""


def ppr_episodes(walk: WalkRequest) -> list[Candidate]:
    """Up to `walk.limit` episodes with a PPR score above zero, best first; none when the query links no entity (a
    walk from everywhere ranks by centrality, not the query), or none that at most `walk.seed_share` of the
    episodes mention.

    One projection serves the linking and the walk, so the group's version is read once. `walk.known_texts` gives
    the texts the search holds already (its views); the rest are read from the server. `walk.version` is the
    group's version as the search read it for this request, else it is read here.
    """
    group = walk.group
    request = PprRequest(
        group=group,
        query=walk.query,
        linked=True,
        linked_max_share=walk.seed_share,
        damping=walk.damping,
        top_k=walk.limit,
        moment=valid_time(walk.valid_at) if walk.valid_at else None,
    )
    try:
        answer = linked_walk(request, version=walk.version)
    except ProjectionLoading as error:
        # The walk never holds a search up past the projection wait: the text methods answer meanwhile (a 503 for
        # the default episodes recipe would refuse what the text ranking can give), and the load goes on.
        logger.info("search of %r ranks episodes without the walk: %s", group, error)
        return []
    if answer is None:
        return []  # the gate is shut (or the query names no entity): no walk at all
    passages = [node for node in answer.passages if node.score > 0]
    ids = [node.id for node in passages]
    texts = walk.known_texts(ids)
    unknown = [item for item in ids if item not in texts]
    if unknown:
        texts.update((row["id"], row["text"]) for row in driver.read(EPISODE_TEXTS, ids=unknown, group=group))
    return [Candidate(id=node.id, name=node.name, text=texts.get(node.id, ""), score=node.score) for node in passages]


def search_walk_register() -> None:
    """Make PPR the runner of search's `ppr` method (memoria/apps.py calls this once, when the app starts)."""
    walk_register(SearchMethod.PPR, ppr_episodes)
