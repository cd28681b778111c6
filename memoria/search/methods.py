"""The search methods, one function per method and scope: BM25 through full-text indexes, cosine through vector
indexes (re-scored exactly) or an exact scan of the groups' own vectors, and breadth-first search over the graph;
each returns candidates best first.

Every query keeps to the caller's groups, so a search never sees another group's memories.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memoria.embeddings import configured_model_id
from memoria.graph import driver, kinds
from memoria.graph.asof import EVERY_FACT, AsOf, moment_cypher, valid_time
from memoria.graph.dialect import IndexSpec, graph_dialect
from memoria.graph.schema import vector_model_of, vector_model_parameters
from memoria.search.config import Scope

# ArcadeDB's approximate vector index was measured at recall 0.6 for k=10: ask it for several times more, then
# compute the exact cosine of every candidate against its stored vector.
VECTOR_OVERFETCH = 4
VECTOR_MIN_CANDIDATES = 50
# When a page holds fewer than the wanted hits of the caller's groups (other groups took its places) and the index
# has more, the next page is this many times the wanted count deeper; a vector index gets one deeper page.
FULLTEXT_PAGES = (2, 16, 128)
VECTOR_RETRY_FACTOR = 8
MAX_QUERY_WORDS = 32
# A hub must not make one BFS level ship the whole group: rows beyond this are not read.
MAX_LEVEL_ROWS = 5000

# Lucene's English stop words plus question words: they match nearly every text, so a query holding them makes
# the server score most of the index (measured: 33 ms instead of 5 ms at 10k facts) for no ranking gain.
STOP_WORD_TEXT = (
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they "
    "this to was will with what which who whom whose when where why how do does did done about has have had were "
    "been being i me my we our you your he him his she her its them can could would should shall may might"
)
STOP_WORDS = frozenset(STOP_WORD_TEXT.split())
LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
WORD = re.compile(r"\w+")

# A fact holds at `valid_at` when it counts at that moment as the memory knows it now: the one definition of
# memoria/graph/asof.py, its parameters from `valid_time(valid_at)` (nulls, every fact, when no time is given).
FACT_HOLDS = moment_cypher("r")
FACT_COLUMNS = """r.id AS id, r.relation AS name, r.fact AS text, startNode(r).id AS source, endNode(r).id AS target,
r.valid_at AS valid_at, r.invalid_at AS invalid_at"""
KEEP_FACT = f"r.group_id IN $groups AND {FACT_HOLDS}"
FACT_FIELDS = """id: r.id, name: r.relation, text: r.fact, source: startNode(r).id, target: endNode(r).id,
valid_at: r.valid_at, invalid_at: r.invalid_at"""
NODE_FIELDS = "id: node.id, name: node.name, text: coalesce(node[$text_property], '')"

# Indexes span every group, so they are read a page at a time: every row of a page comes back (another group's
# as a null hit, so the caller sees whether the index ran out) and the next page is deeper. Pages keep the server
# from turning every match into a row: all matches of common words at 100k facts took 110 ms, a page 25 ms.
# Full-text procedures yield best first.
FACTS_BM25_PAGE = f"""
CALL db.index.fulltext.queryRelationships($index, $text, {{limit: $page}}) YIELD relationship AS r, score
RETURN CASE WHEN {KEEP_FACT} THEN {{{FACT_FIELDS}}} END AS hit, score
"""
# After the deepest page: every match, filtered on the server (a small group among many).
FACTS_BM25_ALL = f"""
CALL db.index.fulltext.queryRelationships($index, $text) YIELD relationship AS r, score
WITH r, score WHERE {KEEP_FACT}
WITH r, score LIMIT $limit
RETURN {{{FACT_FIELDS}}} AS hit, score
"""
# The vector procedure that yields relationships differs: ArcadeDB serves relationship indexes through queryNodes.
FACT_VECTOR_CALLS = {
    "neo4j": "CALL db.index.vector.queryRelationships($index, $page, $vector) YIELD relationship AS r",
    "arcadedb": "CALL db.index.vector.queryNodes($index, $page, $vector) YIELD node AS r",
}
FACTS_COSINE_PAGE = {
    dialect: f"""
{call}
RETURN CASE WHEN {KEEP_FACT} AND {vector_model_of("r")} = $model THEN {{{FACT_FIELDS}, vector: r.fact_embedding}} END
       AS hit
