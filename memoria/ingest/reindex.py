"""Filling a group's embeddings from their texts, so vector search can find entities, communities, episodes and facts.

Every batch is read, embedded and written on its own: an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memoria.accounts.roles import check_group_name
from memoria.embeddings import Embedder, embedder
from memoria.graph import driver, kinds

DEFAULT_BATCH_SIZE = 256

# Pages are read in id order after a cursor, so rows embedded meanwhile never shift the next page.
NAMED_NODES_PAGE = """
MATCH (n:Memory {group_id: $group})
WHERE $kind IN labels(n) AND n.id > $after AND (NOT $only_missing OR n.name_embedding IS NULL)
RETURN n.id AS id, n.name AS name
ORDER BY n.id
LIMIT $limit
"""
EPISODES_PAGE = """
MATCH (n:Memory {group_id: $group})
WHERE $kind IN labels(n) AND n.id > $after AND (NOT $only_missing OR n.embedding IS NULL)
RETURN n.id AS id, n.name AS name, n.content AS content
ORDER BY n.id
LIMIT $limit
"""
FACTS_PAGE = """
MATCH (a:Memory {group_id: $group})-[r:RELATES]->(b:Memory)
WHERE r.group_id = $group AND r.id > $after AND (NOT $only_missing OR r.fact_embedding IS NULL)
RETURN r.id AS id, a.id AS source, b.id AS target, r.fact AS fact,
       a.name AS source_name, r.relation AS relation, b.name AS target_name
ORDER BY r.id
LIMIT $limit
"""
SET_NAME_EMBEDDINGS = """
UNWIND $rows AS row
MATCH (n:Memory {id: row.id})
SET n.name_embedding = row.vector
"""
SET_EPISODE_EMBEDDINGS = """
UNWIND $rows AS row
MATCH (n:Memory {id: row.id})
SET n.embedding = row.vector
"""
SET_FACT_EMBEDDINGS = """
UNWIND $rows AS row
MATCH (a:Memory {id: row.source})-[r:RELATES]->(b:Memory {id: row.target})
WHERE r.id = row.id
SET r.fact_embedding = row.vector
"""
BACKLOG_NODES = """
MATCH (n:Memory {group_id: $group})
RETURN
  sum(CASE WHEN $entity IN labels(n) AND (NOT $only_missing OR n.name_embedding IS NULL) THEN 1 ELSE 0 END) AS entities,
  sum(CASE WHEN $community IN labels(n) AND (NOT $only_missing OR n.name_embedding IS NULL) THEN 1 ELSE 0 END)
    AS communities,
  sum(CASE WHEN $episode IN labels(n) AND (NOT $only_missing OR n.embedding IS NULL) THEN 1 ELSE 0 END) AS episodes
"""
BACKLOG_FACTS = """
MATCH (a:Memory {group_id: $group})-[r:RELATES]->()
WHERE r.group_id = $group AND (NOT $only_missing OR r.fact_embedding IS NULL)
RETURN count(r) AS facts
"""


@dataclass(frozen=True)
class ReindexReport:
    group: str
    entities: int
    communities: int
    episodes: int
    facts: int
    seconds: float
    load_seconds: float  # spent loading the model, when this run was the first to need it

    @property
    def texts(self) -> int:
        return self.entities + self.communities + self.episodes + self.facts

    @property
    def texts_per_second(self) -> float:
        working = self.seconds - self.load_seconds
        return self.texts / working if working > 0 else 0.0


@dataclass(frozen=True)
class _Target:
    """One kind of embedded item: how its pages are read, which text stands for it, and where the vector goes."""

    page: str
    store: str
    text: Callable[[dict[str, Any]], str]
    keys: tuple[str, ...] = ("id",)
    parameters: dict[str, Any] = field(default_factory=dict)


def _fact_text(row: dict[str, Any]) -> str:
    # An edge without a written fact still says something: "source relation target", relation words spaced out.
    if row["fact"]:
        return row["fact"]
    relation = (row["relation"] or "").replace("_", " ")
    return f"{row['source_name'] or ''} {relation} {row['target_name'] or ''}".strip()


def _name_text(row: dict[str, Any]) -> str:
    return row["name"] or ""


def _episode_text(row: dict[str, Any]) -> str:
    return row["content"] or row["name"] or ""


# Graphiti embeds an entity's (and a community's) name, an episode's content and an edge's fact.
_TARGETS: dict[str, _Target] = {
    "entities": _Target(NAMED_NODES_PAGE, SET_NAME_EMBEDDINGS, _name_text, parameters={"kind": kinds.ENTITY}),
    "communities": _Target(NAMED_NODES_PAGE, SET_NAME_EMBEDDINGS, _name_text, parameters={"kind": kinds.COMMUNITY}),
    "episodes": _Target(EPISODES_PAGE, SET_EPISODE_EMBEDDINGS, _episode_text, parameters={"kind": kinds.EPISODE}),
    "facts": _Target(FACTS_PAGE, SET_FACT_EMBEDDINGS, _fact_text, keys=("id", "source", "target")),
}


def reindex_backlog(*, group: str, only_missing: bool = True) -> int:
    """How many texts `group_reindex` would embed now (for progress bars)."""
    check_group_name(group)
    labels = {"entity": kinds.ENTITY, "community": kinds.COMMUNITY, "episode": kinds.EPISODE}
    nodes = driver.read(BACKLOG_NODES, group=group, only_missing=only_missing, **labels)[0]
    facts = driver.read(BACKLOG_FACTS, group=group, only_missing=only_missing)[0]["facts"]
    return sum(nodes[name] or 0 for name in ("entities", "communities", "episodes")) + (facts or 0)


def group_reindex(
    *,
    group: str,
    only_missing: bool = True,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Callable[[int], None] | None = None,
) -> ReindexReport:
    """Embed the group's texts that lack a vector (every text with only_missing=False); progress gets batch sizes."""
    check_group_name(group)
    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size} must be at least 1")
    started = time.perf_counter()
    load_seconds = 0.0
    model: Embedder | None = None
    counts: dict[str, int] = {}
    for name, target in _TARGETS.items():
        counts[name] = 0
        after = ""
        while True:
            rows = driver.read(
                target.page, group=group, after=after, only_missing=only_missing, limit=batch_size, **target.parameters
            )
            if not rows:
                break
            if model is None:  # loaded only when there is something to embed: a run with nothing to do stays quick
                loading = time.perf_counter()
                model = embedder()
                load_seconds = time.perf_counter() - loading
            vectors = model.embed([target.text(row) for row in rows])
            updates = [
                {**{key: row[key] for key in target.keys}, "vector": vector}
                for row, vector in zip(rows, vectors, strict=True)
            ]
            driver.write(target.store, rows=updates)
            counts[name] += len(rows)
            after = rows[-1]["id"]
            if progress:
                progress(len(rows))
            if len(rows) < batch_size:
                break
    return ReindexReport(group=group, seconds=time.perf_counter() - started, load_seconds=load_seconds, **counts)
