"""Filling embeddings from texts, so vector search finds every entity, community, episode and fact, however it
arrived: the episode pipeline, a structured import, a curation edit.

The contract every writer keeps (docs/search.md, "Reindexing"):

1. Each vector is computed from the item's searchable text (memoria.graph.searchable: `NODE_TEXT`, `FACT_TEXT`
   and their Python twins): an entity's or a community's name and summary (`name_embedding`), an episode's name
   and content (`embedding`), a fact's "source-name relation target-name" and its fact (`fact_embedding`).
   Each vector records its model and the version of that definition; vectors of an older version are replaced
   like vectors of another model.
2. A write that changes such a text removes that item's vector in the same transaction (compare `NODE_TEXT` or
   `FACT_TEXT` before and after the write, then `REMOVE n.name_embedding, n.embedding` or
   `REMOVE r.fact_embedding`); renaming a node changes the text of every fact it is an end of. A write that
   changes no text keeps the vectors, so it costs no embedding.
3. After the transaction commits, `group_reindex(group=G, ids=[...])` embeds the written items that lack a vector
   (`reindex_after_write` does the same and reports a failure instead of raising it, since the write stands).
   `manage.py reindex --group G` fills whatever is still missing in a whole group.

A vector is stored only if its item still has the text it was computed from, so a write that lands while a batch
is being embedded is never paired with the older text's vector. Full-text indexes need nothing of this: the
server updates them in the writing transaction. Rows are read in pages, embedded a window at a time (each distinct
text once in a run: items that read alike share a vector) and written in batches, each batch in its own
transaction, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import neo4j
import numpy as np

from memoria.accounts.roles import check_group_name
from memoria.embeddings import TextEmbedder, configured_model_id, embedder
from memoria.errors import EmbeddingModelError, GraphUnavailable
from memoria.graph import driver, kinds
from memoria.graph.schema import (
    VECTOR_MODEL,
    VECTOR_TEXT,
    vector_model_of,
    vector_model_parameters,
    vector_text_of,
)
from memoria.graph.searchable import FACT_TEXT, NODE_TEXT
from memoria.graph.versions import group_vectors_stamp

DEFAULT_BATCH_SIZE = 256  # rows per read and per vector write
# Rows whose texts go to the model together, each distinct text once: items of one import that read alike share a
# vector. A window's vectors are held as Python floats until written (about 12 KiB a 384-dimensional vector).
EMBED_WINDOW = 2048
REMEMBERED_TEXTS = 50_000
# Ids per backlog query: ArcadeDB checks `IN $list` against every index hit, so long lists cost more than their
# share (13k ids at 10k facts: 0.7 s in lists of 256, 4.8 s in lists of 5,000).
BACKLOG_ID_CHUNK = 256
T = TypeVar("T")

__all__ = ["CLEAR_FACT_VECTOR", "CLEAR_NODE_VECTOR", "FACT_TEXT", "NODE_TEXT"]  # what writers import from here
# What a writer runs on a node (`n`) or fact (`r`) whose text it changed; a node has at most one of the two.
CLEAR_NODE_VECTOR = "REMOVE n.name_embedding, n.embedding"
CLEAR_FACT_VECTOR = "REMOVE r.fact_embedding"

# The model and text version of a stored vector: only_missing also picks vectors of another model than the
# configured one, and vectors of an older searchable-text definition.
NODE_STALE = f"({vector_model_of('n')} <> $model OR {vector_text_of('n')} <> $text_version)"
FACT_STALE = f"({vector_model_of('r')} <> $model OR {vector_text_of('r')} <> $text_version)"
NODE_WANTED = f"(NOT $only_missing OR n[$vector] IS NULL OR {NODE_STALE})"
FACT_WANTED = f"(NOT $only_missing OR r.fact_embedding IS NULL OR {FACT_STALE})"

# A whole group is read in id order after a cursor, so rows embedded meanwhile never shift the next page.
GROUP_NODES_PAGE = f"""
MATCH (n:Memory {{group_id: $group}})
WHERE $label IN labels(n) AND n.id > $after AND {NODE_WANTED}
RETURN n.id AS id, {NODE_TEXT} AS text
ORDER BY n.id
LIMIT $limit
"""
GROUP_FACTS_PAGE = f"""
MATCH (a:Memory {{group_id: $group}})-[r:RELATES]->(b:Memory)
WHERE r.group_id = $group AND r.id > $after AND {FACT_WANTED}
RETURN r.id AS id, a.id AS source, b.id AS target, {FACT_TEXT} AS text
ORDER BY r.id
LIMIT $limit
"""
# Given ids are looked up through the id indexes: the cost follows the ids, not the group's size. ArcadeDB uses
# the RELATES id index only for `r.id IN $list` standing alone in the MATCH's WHERE: an UNWIND variable there, or
# one more condition beside it, made it scan every relationship (60 ms per id at 10k facts instead of 3 ms for 16).
IDS_NODES_PAGE = f"""
UNWIND $ids AS id
MATCH (n:Memory {{group_id: $group, id: id}})
WHERE $label IN labels(n) AND {NODE_WANTED}
RETURN n.id AS id, {NODE_TEXT} AS text
"""
IDS_FACTS_PAGE = f"""
MATCH (a)-[r:RELATES]->(b)
WHERE r.id IN $ids
WITH a, r, b WHERE r.group_id = $group AND {FACT_WANTED}
RETURN r.id AS id, a.id AS source, b.id AS target, {FACT_TEXT} AS text
"""
# Stored only where the text is still the embedded one (a concurrent write may have changed it and removed the
# vector); the count says how many were. The text is compared after a WITH: ArcadeDB dropped every row when the
# CASE expression stood in the MATCH's own WHERE.


def _set_node_embeddings(vector: str) -> str:
    """The store of one node vector property (ours, never a user's: name_embedding or embedding)."""
    return f"""
UNWIND $rows AS row
MATCH (n:Memory {{group_id: $group, id: row.id}})
WITH n, row, {NODE_TEXT} AS text
WHERE text = row.text
SET n.{vector} = row.vector, n.{VECTOR_MODEL} = $model, n.{VECTOR_TEXT} = $text_version
RETURN count(n) AS stored
"""


SET_NAME_EMBEDDINGS = _set_node_embeddings("name_embedding")
SET_EPISODE_EMBEDDINGS = _set_node_embeddings("embedding")
SET_FACT_EMBEDDINGS = f"""
UNWIND $rows AS row
MATCH (a:Memory {{group_id: $group, id: row.source}})-[r:RELATES]->(b:Memory {{group_id: $group, id: row.target}})
WHERE r.id = row.id
WITH a, r, b, row, {FACT_TEXT} AS text
WHERE text = row.text
SET r.fact_embedding = row.vector, r.{VECTOR_MODEL} = $model, r.{VECTOR_TEXT} = $text_version
RETURN count(r) AS stored
"""
_NODE_BACKLOG = f"""
RETURN
  sum(CASE WHEN $entity IN labels(n) AND (NOT $only_missing OR n.name_embedding IS NULL OR {NODE_STALE})
      THEN 1 ELSE 0 END) AS entities,
  sum(CASE WHEN $community IN labels(n) AND (NOT $only_missing OR n.name_embedding IS NULL OR {NODE_STALE})
      THEN 1 ELSE 0 END) AS communities,
  sum(CASE WHEN $episode IN labels(n) AND (NOT $only_missing OR n.embedding IS NULL OR {NODE_STALE})
      THEN 1 ELSE 0 END) AS episodes
"""
GROUP_NODES_BACKLOG = "MATCH (n:Memory {group_id: $group})" + _NODE_BACKLOG
IDS_NODES_BACKLOG = "UNWIND $ids AS id MATCH (n:Memory {group_id: $group, id: id}) WITH n" + _NODE_BACKLOG
GROUP_FACTS_BACKLOG = f"""
MATCH (:Memory {{group_id: $group}})-[r:RELATES]->()
WHERE r.group_id = $group AND {FACT_WANTED}
RETURN count(r) AS facts
"""
IDS_FACTS_BACKLOG = f"""
MATCH ()-[r:RELATES]->()
WHERE r.id IN $ids
WITH r WHERE r.group_id = $group AND {FACT_WANTED}
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
    embed_seconds: float = 0.0  # spent in the model
    store_seconds: float = 0.0  # spent writing the vectors (the rest of `seconds` went to reading the texts)

    @property
    def texts(self) -> int:
        return self.entities + self.communities + self.episodes + self.facts

    @property
    def texts_per_second(self) -> float:
        working = self.seconds - self.load_seconds
        return self.texts / working if working > 0 else 0.0


@dataclass(frozen=True)
class ReindexOutcome:
    """What `reindex_after_write` did: vectors stored, written items still without one, and why if it failed."""

    embedded: int
    left: int | None  # None: unknown, the graph server stopped answering
    seconds: float
    error: str | None = None
    report: ReindexReport | None = None  # the run's own figures, when it ran and finished


@dataclass(frozen=True)
class _Kind:
    """One kind of embedded item: its report field, how its rows are read, and where its vectors are stored."""

    name: str
    group_page: str
    ids_page: str
    store: str
    keys: tuple[str, ...] = ("id",)
    parameters: dict[str, str] = field(default_factory=dict)


def _node_kind(name: str, label: str, vector: str, store: str) -> _Kind:
    return _Kind(name, GROUP_NODES_PAGE, IDS_NODES_PAGE, store, parameters={"label": label, "vector": vector})


# Graphiti embeds an entity's (and a community's) name, an episode's content and an edge's fact; we embed all an
# item has (memoria.graph.searchable).
_KINDS = (
    _node_kind("entities", kinds.ENTITY, "name_embedding", SET_NAME_EMBEDDINGS),
    _node_kind("communities", kinds.COMMUNITY, "name_embedding", SET_NAME_EMBEDDINGS),
    _node_kind("episodes", kinds.EPISODE, "embedding", SET_EPISODE_EMBEDDINGS),
    _Kind("facts", GROUP_FACTS_PAGE, IDS_FACTS_PAGE, SET_FACT_EMBEDDINGS, keys=("id", "source", "target")),
)


def _checked_ids(ids: Collection[str] | None) -> list[str] | None:
    if ids is None:
        return None
    if isinstance(ids, str) or not all(isinstance(item, str) for item in ids):
        raise ValueError("ids must be a collection of node and fact ids (strings), not one string")
    return list(dict.fromkeys(ids))


def _chunks(items: list[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _windows(pages: Iterator[list[dict[str, Any]]], size: int) -> Iterator[list[dict[str, Any]]]:
    """The pages' rows gathered into windows of at least `size` rows (the last one shorter)."""
    window: list[dict[str, Any]] = []
    for rows in pages:
        window.extend(rows)
        if len(window) >= size:
            yield window
            window = []
    if window:
        yield window


class _RunVectors:
    """The vectors of one run's texts, each distinct text embedded once: items that read alike (entities of one
    name and summary, a fact told twice) share a vector, as embedding them apart would give them the same one.
    Texts met again in a later window are answered from memory, for the first REMEMBERED_TEXTS of the run."""

    def __init__(self, model: TextEmbedder) -> None:
        self.model = model
        self._known: dict[str, np.ndarray] = {}  # float32, as the model makes them: about 1.6 KiB a text here

    def of(self, texts: list[str]) -> dict[str, list[float]]:
        distinct = list(dict.fromkeys(texts))
        wanted = [text for text in distinct if text not in self._known]
        fresh = dict(zip(wanted, self.model.embed(wanted), strict=True)) if wanted else {}
        for text in wanted[: max(REMEMBERED_TEXTS - len(self._known), 0)]:
            self._known[text] = np.asarray(fresh[text], dtype=np.float32)
        return {text: fresh[text] if text in fresh else self._known[text].tolist() for text in distinct}


def _group_pages(
    kind: _Kind, group: str, only_missing: bool, batch_size: int, model: str
) -> Iterator[list[dict[str, Any]]]:
    after = ""
    while True:
        rows = driver.read(
            kind.group_page,
            group=group,
            after=after,
            only_missing=only_missing,
            limit=batch_size,
            **kind.parameters,
            **vector_model_parameters(model),
        )
        if rows:
            yield rows
        if len(rows) < batch_size:
            return
        after = rows[-1]["id"]


def _ids_pages(
    kind: _Kind, group: str, ids: list[str], only_missing: bool, batch_size: int, model: str
) -> Iterator[list[dict]]:
    for chunk in _chunks(ids, batch_size):
        rows = driver.read(
            kind.ids_page,
            group=group,
            ids=chunk,
            only_missing=only_missing,
            **kind.parameters,
            **vector_model_parameters(model),
        )
        if rows:
            yield rows


def reindex_backlog(*, group: str, ids: Collection[str] | None = None, only_missing: bool = True) -> int:
    """How many texts `group_reindex` would embed now, in the group or among the given ids (for progress bars):
    those without a vector and those whose vector another model or an older text definition made."""
    check_group_name(group)
    wanted = _checked_ids(ids)
    model = vector_model_parameters(configured_model_id())
    labels = {"entity": kinds.ENTITY, "community": kinds.COMMUNITY, "episode": kinds.EPISODE}
    if wanted is None:
        rounds = [(GROUP_NODES_BACKLOG, GROUP_FACTS_BACKLOG, {})]
    else:
        rounds = [(IDS_NODES_BACKLOG, IDS_FACTS_BACKLOG, {"ids": chunk}) for chunk in _chunks(wanted, BACKLOG_ID_CHUNK)]
    total = 0
    for nodes_query, facts_query, extra in rounds:
        nodes = driver.read(nodes_query, group=group, only_missing=only_missing, **labels, **extra, **model)
        facts = driver.read(facts_query, group=group, only_missing=only_missing, **extra, **model)
        if nodes:
            total += sum(nodes[0][name] or 0 for name in ("entities", "communities", "episodes"))
        total += (facts[0]["facts"] or 0) if facts else 0
    return total


def group_reindex(
    *,
    group: str,
    ids: Collection[str] | None = None,
    only_missing: bool = True,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Callable[[int], None] | None = None,
    model: TextEmbedder | None = None,
) -> ReindexReport:
    """Embed the group's texts that lack a vector, whose vector another model than the configured one made, or
    whose vector embeds an older definition of the searchable text (every text with only_missing=False); progress
    gets batch sizes. Each vector is stored with its model's id and the text version.

    `ids` (node ids and fact ids, mixed) limits the work to those items, looked up by id: what a small write calls
    after it commits, instead of scanning the whole group. Ids of other groups or of deleted items are ignored.
    Raises EmbeddingModelError when the model cannot be loaded and GraphUnavailable when the server fails; the
    batches stored before stay stored. `model` replaces the process's embedder (a benchmark's timed wrapper).
    """
    check_group_name(group)
    wanted = _checked_ids(ids)
    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size} must be at least 1")
    started = time.perf_counter()
    load_seconds = embed_seconds = store_seconds = 0.0
    configured = configured_model_id()
    counts: dict[str, int] = {}
    run_vectors: _RunVectors | None = None
    for kind in _KINDS:
        counts[kind.name] = 0
        if wanted is None:
            pages = _group_pages(kind, group, only_missing, batch_size, configured)
        else:
            pages = _ids_pages(kind, group, wanted, only_missing, batch_size, configured)
        for rows in _windows(pages, EMBED_WINDOW):
            if model is None:  # loaded only when there is something to embed: a run with nothing to do stays quick
                loading = time.perf_counter()
                model = embedder()
                load_seconds = time.perf_counter() - loading
            run_vectors = run_vectors or _RunVectors(model)
            embedding = time.perf_counter()
            vectors = run_vectors.of([row["text"] for row in rows])
            embed_seconds += time.perf_counter() - embedding
            for batch in _chunks(rows, batch_size):
                storing = time.perf_counter()
                updates = [
                    {**{key: row[key] for key in kind.keys}, "text": row["text"], "vector": vectors[row["text"]]}
                    for row in batch
                ]
                counts[kind.name] += _vectors_store(kind, group, updates, model.model_id)
                store_seconds += time.perf_counter() - storing
                if progress:
                    progress(len(batch))
    return ReindexReport(
        group=group,
        seconds=time.perf_counter() - started,
        load_seconds=load_seconds,
        embed_seconds=embed_seconds,
        store_seconds=store_seconds,
        **counts,
    )