"""
    for dialect, call in FACT_VECTOR_CALLS.items()
}
NODES_BM25_PAGE = f"""
CALL db.index.fulltext.queryNodes($index, $text, {{limit: $page}}) YIELD node, score
RETURN CASE WHEN node.group_id IN $groups THEN {{{NODE_FIELDS}}} END AS hit, score
"""
NODES_BM25_ALL = f"""
CALL db.index.fulltext.queryNodes($index, $text) YIELD node, score
WITH node, score WHERE node.group_id IN $groups
WITH node, score LIMIT $limit
RETURN {{{NODE_FIELDS}}} AS hit, score
"""
NODES_COSINE_PAGE = f"""
CALL db.index.vector.queryNodes($index, $page, $vector) YIELD node
RETURN CASE WHEN node.group_id IN $groups AND {vector_model_of("node")} = $model
            THEN {{{NODE_FIELDS}, vector: node[$vector_property]}} END AS hit
"""
# Without server vector indexes (GraphDialect.serves_vector_indexes): the groups' own vectors, found through the
# group_id index and ranked by the server's cosine, so the cost is the groups' size whatever else the server holds.
# Neo4j's function answers (1 + cosine) / 2 and ArcadeDB's the cosine: the same order, re-scored exactly here.
FACTS_COSINE_SCAN = f"""
MATCH ()-[r:{kinds.RELATES}]->()
WHERE {KEEP_FACT} AND r.fact_embedding IS NOT NULL AND {vector_model_of("r")} = $model
WITH r ORDER BY vector.similarity.cosine(r.fact_embedding, $vector) DESC LIMIT $page
RETURN {{{FACT_FIELDS}, vector: r.fact_embedding}} AS hit
"""
NODES_COSINE_SCAN = """
MATCH (node:{label})
WHERE node.group_id IN $groups AND node[$vector_property] IS NOT NULL AND {model_of} = $model
WITH node ORDER BY vector.similarity.cosine(node[$vector_property], $vector) DESC LIMIT $page
RETURN {{{fields}, vector: node[$vector_property]}} AS hit
"""
# The facts of the entities whose names matched (a fact's searchable text names its ends), in the groups and
# holding at the moment, each with the id of the matched end; at most $max_rows, so a hub cannot ship the group.
FACTS_OF_ENDS = f"""
UNWIND $ends AS end
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: end.group, id: end.id}})-[r:{kinds.RELATES}]-(:{kinds.MEMORY_LABEL})
WITH n, r WHERE {KEEP_FACT}
WITH n, r LIMIT $max_rows
RETURN n.id AS end, {{{FACT_FIELDS}}} AS hit
"""
# One breadth-first level: every edge of the frontier that stays inside the groups, with what a hit needs. Facts
# that do not count at the walk's moment (memoria/graph/asof.py) are not walked; mentions always are.
BFS_LEVEL = f"""
UNWIND $frontier AS parent
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: parent}})-[r:{kinds.RELATES}|{kinds.MENTIONS}]-
      (b:{kinds.MEMORY_LABEL})
WHERE b.group_id = $group AND (r.group_id IS NULL OR r.group_id = $group)
  AND (type(r) <> $relates OR {moment_cypher("r")})
RETURN a.id AS parent, b.id AS node, $entity IN labels(b) AS is_entity, b.name AS node_name,
       coalesce(b.summary, '') AS node_text, type(r) = $relates AS is_fact, {FACT_COLUMNS}
