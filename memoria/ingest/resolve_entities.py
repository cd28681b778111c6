"""Step 3: decide which stored entity each extracted name means, or that it is new.

Candidates come from the full-text index on Entity.name and the nearest name_embedding vectors (scores at least
0.6 on the [0, 1] scale of (1 + cosine) / 2), fused with reciprocal rank fusion, as Graphiti does; a resolver
(offline rules here, an LLM's in memoria/ingest/llm_resolver.py) picks among them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from memoria.embeddings import configured_model_id
from memoria.errors import InvalidInput
from memoria.graph import driver, kinds
from memoria.graph.dialect import IndexSpec, graph_dialect
from memoria.graph.schema import vector_model_of, vector_model_parameters
from memoria.ingest import text
from memoria.ingest.extract_entities import PHRASE, ExtractedEntity
from memoria.readmodel.cache import ViewTooLarge, view_cache
from memoria.readmodel.scopes import ENTITIES
from memoria.readmodel.text_index import query_terms
from memoria.search.methods import MAX_QUERY_WORDS, STOP_WORDS, exact_ranking, lucene_query
from memoria.search.rerankers import rrf

VECTOR_MIN_SCORE = 0.6  # on the vector index's (1 + cosine) / 2 scale, Graphiti's threshold
# Neighbours asked of the (approximate, all-groups) vector index before keeping the group's; when other groups'
# copies of the same names fill a page, the next is deeper, while the page's lowest score still passes the threshold.
VECTOR_DEPTHS = (50, 400, 3200)
CANDIDATE_LIMIT = 10  # candidates kept per method before fusing
# Names this close in meaning are one entity even without a rule ("NYC" / "New York City" is 0.96).
EMBEDDING_MATCH_SCORE = 0.935
NICKNAME_MIN_LETTERS = 3
MAX_ALIASES = 20

# What resolution and summaries need of a stored entity.
ENTITY_FIELDS = (
    "id: n.id, group_id: n.group_id, name: n.name, summary: coalesce(n.summary, ''), labels: labels(n), "
    "attributes: n.attributes"
)
ENTITIES_BY_ID = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})
RETURN {{{ENTITY_FIELDS}}} AS entity
"""
TEXT_CANDIDATES = f"""
UNWIND $queries AS query
CALL db.index.fulltext.queryNodes($index, query.text) YIELD node AS n, score
WITH query, n, score WHERE n.group_id = $group
WITH query, n, score ORDER BY score DESC
RETURN query.key AS key, collect({{{ENTITY_FIELDS}, score: score}})[..$limit] AS hits
"""
VECTOR_CANDIDATES = f"""
UNWIND $queries AS query
CALL db.index.vector.queryNodes($index, $depth, query.vector) YIELD node AS n, score
WITH query, n, score ORDER BY score DESC
WITH query, count(n) AS seen, min(score) AS lowest,
     collect(CASE WHEN n.group_id = $group AND score >= $min_score AND {vector_model_of("n")} = $model
                  THEN {{{ENTITY_FIELDS}, score: score}} END) AS kept
RETURN query.key AS key, seen, lowest, kept[..$limit] AS hits
"""
# Without server vector indexes: each name's nearest entities of the group by an exact scan of its own vectors,
# scored here on the index's scale (the servers' cosine functions differ in scale, not in order).
VECTOR_SCAN = f"""
UNWIND $queries AS query
CALL (query) {{
  MATCH (n:{kinds.ENTITY} {{group_id: $group}})
  WHERE n.name_embedding IS NOT NULL AND {vector_model_of("n")} = $model
  WITH n ORDER BY vector.similarity.cosine(n.name_embedding, query.vector) DESC LIMIT $limit
  RETURN collect({{{ENTITY_FIELDS}, vector: n.name_embedding}}) AS nearest
}}
RETURN query.key AS key, query.vector AS vector, nearest
"""


@dataclass(frozen=True)
class EntityState:
    """An entity as stored, or as it will be stored once the episode is written."""

    id: str
    name: str
    key: str
    summary: str = ""
    labels: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    attributes: dict = field(default_factory=dict, compare=False)
    is_new: bool = False


