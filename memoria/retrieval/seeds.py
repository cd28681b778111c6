"""Seed nodes for a query: entity name vectors and BM25 over names, fused into a score R in (0, 1].

R = ½·max(cosine, 0) + ½·BM25/max(BM25), the best five kept. This is the
stand-in until hybrid search (issue 4) provides the seeds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoria.embeddings import embedder
from memoria.graph import driver, kinds
from memoria.graph.dialect import IndexSpec, graph_dialect

SEARCH_DEPTH = 50  # candidates read from each index before fusing; the vector index is approximate
VECTOR_SEEDS = """
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
WITH node, score WHERE node.group_id = $group
RETURN node.id AS id, node.name AS name, score
"""
TEXT_SEEDS = """
CALL db.index.fulltext.queryNodes($index, $text) YIELD node, score
WITH node, score WHERE node.group_id = $group
RETURN node.id AS id, node.name AS name, score
LIMIT $k
"""
LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class ScoredSeed:
    id: str
    name: str
    score: float
    vector_score: float
    text_score: float


def lucene_query(text: str) -> str:
    """An OR of the query's words, escaped, so user text can never be Lucene syntax."""
    words = [LUCENE_SPECIAL.sub(r"\\\1", word) for word in WORD.findall(text)[:32]]
    return " OR ".join(words)


def seeds_for_query(*, group: str, text: str, limit: int = 5) -> list[ScoredSeed]:
    dialect = graph_dialect()
    vector_rows = driver.read(
        VECTOR_SEEDS,
        index=dialect.vector_index_name(IndexSpec(kinds.ENTITY, "name_embedding")),
        k=SEARCH_DEPTH,
        vector=embedder().embed_one(text),
        group=group,
    )
    query = lucene_query(text)
    text_rows = (
        driver.read(
            TEXT_SEEDS,
            index=dialect.fulltext_index_name(IndexSpec(kinds.ENTITY, "name")),
            text=query,
            group=group,
            k=SEARCH_DEPTH,
        )
        if query
        else []
    )
    # Vector indexes report (1 + cos) / 2; take the cosine back so unrelated names score near 0.
    cosine = {row["id"]: max(2.0 * row["score"] - 1.0, 0.0) for row in vector_rows}
    best_text = max((row["score"] for row in text_rows), default=0.0)
    text_scores = {row["id"]: row["score"] / best_text for row in text_rows} if best_text > 0 else {}
    names = {row["id"]: row["name"] for row in (*vector_rows, *text_rows)}
    fused = [
        ScoredSeed(
            node_id,
            names[node_id],
            0.5 * cosine.get(node_id, 0.0) + 0.5 * text_scores.get(node_id, 0.0),
            cosine.get(node_id, 0.0),
            text_scores.get(node_id, 0.0),
        )
        for node_id in names
    ]
    ranked = sorted((seed for seed in fused if seed.score > 0), key=lambda seed: (-seed.score, seed.id))
    return ranked[:limit]