LIMIT $max_rows
"""
# Node distance: one shortest-path search per node, bounded; RELATES edges never leave their group, so a center
# inside the group keeps every path inside it.
NODE_DISTANCE_MAX_HOPS = 4
SHORTEST_HOPS = f"""
MATCH (center:{kinds.MEMORY_LABEL} {{group_id: $group, id: $center}})
UNWIND $nodes AS node
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: node}})
MATCH p = shortestPath((center)-[:{kinds.RELATES}*..{NODE_DISTANCE_MAX_HOPS}]-(n))
RETURN node, length(p) AS hops
"""
FACT_VECTORS = f"""
UNWIND $facts AS fact
MATCH (:{kinds.MEMORY_LABEL} {{group_id: $group, id: fact.source}})-[r:{kinds.RELATES}]->()
WHERE r.id = fact.id
RETURN r.id AS id, CASE WHEN {vector_model_of("r")} = $model THEN r.fact_embedding END AS vector
"""
NODE_VECTORS = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})
RETURN n.id AS id, CASE WHEN {vector_model_of("n")} = $model THEN n[$vector_property] END AS vector
"""
ENTITY_MENTIONS = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})
RETURN n.id AS id, COUNT {{ (:{kinds.EPISODE})-[:{kinds.MENTIONS}]->(n) }} AS mentions
"""


@dataclass(frozen=True)
class Candidate:
    """One item a method found; `score` is that method's own (BM25, cosine, or 1/hops)."""

    id: str
    name: str
    text: str
    score: float
    source: str | None = None
    target: str | None = None
    valid_at: str | None = None
    invalid_at: str | None = None
    vector: list[float] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class _NodeScope:
    """Where a node scope's texts and vectors live."""

    label: str
    text_properties: tuple[str, ...]
    vector_property: str

    @property
    def cosine_scan(self) -> str:
        # The label is one of the constant scopes below, never user text.
        return NODES_COSINE_SCAN.format(label=self.label, model_of=vector_model_of("node"), fields=NODE_FIELDS)


ENTITY_SCOPE = _NodeScope(kinds.ENTITY, ("name", "summary"), "name_embedding")
# Each scope's text properties are the parts of its items' searchable text (memoria.graph.searchable); the last
# is the text a hit shows.
EPISODE_SCOPE = _NodeScope(kinds.EPISODE, ("name", "content"), "embedding")
COMMUNITY_SCOPE = _NodeScope(kinds.COMMUNITY, ("name", "summary"), "name_embedding")
NODE_SCOPES = {Scope.ENTITIES: ENTITY_SCOPE, Scope.EPISODES: EPISODE_SCOPE, Scope.COMMUNITIES: COMMUNITY_SCOPE}


def _read(query: str, **parameters: Any) -> list[dict[str, Any]]:
    """Like driver.read, but rows are taken as they come: Record.data() walks every float of every vector
    (measured: 80 fact vectors took 45 ms that way instead of 5 ms).
    """
    return [dict(record.items()) for record in driver.read_records(query, **parameters)]


def lucene_query(text: str) -> str:
    """An OR of the query's words, escaped and lower-cased (Lucene's AND, OR and NOT are upper-case), so user text
    can never be Lucene syntax; stop words are left out unless the query has nothing else.
    """
    words = [word.lower() for word in WORD.findall(text)]
    telling = [word for word in words if word not in STOP_WORDS] or words
    return " OR ".join(LUCENE_SPECIAL.sub(r"\\\1", word) for word in telling[:MAX_QUERY_WORDS])


def vector_candidates(limit: int) -> int:
    return max(VECTOR_OVERFETCH * limit, VECTOR_MIN_CANDIDATES)