@dataclass(frozen=True)
class Candidate:
    entity: EntityState
    score: float  # fused (RRF)
    vector_score: float | None = None  # on the index's [0, 1] scale


@dataclass
class EntityWorkingSet:
    """The entities a batch has met so far, by id, and the name keys that lead to them."""

    by_id: dict[str, EntityState] = field(default_factory=dict)
    by_key: dict[str, str] = field(default_factory=dict)
    vectors: dict[str, list[float]] = field(default_factory=dict)  # new entities' name vectors, by id

    def get(self, key: str) -> EntityState | None:
        entity_id = self.by_key.get(key)
        return self.by_id[entity_id] if entity_id is not None else None

    def put(self, entity: EntityState, *keys: str) -> EntityState:
        self.by_id[entity.id] = entity
        for key in (entity.key, *keys):
            self.by_key[key] = entity.id
        return entity

    def copy(self) -> EntityWorkingSet:
        return EntityWorkingSet(dict(self.by_id), dict(self.by_key), dict(self.vectors))


@dataclass(frozen=True)
class ResolveEntitiesInput:
    group: str
    mentions: tuple[ExtractedEntity, ...]  # distinct keys, in the order the batch met them
    # Name vectors are asked for only for names not found by key: most names of a long conversation repeat.
    embed_names: Callable[[list[str]], list[list[float]]]
    known: EntityWorkingSet = field(default_factory=EntityWorkingSet)
    # Mention key → the content of the first episode naming it: what a resolver that reads (an LLM's) reads.
    episodes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EntityResolution:
    resolved: dict[str, str]  # mention key → entity id
    reasons: dict[str, str]  # mention key → the rule that decided
    entities: EntityWorkingSet  # the working set after this step: every entity met, with new aliases

    def entity(self, key: str) -> EntityState:
        return self.entities.by_id[self.resolved[key]]


class EntityResolver(Protocol):
    """Picks the candidate the mention means, or None (a new entity), with the reason, from the best-fused first.

    `episode` is the text the mention was read in, for resolvers that judge by context.
    """

    def resolve_entity(
        self,
        mention: ExtractedEntity,
        vector: Sequence[float] | None,
        candidates: Sequence[Candidate],
        *,
        episode: str = "",
    ) -> tuple[EntityState | None, str]: ...


def entity_id(group: str, key: str) -> str:
    """New entities get ids from their name key, so two writers adding the same new name meet on one node."""
    return "ent-" + hashlib.sha256(f"{group}\x1f{key}".encode()).hexdigest()[:24]


def _attributes(raw: object) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def entity_from_map(row: dict) -> EntityState:
    attributes = _attributes(row.get("attributes"))
    aliases = attributes.get("aliases", [])
    return EntityState(
        id=row["id"],
        name=row["name"] or "",
        key=text.name_key(row["name"] or ""),
        summary=row.get("summary") or "",
        labels=tuple(label for label in row.get("labels") or () if label in kinds.entity_labels()),
        aliases=tuple(alias for alias in aliases if isinstance(alias, str)),
        attributes=attributes,
    )


def entities_by_id(*, group: str, ids: Sequence[str]) -> dict[str, EntityState]:
    """The group's stored entities with these ids; an id the group holds as an episode is refused."""
    if not ids:
        return {}
    found: dict[str, EntityState] = {}
    problems: list[str] = []
    for row in (record["entity"] for record in driver.read(ENTITIES_BY_ID, ids=list(ids), group=group)):
        if kinds.ENTITY not in row["labels"]:
            problems.append(f"entity id {row['id']!r} is stored as another kind of node")
        else:
            found[row["id"]] = entity_from_map(row)
    if problems:
        raise InvalidInput(problems)
    return found