def _vectors_store(kind: _Kind, group: str, updates: list[dict[str, Any]], model: str) -> int:
    """Store a batch of vectors with a stamp naming the nodes they belong to (a fact's ends), so search views
    re-read just those items; the version (what graph projections follow) does not change."""
    touched = {end for row in updates for end in ((row["source"], row["target"]) if "source" in row else (row["id"],))}

    def work(tx: neo4j.ManagedTransaction) -> int:
        row = tx.run(kind.store, rows=updates, group=group, **vector_model_parameters(model)).single()
        group_vectors_stamp(tx, group, touched=touched)
        return int(row["stored"]) if row else 0

    return driver.write_transaction(work)


def reindex_after_write(
    *,
    group: str,
    ids: Collection[str],
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Callable[[int], None] | None = None,
    model: TextEmbedder | None = None,
) -> ReindexOutcome:
    """Embed the written items that lack a vector, once their write has committed; never raises for the model or
    the server, because the write stands either way: the outcome says what is left for `manage.py reindex`."""
    wanted = _checked_ids(ids) or []
    started = time.perf_counter()

    def outcome(
        embedded: int, left: int | None, error: Exception | None = None, report: ReindexReport | None = None
    ) -> ReindexOutcome:
        seconds = time.perf_counter() - started
        return ReindexOutcome(embedded, left, seconds, str(error) if error else None, report)

    try:
        before = reindex_backlog(group=group, ids=wanted)
    except GraphUnavailable as error:
        return outcome(0, None, error)
    if not before:
        return outcome(0, 0)
    try:
        report = group_reindex(group=group, ids=wanted, batch_size=batch_size, progress=progress, model=model)
    except (EmbeddingModelError, GraphUnavailable) as error:
        try:
            left = reindex_backlog(group=group, ids=wanted)
        except GraphUnavailable:
            return outcome(0, None, error)
        return outcome(max(before - left, 0), left, error)
    return outcome(report.texts, max(before - report.texts, 0), report=report)