def cosine_similarities(query: Sequence[float], vectors: Sequence[Sequence[float]]) -> list[float]:
    """Exact cosines (stored vectors are normalised, but a vector written by other code may not be)."""
    if not vectors:
        return []
    matrix = np.asarray(vectors, dtype=np.float64)
    target = np.asarray(query, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(target)
    return (matrix @ target / np.where(norms == 0, 1.0, norms)).tolist()


def _fact(row: dict, score: float) -> Candidate:
    return Candidate(
        id=row["id"],
        name=row["name"] or "",
        text=row["text"] or "",
        score=score,
        source=row["source"],
        target=row["target"],
        valid_at=row["valid_at"],
        invalid_at=row["invalid_at"],
        vector=row.get("vector"),
    )


def exact_ranking(rows: list[dict], vector: Sequence[float], limit: int, min_similarity: float) -> list[tuple]:
    """(cosine, row) of the rows with a vector, best first then by id, above `min_similarity`, at most `limit`."""
    rows = [row for row in rows if row["vector"]]
    scored = zip(cosine_similarities(vector, [row["vector"] for row in rows]), rows, strict=True)
    kept = sorted(((s, row) for s, row in scored if s > min_similarity), key=lambda pair: (-pair[0], pair[1]["id"]))
    return kept[:limit]


def _fulltext_hits(page_query: str, all_query: str, *, limit: int, **parameters: Any) -> list[dict[str, Any]]:
    """The groups' best `limit` matches, best first: deeper pages while other groups crowd them out, then every
    match filtered on the server.
    """
    for factor in FULLTEXT_PAGES:
        rows = _read(page_query, page=factor * limit, **parameters)
        hits = [{**row["hit"], "score": row["score"]} for row in rows if row["hit"]]
        if len(hits) >= limit or len(rows) < factor * limit:  # enough, or the index has no more
            return hits[:limit]
    return [{**row["hit"], "score": row["score"]} for row in _read(all_query, limit=limit, **parameters)]


def _vector_hits(page_query: str, *, limit: int, **parameters: Any) -> list[dict[str, Any]]:
    """The groups' candidates from the approximate index, with one deeper page when other groups crowd them out."""
    page = vector_candidates(limit)
    for depth in (page, page * VECTOR_RETRY_FACTOR):
        rows = _read(page_query, page=depth, **parameters, **vector_model_parameters(configured_model_id()))
        hits = [row["hit"] for row in rows if row["hit"]]
        if len(hits) >= limit or len(rows) < depth:
            break
    return hits


def facts_bm25(*, text: str, groups: Sequence[str], limit: int, valid_at: str | None = None) -> list[Candidate]:
    """BM25 over the fact sentence, plus the name BM25 of each end whose name matched (the parts of a fact's
    searchable text that the server indexes; its relation words are only in the views' index)."""
    query = lucene_query(text)
    if not query:
        return []
    dialect = graph_dialect()
    index = dialect.fulltext_index_name(IndexSpec(kinds.RELATES, "fact", relationship=True))
    moment = valid_time(valid_at).nullable_parameters()
    hits = _fulltext_hits(
        FACTS_BM25_PAGE,
        FACTS_BM25_ALL,
        limit=limit,
        index=index,
        text=query,
        groups=list(groups),
        **moment,
    )
    found = {hit["id"]: _fact(hit, hit["score"]) for hit in hits}
    ends = _fulltext_hits(
        NODES_BM25_PAGE,
        NODES_BM25_ALL,
        limit=limit,
        index=dialect.fulltext_index_name(IndexSpec(kinds.ENTITY, "name")),
        text=query,
        groups=list(groups),
        text_property="name",
    )
    if ends:
        end_scores = {hit["id"]: hit["score"] for hit in ends}
        rows = _read(
            FACTS_OF_ENDS,
            ends=[{"id": hit["id"], "group": group} for hit in ends for group in groups],
            groups=list(groups),
            max_rows=MAX_LEVEL_ROWS,
            **moment,
        )
        for row in rows:
            hit, bonus = row["hit"], end_scores[row["end"]]
            seen = found.get(hit["id"])
            found[hit["id"]] = _fact(hit, bonus + (seen.score if seen else 0.0))
    return sorted(found.values(), key=lambda c: (-c.score, c.id))[:limit]


def _nearest_hits(
    spec: IndexSpec, *, page_query: str, scan_query: str, limit: int, **parameters: Any
) -> list[dict[str, Any]]:
    """The groups' candidates by vector: from the server's index where it keeps one, else by an exact scan of the
    groups' own vectors (no index, so no page to deepen)."""
    dialect = graph_dialect()
    if dialect.serves_vector_indexes():
        return _vector_hits(page_query, limit=limit, index=dialect.vector_index_name(spec), **parameters)
    model = vector_model_parameters(configured_model_id())
    return [row["hit"] for row in _read(scan_query, page=vector_candidates(limit), **parameters, **model)]


def facts_cosine(
    *,
    vector: Sequence[float],
    groups: Sequence[str],
    limit: int,
    valid_at: str | None = None,
    min_similarity: float = -1.0,
) -> list[Candidate]:
    rows = _nearest_hits(
        IndexSpec(kinds.RELATES, "fact_embedding", relationship=True),
        page_query=FACTS_COSINE_PAGE[graph_dialect().name],
        scan_query=FACTS_COSINE_SCAN,
        limit=limit,
        vector=list(vector),
        groups=list(groups),
        **valid_time(valid_at).nullable_parameters(),
    )
    return [_fact(row, similarity) for similarity, row in exact_ranking(rows, vector, limit, min_similarity)]


def _nodes_bm25(scope: _NodeScope, *, text: str, groups: Sequence[str], limit: int) -> list[Candidate]:
    """BM25 over each of the scope's text fields, summed per node as a multi-field Lucene query would."""
    query = lucene_query(text)
    if not query:
        return []
    dialect = graph_dialect()
    found: dict[str, Candidate] = {}
    for prop in scope.text_properties:
        hits = _fulltext_hits(
            NODES_BM25_PAGE,
            NODES_BM25_ALL,
            limit=limit,
            index=dialect.fulltext_index_name(IndexSpec(scope.label, prop)),
            text=query,
            groups=list(groups),
            text_property=scope.text_properties[-1],
        )
        for hit in hits:
            seen = found.get(hit["id"])
            score = hit["score"] + (seen.score if seen else 0.0)
            found[hit["id"]] = Candidate(hit["id"], hit["name"] or "", hit["text"], score)
    return sorted(found.values(), key=lambda c: (-c.score, c.id))[:limit]


def _nodes_cosine(
    scope: _NodeScope, *, vector: Sequence[float], groups: Sequence[str], limit: int, min_similarity: float
) -> list[Candidate]:
    rows = _nearest_hits(
        IndexSpec(scope.label, scope.vector_property),
        page_query=NODES_COSINE_PAGE,
        scan_query=scope.cosine_scan,
        limit=limit,
        vector=list(vector),
        groups=list(groups),
        text_property=scope.text_properties[-1],
        vector_property=scope.vector_property,
    )
    return [
        Candidate(row["id"], row["name"] or "", row["text"], similarity, vector=row["vector"])
        for similarity, row in exact_ranking(rows, vector, limit, min_similarity)
    ]


def entities_bm25(*, text: str, groups: Sequence[str], limit: int) -> list[Candidate]:
    return _nodes_bm25(ENTITY_SCOPE, text=text, groups=groups, limit=limit)


def entities_cosine(
    *, vector: Sequence[float], groups: Sequence[str], limit: int, min_similarity: float = -1.0
) -> list[Candidate]:
    return _nodes_cosine(ENTITY_SCOPE, vector=vector, groups=groups, limit=limit, min_similarity=min_similarity)


def episodes_bm25(*, text: str, groups: Sequence[str], limit: int) -> list[Candidate]:
    return _nodes_bm25(EPISODE_SCOPE, text=text, groups=groups, limit=limit)


def episodes_cosine(
    *, vector: Sequence[float], groups: Sequence[str], limit: int, min_similarity: float = -1.0
) -> list[Candidate]:
    return _nodes_cosine(EPISODE_SCOPE, vector=vector, groups=groups, limit=limit, min_similarity=min_similarity)


def communities_bm25(*, text: str, groups: Sequence[str], limit: int) -> list[Candidate]:
    return _nodes_bm25(COMMUNITY_SCOPE, text=text, groups=groups, limit=limit)


def communities_cosine(
    *, vector: Sequence[float], groups: Sequence[str], limit: int, min_similarity: float = -1.0
) -> list[Candidate]:
    return _nodes_cosine(COMMUNITY_SCOPE, vector=vector, groups=groups, limit=limit, min_similarity=min_similarity)


@dataclass
class Neighbourhood:
    """What a breadth-first walk reached: each node's and each fact's hop distance from the nearest origin."""

    node_hops: dict[str, int] = field(default_factory=dict)
    fact_hops: dict[str, int] = field(default_factory=dict)
    entities: dict[str, Candidate] = field(default_factory=dict)
    facts: dict[str, Candidate] = field(default_factory=dict)


def neighbourhood(
    *,
    origins: Iterable[str],
    group: str,
    depth: int,
    moment: AsOf = EVERY_FACT,
) -> Neighbourhood:
    """Walk level by level over RELATES and MENTIONS (one round trip each), so distances are true hop counts.

    A fact is at hop h when it leaves a node at hop h-1; only facts that count at `moment` are walked.
    """
    found = Neighbourhood()
    frontier = list(dict.fromkeys(origins))
    found.node_hops.update(dict.fromkeys(frontier, 0))
    for hop in range(1, depth + 1):
        if not frontier:
            break
        rows = _read(
            BFS_LEVEL,
            frontier=frontier,
            group=group,
            entity=kinds.ENTITY,
            relates=kinds.RELATES,
            max_rows=MAX_LEVEL_ROWS,
            **moment.nullable_parameters(),
        )
        frontier = []
        for row in rows:
            node = row["node"]
            if node not in found.node_hops:
                found.node_hops[node] = hop
                frontier.append(node)
                if row["is_entity"]:
                    found.entities[node] = Candidate(node, row["node_name"] or "", row["node_text"], 1.0 / hop)
            if row["is_fact"] and row["id"] not in found.fact_hops:
                found.fact_hops[row["id"]] = hop
                found.facts[row["id"]] = _fact(row, 1.0 / hop)
    return found


def _by_hops(items: dict[str, Candidate], hops: dict[str, int], limit: int) -> list[Candidate]:
    return sorted(items.values(), key=lambda c: (hops[c.id], c.id))[:limit]


def facts_bfs(
    *, origin_ids: Sequence[str], group: str, depth: int, limit: int, moment: AsOf = EVERY_FACT
) -> list[Candidate]:
    """Facts on walks of up to `depth` hops over RELATES and MENTIONS from the origins, nearest first."""
    walk = neighbourhood(origins=origin_ids, group=group, depth=depth, moment=moment)
    return _by_hops(walk.facts, walk.fact_hops, limit)


def entities_bfs(
    *, origin_ids: Sequence[str], group: str, depth: int, limit: int, moment: AsOf = EVERY_FACT
) -> list[Candidate]:
    """Entities within `depth` hops over RELATES and MENTIONS of the origins (the origins excluded), nearest first."""
    walk = neighbourhood(origins=origin_ids, group=group, depth=depth, moment=moment)
    return _by_hops(walk.entities, walk.node_hops, limit)


def node_hops(*, center: str, nodes: Sequence[str], group: str) -> dict[str, int]:
    """Hop distance over RELATES from the center to each node it reaches within NODE_DISTANCE_MAX_HOPS."""
    others = [node for node in dict.fromkeys(nodes) if node != center]
    rows = _read(SHORTEST_HOPS, center=center, nodes=others, group=group) if others else []
    hops = {row["node"]: row["hops"] for row in rows}
    if center in nodes:
        hops[center] = 0
    return hops


def fact_vectors(*, group: str, facts: Sequence[Candidate]) -> dict[str, list[float]]:
    """Stored fact embeddings, read through the facts' source nodes so the id index is used."""
    rows = _read(
        FACT_VECTORS,
        facts=[{"id": fact.id, "source": fact.source} for fact in facts],
        group=group,
        **vector_model_parameters(configured_model_id()),
    )
    return {row["id"]: row["vector"] for row in rows if row["vector"]}


def node_vectors(*, group: str, ids: Sequence[str], vector_property: str) -> dict[str, list[float]]:
    rows = _read(
        NODE_VECTORS,
        ids=list(ids),
        vector_property=vector_property,
        group=group,
        **vector_model_parameters(configured_model_id()),
    )
    return {row["id"]: row["vector"] for row in rows if row["vector"]}


def entity_mentions(*, group: str, ids: Sequence[str]) -> dict[str, int]:
    """How many episodes mention each entity."""
    return {row["id"]: row["mentions"] for row in _read(ENTITY_MENTIONS, ids=list(dict.fromkeys(ids)), group=group)}


# Facts' text methods also take `valid_at`; the other scopes have no validity.
BM25_BY_SCOPE = {
    Scope.FACTS: facts_bm25,
    Scope.ENTITIES: entities_bm25,
    Scope.EPISODES: episodes_bm25,
    Scope.COMMUNITIES: communities_bm25,
}
COSINE_BY_SCOPE = {
    Scope.FACTS: facts_cosine,
    Scope.ENTITIES: entities_cosine,
    Scope.EPISODES: episodes_cosine,
    Scope.COMMUNITIES: communities_cosine,
}