def _vector_candidate_rows(
    queries: list[dict], *, read: Callable[..., list[dict]], index: str, limit: int
) -> list[dict]:
    """One row per query; a query whose page other groups filled is asked again, deeper."""
    done: list[dict] = []
    for depth in VECTOR_DEPTHS:
        if not queries:
            break
        rows = read(
            VECTOR_CANDIDATES,
            queries,
            depth=depth,
            min_score=VECTOR_MIN_SCORE,
            index=index,
            **vector_model_parameters(configured_model_id()),
        )
        crowded = {
            row["key"]
            for row in rows
            if len(row["hits"]) < limit and row["seen"] >= depth and (row["lowest"] or 0) >= VECTOR_MIN_SCORE
        }
        done.extend(row for row in rows if row["key"] not in crowded or depth == VECTOR_DEPTHS[-1])
        queries = [query for query in queries if query["key"] in crowded]
    return done


def _scanned_candidate_rows(queries: list[dict], *, read: Callable[..., list[dict]]) -> list[dict]:
    """One row per query, as `_vector_candidate_rows` gives them, from an exact scan of the group's vectors."""
    rows = read(VECTOR_SCAN, queries, **vector_model_parameters(configured_model_id())) if queries else []
    found = []
    for row in rows:
        ranked = exact_ranking(row["nearest"], row["vector"], len(row["nearest"]), -1.0)
        scored = ({**hit, "score": (1.0 + cosine) / 2.0} for cosine, hit in ranked)
        found.append({"key": row["key"], "hits": [hit for hit in scored if hit["score"] >= VECTOR_MIN_SCORE]})
    return found


def entity_candidates(
    *, group: str, names: dict[str, str], vectors: dict[str, list[float]], limit: int = CANDIDATE_LIMIT
) -> dict[str, list[Candidate]]:
    """Stored candidates per mention key, best first: full-text and vector rankings fused with RRF.

    Read from the group's in-memory view, so the cost is the group's whatever the server holds; the server's
    indexes serve a group whose view does not fit the memory budget.
    """
    if not names:
        return {}
    try:
        rankings, vector_scores = _view_rankings(group=group, names=names, vectors=vectors, limit=limit)
    except ViewTooLarge:
        return _indexed_candidates(group=group, names=names, vectors=vectors, limit=limit)
    wanted = sorted({item for lists in rankings.values() for ranking in lists for item in ranking})
    rows = (record["entity"] for record in driver.read(ENTITIES_BY_ID, ids=wanted, group=group)) if wanted else ()
    states = {
        row["id"]: entity_from_map(row) for row in rows if row["group_id"] == group and kinds.ENTITY in row["labels"]
    }
    return {
        key: [
            Candidate(states[item], score, vector_scores.get((key, item)))
            for item, score in rrf([[item for item in ranking if item in states] for ranking in lists])
        ]
        for key, lists in rankings.items()
    }


def _view_rankings(
    *, group: str, names: dict[str, str], vectors: dict[str, list[float]], limit: int
) -> tuple[dict[str, list[list[str]]], dict[tuple[str, str], float]]:
    """Per mention key: the names' BM25 ranking and the vectors' ranking (scores on the index's [0, 1] scale)."""
    rankings: dict[str, list[list[str]]] = {key: [] for key in names}
    vector_scores: dict[tuple[str, str], float] = {}
    lowest_cosine = 2 * VECTOR_MIN_SCORE - 1
    with view_cache().reading(group, ENTITIES.name) as (scopes, _state):
        scope = scopes[ENTITIES.name]
        for key, name in names.items():
            terms = query_terms(name, stop_words=STOP_WORDS, max_terms=MAX_QUERY_WORDS)
            if terms:
                rankings[key].append([item for item, _ in scope.text.search(terms, limit=limit, fields=("name",))])
        for key in names:
            if key not in vectors:
                continue
            hits = scope.vectors.nearest(vectors[key], limit=limit, min_similarity=lowest_cosine - 1e-6)
            kept = [(item, (1.0 + cosine) / 2.0) for item, cosine in hits if (1.0 + cosine) / 2.0 >= VECTOR_MIN_SCORE]
            rankings[key].append([item for item, _ in kept])
            vector_scores.update(((key, item), score) for item, score in kept)
    return rankings, vector_scores


def _indexed_candidates(
    *, group: str, names: dict[str, str], vectors: dict[str, list[float]], limit: int
) -> dict[str, list[Candidate]]:
    """The same candidates from the server's all-groups indexes, filtered to the group."""
    dialect = graph_dialect()

    def hits(query: str, queries: list[dict], **parameters: object) -> list[dict]:
        return driver.read(query, queries=queries, group=group, limit=limit, **parameters) if queries else []

    text_rows = hits(
        TEXT_CANDIDATES,
        [{"key": key, "text": query} for key, name in names.items() if (query := lucene_query(name))],
        index=dialect.fulltext_index_name(IndexSpec(kinds.ENTITY, "name")),
    )
    vector_queries = [{"key": key, "vector": vectors[key]} for key in names if key in vectors]
    if dialect.serves_vector_indexes():
        index = dialect.vector_index_name(IndexSpec(kinds.ENTITY, "name_embedding"))
        vector_rows = _vector_candidate_rows(vector_queries, read=hits, index=index, limit=limit)
    else:
        vector_rows = _scanned_candidate_rows(vector_queries, read=hits)
    rankings: dict[str, list[list[str]]] = {key: [] for key in names}
    states: dict[str, EntityState] = {}
    vector_scores: dict[tuple[str, str], float] = {}
    for rows, is_vector in ((text_rows, False), (vector_rows, True)):
        for row in rows:
            hits = [hit for hit in row["hits"] if kinds.ENTITY in hit["labels"]]
            rankings[row["key"]].append([hit["id"] for hit in hits])
            for hit in hits:
                states.setdefault(hit["id"], entity_from_map(hit))
                if is_vector:
                    vector_scores[(row["key"], hit["id"])] = hit["score"]
    return {
        key: [Candidate(states[item], score, vector_scores.get((key, item))) for item, score in rrf(lists)]
        for key, lists in rankings.items()
    }


def name_match(mention: ExtractedEntity, candidates: Sequence[Candidate]) -> tuple[EntityState, str] | None:
    """A candidate with the mention's name key or alias: the same entity without any judgement to make.

    Of several stored twins (an import may hold two), the best-ranked.
    """
    for reason, rule in (("same name", _same_key), ("known alias", _known_alias)):
        matches = [candidate.entity for candidate in candidates if rule(mention, candidate)]
        if matches:
            return matches[0], reason
    return None


class OfflineEntityResolver:
    """Name rules first (same key, a known alias, initials, a surname, a nickname), then meaning alone."""

    def resolve_entity(
        self,
        mention: ExtractedEntity,
        vector: Sequence[float] | None,
        candidates: Sequence[Candidate],
        *,
        episode: str = "",
    ) -> tuple[EntityState | None, str]:
        settled = name_match(mention, candidates)
        if settled is not None:
            return settled
        for reason, rule in (("initials", _initials), ("part of the name", _name_part), ("nickname", _nickname)):
            matches = [candidate.entity for candidate in candidates if rule(mention, candidate)]
            if len({entity.id for entity in matches}) == 1:
                return matches[0], reason
        close = [c for c in candidates if c.vector_score is not None and c.vector_score >= EMBEDDING_MATCH_SCORE]
        if close:
            return max(close, key=lambda candidate: candidate.vector_score).entity, "same meaning"
        return None, "new"


def _same_key(mention: ExtractedEntity, candidate: Candidate) -> bool:
    return candidate.entity.key == mention.key


def _known_alias(mention: ExtractedEntity, candidate: Candidate) -> bool:
    return mention.key in {text.name_key(alias) for alias in candidate.entity.aliases}


def _initials(mention: ExtractedEntity, candidate: Candidate) -> bool:
    short, long = sorted((mention.name, candidate.entity.name), key=len)
    letters = text.fold(short).replace(".", "")
    return len(letters) >= 2 and letters.isalpha() and " " not in short.strip() and letters == text.initials(long)


def _is_name(name: str) -> bool:
    words = name.split()
    return bool(words) and all(word[0].isupper() for word in words)


def _name_part(mention: ExtractedEntity, candidate: Candidate) -> bool:
    """ "Varga" is "Ilse Varga": a two- or three-word name of a person (no place or company head) ends or starts so."""
    if mention.kind == PHRASE or " " in mention.key or not _is_name(candidate.entity.name):
        return False
    words = candidate.entity.key.split()
    if words and words[-1] in text.NAME_HEAD_NOUNS:  # "Berlin" is not "Berlin Marathon"
        return False
    return 2 <= len(words) <= 3 and mention.key in (words[0], words[-1])


def _nickname(mention: ExtractedEntity, candidate: Candidate) -> bool:
    """ "Mel" is "Melanie": one capitalised word the start of another, found close by meaning."""
    if mention.kind == PHRASE or candidate.vector_score is None or not _is_name(candidate.entity.name):
        return False
    short, long = sorted((mention.key, candidate.entity.key), key=len)
    return " " not in long and len(short) >= NICKNAME_MIN_LETTERS and short != long and long.startswith(short)


def batch_candidates(vector: Sequence[float] | None, known: EntityWorkingSet) -> list[Candidate]:
    """Entities created earlier in the same batch are not stored yet: compare with them in memory."""
    created = [known.by_id[entity_id] for entity_id in known.vectors]
    if vector is None or not created:
        return []
    matrix = np.asarray(list(known.vectors.values()), dtype=np.float32)
    scores = (1.0 + matrix @ np.asarray(vector, dtype=np.float32)) / 2.0
    order = np.argsort(-scores)[:CANDIDATE_LIMIT]
    return [
        Candidate(created[index], float(scores[index]), float(scores[index]))
        for index in order
        if scores[index] >= VECTOR_MIN_SCORE
    ]


def with_alias(entity: EntityState, mention: ExtractedEntity) -> EntityState:
    """Remember another name the entity went by, so the next mention of it resolves at once."""
    return replace(entity, aliases=aliases_fold(entity, [mention.name]))


def aliases_fold(entity: EntityState, added: Sequence[str]) -> tuple[str, ...]:
    """The entity's aliases with `added` after them (each new name once, up to MAX_ALIASES): the aliases a batch
    learned, folded into those stored when it writes, as with_alias adds them while it plans."""
    aliases = list(entity.aliases)
    keys = {entity.key, *(text.name_key(alias) for alias in aliases)}
    for alias in added:
        key = text.name_key(alias)
        if key not in keys and len(aliases) < MAX_ALIASES:
            aliases.append(alias)
            keys.add(key)
    return tuple(aliases)


def entities_resolve(*, request: ResolveEntitiesInput, resolver: EntityResolver | None = None) -> EntityResolution:
    """Resolve each distinct mention to a stored entity, one met earlier in the batch, or a new one.

    Order matters: a name seen earlier in the batch is a candidate for the names after it.
    """
    resolver = resolver or OfflineEntityResolver()
    group = request.group
    known = request.known.copy()
    resolved: dict[str, str] = {}
    reasons: dict[str, str] = {}
    pending = [mention for mention in request.mentions if known.get(mention.key) is None]
    stored = entities_by_id(group=group, ids=sorted({entity_id(group, mention.key) for mention in pending}))
    for entity in stored.values():
        known.put(entity)
    remaining = [mention for mention in pending if known.get(mention.key) is None]
    vectors = dict(zip((m.key for m in remaining), request.embed_names([m.name for m in remaining]), strict=True))
    candidates = entity_candidates(group=group, names={m.key: m.name for m in remaining}, vectors=vectors)
    for mention in request.mentions:
        entity = known.get(mention.key)
        if entity is not None:
            resolved[mention.key] = entity.id
            reasons.setdefault(mention.key, "same name" if entity.id in stored else "seen in this batch")
            continue
        vector = vectors.get(mention.key)
        options = candidates.get(mention.key, []) + batch_candidates(vector, known)
        entity, reason = resolver.resolve_entity(
            mention, vector, options, episode=request.episodes.get(mention.key, "")
        )
        if entity is None:
            entity = EntityState(
                id=entity_id(group, mention.key), name=mention.name, key=mention.key, labels=mention.labels, is_new=True
            )
            if vector is not None:
                known.vectors[entity.id] = vector
        else:
            entity = with_alias(known.by_id.get(entity.id, entity), mention)
        known.put(entity, mention.key)
        resolved[mention.key], reasons[mention.key] = entity.id, reason
    return EntityResolution(resolved, reasons, known)
