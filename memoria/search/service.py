"""Hybrid search over a memory: run a config's methods per scope, fuse or rerank them, keep the best.

The REST API, the Activation retriever's seeds and the benchmark all come through `search`. A memory is
identified by (group, id), so a search of several groups runs in each group on its own (fusion, walks and
reranking never mix two groups' items) and their hits are merged by score, each naming its group.
"""

from __future__ import annotations

import concurrent.futures
import enum
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from memoria.accounts.roles import GROUP_PATTERN
from memoria.embeddings import embedder
from memoria.errors import InvalidInput
from memoria.graph.asof import EVERY_FACT, AsOf, valid_time
from memoria.graph.rules import normalise_timestamp
from memoria.graph.versions import group_stamps, version_of_stamps
from memoria.observability import in_context
from memoria.readmodel.cache import ViewTooLarge
from memoria.requests.scope import MemoryScope
from memoria.search import connectivity, methods, rerankers, view_methods
from memoria.search.config import (
    WALK_METHODS,
    Reranker,
    Scope,
    ScopeConfig,
    SearchConfig,
    SearchMethod,
    parse_query,
    search_config_check,
    walks_in,
)
from memoria.search.methods import Candidate
from memoria.search.recipes import recipe
from memoria.search.scoped import scope_members
from memoria.search.walks import WalkRequest, walk_run

# Each method is asked for twice the results wanted, so fusion has something to choose from (as Graphiti does).
METHOD_DEPTH = 2
# A BFS without origins starts from the endpoints of this many of each other method's best candidates.
BFS_ORIGINS_PER_METHOD = 3
MAX_GROUPS = 50
SEED_RECIPE = "entities_hybrid_rrf"

# Searches are mostly waiting on the graph server: threads let methods and scopes overlap.
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=16, thread_name_prefix="memoria-search")


@dataclass(frozen=True)
class SearchHit:
    """One result: `score` from the scope's reranker, `scores` from each method that found it."""

    group: str
    id: str
    name: str
    text: str
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    source: str | None = None
    target: str | None = None
    valid_at: str | None = None
    invalid_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.source is None:  # only facts have endpoints and validity
            for key in ("source", "target", "valid_at", "invalid_at"):
                data.pop(key)
        return data


class Engine(enum.StrEnum):
    """Where text and vector methods read: the groups' in-memory views, or the graph server's indexes."""

    AUTO = "auto"  # views, and the server's indexes for a group whose view does not fit the memory budget
    VIEW = "view"
    CYPHER = "cypher"


@dataclass(frozen=True)
class SearchResults:
    facts: tuple[SearchHit, ...] = ()
    entities: tuple[SearchHit, ...] = ()
    episodes: tuple[SearchHit, ...] = ()
    communities: tuple[SearchHit, ...] = ()
    # Which engine answered, and for views each group's version, age and what catching up cost.
    engine: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def size(self) -> int:
        return len(self.facts) + len(self.entities) + len(self.episodes) + len(self.communities)

    def as_dict(self) -> dict[str, Any]:
        """The hits by scope, and which engine answered."""
        found: dict[str, Any] = {scope.value: [hit.as_dict() for hit in getattr(self, scope.value)] for scope in Scope}
        return {**found, "engine": self.engine}


@dataclass(frozen=True)
class _Request:
    """What every method of one group's search shares."""

    query: str
    group: str
    valid_at: str | None
    vector: concurrent.futures.Future | None
    engine: Engine = Engine.AUTO
    views: view_methods.ViewReport = field(default_factory=view_methods.ViewReport)
    fallbacks: list[str] = field(default_factory=list)  # why a method read the server's indexes instead
    walk_at: AsOf = EVERY_FACT  # which facts BFS walks: those that count at valid_at (as its as_of), or all
    stamps: dict[str, int] | None = None  # the group's version stamps, read once for the views and the walk
    memory_scope: MemoryScope | None = None  # only memories of this scope (user, agent, session, metadata)
    allowed: dict[Scope, frozenset[str]] | None = None  # the scope's items by kind, read once for the group

    def allowed_in(self, scope: Scope) -> frozenset[str] | None:
        return None if self.allowed is None else self.allowed.get(scope, frozenset())

    @property
    def groups(self) -> tuple[str, ...]:
        return (self.group,)

    def query_vector(self) -> list[float]:
        assert self.vector is not None  # the config said it needs one
        return self.vector.result()


def _checked_groups(groups: Sequence[str]) -> tuple[str, ...]:
    if isinstance(groups, str) or not groups or len(groups) > MAX_GROUPS:
        raise InvalidInput(f"groups: give 1–{MAX_GROUPS} group names")
    bad = [group for group in groups if not isinstance(group, str) or not GROUP_PATTERN.fullmatch(group)]
    if bad:
        raise InvalidInput(f"groups: {bad[0]!r} must be 1–64 letters, digits, '_' or '-'")
    return tuple(dict.fromkeys(groups))


def checked_valid_at(valid_at: datetime | str | None, *, where: str = "valid_at") -> str | None:
    """The stored timestamp form (fixed-width UTC), so it compares with facts' times as text."""
    if valid_at is None:
        return None
    if isinstance(valid_at, datetime):
        if valid_at.tzinfo is None:
            raise InvalidInput(f"{where}: has no time zone")
        valid_at = valid_at.astimezone(UTC).isoformat()
    try:
        return normalise_timestamp(valid_at)
    except (TypeError, ValueError, AttributeError) as error:
        raise InvalidInput(f"{where}: {valid_at!r} is not an ISO 8601 date-time with a zone ({error})") from error


def _run_method(scope: Scope, method: SearchMethod, config: ScopeConfig, request: _Request) -> list[Candidate]:
    limit = METHOD_DEPTH * config.limit
    if method in WALK_METHODS:
        walk = WalkRequest(
            group=request.group,
            query=request.query,
            limit=limit,
            damping=config.ppr_damping,
            valid_at=request.valid_at,
            seed_share=config.ppr_seed_share,
            version=version_of_stamps(request.group, request.stamps) if request.stamps is not None else None,
            known_texts=lambda ids: view_methods.shown_texts(
                scope.value, ids=ids, groups=[request.group], report=request.views
            ),
        )
        return walk_run(method, walk)
    if request.engine is not Engine.CYPHER and not request.fallbacks:
        try:
            return _run_view_method(scope, method, config, request, limit)
        except ViewTooLarge as error:
            if request.engine is Engine.VIEW:
                raise
            request.fallbacks.append(str(error))
    extra: dict[str, Any] = {"valid_at": request.valid_at} if scope is Scope.FACTS else {}
    if method is SearchMethod.BM25:
        return methods.BM25_BY_SCOPE[scope](text=request.query, groups=request.groups, limit=limit, **extra)
    if method is SearchMethod.COSINE:
        return methods.COSINE_BY_SCOPE[scope](
            vector=request.query_vector(),
            groups=request.groups,
            limit=limit,
            min_similarity=config.sim_min_score,
            **extra,
        )
    raise ValueError(f"{method} is run by _run_bfs")


def _run_view_method(
    scope: Scope, method: SearchMethod, config: ScopeConfig, request: _Request, limit: int
) -> list[Candidate]:
    shared: dict[str, Any] = {
        "groups": request.groups,
        "limit": limit,
        "report": request.views,
        "allowed": request.allowed_in(scope),
    }
    if scope is Scope.FACTS:
        shared["valid_at"] = request.valid_at
    if method is SearchMethod.BM25:
        return view_methods.bm25(scope.value, text=request.query, **shared)
    if method is SearchMethod.COSINE:
        return view_methods.cosine(
            scope.value, vector=request.query_vector(), min_similarity=config.sim_min_score, **shared
        )
    raise ValueError(f"{method} is run by _run_bfs")


def _views_prepare(request: _Request, scopes: list[Scope]) -> None:
    """Catch the groups' views up once for the whole request; past the memory budget, use the server's indexes."""
    if request.engine is Engine.CYPHER or not scopes:
        return
    try:
        stamps = {request.group: request.stamps} if request.stamps is not None else None
        request.views.prepare(request.groups, [scope.value for scope in scopes], stamps=stamps)
    except ViewTooLarge as error:
        if request.engine is Engine.VIEW:
            raise
        request.fallbacks.append(str(error))


def _engine_report(request: _Request) -> dict[str, Any]:
    if request.engine is Engine.CYPHER:
        return {"name": Engine.CYPHER.value}
    report: dict[str, Any] = {
        "name": Engine.CYPHER.value if request.fallbacks and not request.views.states else Engine.VIEW.value,
        "views": {group: state.as_dict() for group, state in sorted(request.views.states.items())},
    }
    if request.fallbacks:
        report["fallback"] = request.fallbacks[0]
    return report


def _bfs_origins(scope: Scope, config: ScopeConfig, found: dict[SearchMethod, list[Candidate]]) -> list[str]:
    if config.bfs_origin_ids:
        return list(config.bfs_origin_ids)
    origins: list[str] = []
    for candidates in found.values():
        for candidate in candidates[:BFS_ORIGINS_PER_METHOD]:
            origins.extend((candidate.source, candidate.target) if scope is Scope.FACTS else (candidate.id,))
    return list(dict.fromkeys(origin for origin in origins if origin))


def _run_bfs(scope: Scope, config: ScopeConfig, request: _Request, origins: list[str]) -> list[Candidate]:
    if not origins:
        return []
    limit = METHOD_DEPTH * config.limit
    if scope is Scope.FACTS:
        return methods.facts_bfs(
            origin_ids=origins, group=request.group, depth=config.bfs_depth, limit=limit, moment=request.walk_at
        )
    return methods.entities_bfs(
        origin_ids=origins, group=request.group, depth=config.bfs_depth, limit=limit, moment=request.walk_at
    )


def _candidate_vectors(scope: Scope, candidates: dict[str, Candidate], request: _Request) -> dict[str, list[float]]:
    vectors = {item: candidate.vector for item, candidate in candidates.items() if candidate.vector}
    unknown = [item for item in candidates if item not in vectors]
    if unknown and request.views.prepared:
        views = request.views
        vectors.update(view_methods.stored_vectors(scope.value, ids=unknown, groups=request.groups, report=views))
    missing = [candidate for item, candidate in candidates.items() if item not in vectors]
    if missing and scope is Scope.FACTS:
        vectors.update(methods.fact_vectors(group=request.group, facts=missing))
    elif missing:
        prop = methods.NODE_SCOPES[scope].vector_property
        vectors.update(
            methods.node_vectors(group=request.group, ids=[candidate.id for candidate in missing], vector_property=prop)
        )
    return vectors


def _rerank_text(scope: Scope, candidate: Candidate) -> str:
    if scope in (Scope.ENTITIES, Scope.COMMUNITIES) and candidate.text:
        return f"{candidate.name}: {candidate.text}"
    return candidate.text or candidate.name


def _rerank(
    scope: Scope,
    config: ScopeConfig,
    request: _Request,
    found: dict[SearchMethod, list[Candidate]],
    candidates: dict[str, Candidate],
) -> rerankers.Ranked:
    if not WALK_METHODS.isdisjoint(found):
        return _text_then_walk(found)
    fused = rerankers.rrf([[candidate.id for candidate in ranked] for ranked in found.values()])
    order = [item for item, _ in fused]
    if config.reranker is Reranker.RRF:
        return fused
    if config.reranker is Reranker.MMR:
        vectors = _candidate_vectors(scope, candidates, request)
        ordered = {item: vectors[item] for item in order if item in vectors}
        return rerankers.mmr(request.query_vector(), ordered, mmr_lambda=config.mmr_lambda)
    if config.reranker is Reranker.CROSS_ENCODER:
        texts = {item: _rerank_text(scope, candidates[item]) for item in order}
        return rerankers.cross_encoder_rank(query=request.query, texts=texts)
    if scope is Scope.FACTS:
        ends = {item: (candidates[item].source, candidates[item].target) for item in order}
        nodes = list(dict.fromkeys(node for pair in ends.values() for node in pair if node))
    else:
        nodes = order
    if config.reranker is Reranker.NODE_DISTANCE:
        assert config.center_node_id is not None  # checked with the config
        hops = rerankers.node_distances(center=config.center_node_id, nodes=nodes, group=request.group)
        if scope is Scope.FACTS:
            hops = {item: min(hops[end] for end in ends[item]) for item in order}
        return rerankers.by_node_distance(order, hops)
    mentions = methods.entity_mentions(group=request.group, ids=nodes)
    if scope is Scope.FACTS:
        mentions = {item: sum(mentions.get(end, 0) for end in ends[item]) for item in order}
    return rerankers.by_mentions(order, mentions)


def _walked(found: dict[SearchMethod, list[Candidate]]) -> list[Candidate]:
    """The walk methods' candidates, in the config's order (an id the first walk found keeps its place)."""
    seen: dict[str, Candidate] = {}
    for method, ranked in found.items():
        if method in WALK_METHODS:
            for candidate in ranked:
                seen.setdefault(candidate.id, candidate)
    return list(seen.values())


def _text_then_walk(found: dict[SearchMethod, list[Candidate]]) -> rerankers.Ranked:
    """With a walk among the methods: the text methods' ranking (one method's own scores, so cosine stays a cosine;
    several fused by RRF), then the items only the walk found, at the text ranking's lowest score, in the walk's
    order. The walk's share is blended in afterwards (`_blend_walk`); alone, a walk ranks by its own score."""
    text = [ranked for method, ranked in found.items() if method not in WALK_METHODS]
    walked = _walked(found)
    if not text:
        return [(candidate.id, candidate.score) for candidate in walked]
    if len(text) == 1:
        ranked = [(candidate.id, candidate.score) for candidate in text[0]]
    else:
        ranked = rerankers.rrf([[candidate.id for candidate in listed] for listed in text])
    seen = {item for item, _ in ranked}
    floor = min((score for _, score in ranked), default=0.0)
    return ranked + [(c.id, floor) for c in walked if c.id not in seen]


def _blend_walk(
    ranked: rerankers.Ranked, found: dict[SearchMethod, list[Candidate]], *, weight: float
) -> rerankers.Ranked:
    """(1 − w)·text + w·walk, the walk's score over its best one's (0 for items the walk did not find)."""
    walk = {candidate.id: candidate.score for candidate in _walked(found)}
    best = max(walk.values(), default=0.0)
    graph = {item: (walk.get(item, 0.0) / best if best > 0 else 0.0) for item, _ in ranked}
    return connectivity.blend(ranked, graph, graph_weight=weight)


def _blend_graph(
    scope: Scope,
    config: ScopeConfig,
    request: _Request,
    ranked: rerankers.Ranked,
    candidates: dict[str, Candidate],
    scores: dict[str, dict[str, float]],
) -> rerankers.Ranked:
    """The reranked list with connectivity blended in; each hit's `graph` score is recorded beside its methods'."""
    if scope is Scope.FACTS:
        ends = {item: (candidates[item].source or "", candidates[item].target or "") for item, _ in ranked}
    else:
        ends = {item: (item,) for item, _ in ranked}
    anchors = list(dict.fromkeys([*([config.center_node_id] if config.center_node_id else []), *config.bfs_origin_ids]))
    graph = connectivity.connectivity(ends=ends, anchors=anchors, group=request.group)
    for item, value in graph.items():
        scores[item]["graph"] = value
    return connectivity.blend(ranked, graph, graph_weight=config.graph_weight)


def _embed_into(vector: concurrent.futures.Future, query: str) -> None:
    try:
        vector.set_result(embedder().embed_one(query))
    except BaseException as error:  # handed to every method waiting for the vector
        vector.set_exception(error)


def _finish_scope(
    scope: Scope, config: ScopeConfig, request: _Request, running: dict[SearchMethod, concurrent.futures.Future]
) -> tuple[SearchHit, ...]:
    """Collect the scope's methods (in the config's order, which breaks RRF ties), walk, rerank, cut."""
    found = {method: running[method].result() for method in config.methods if method in running}
    if SearchMethod.BFS in config.methods:
        found[SearchMethod.BFS] = _run_bfs(scope, config, request, _bfs_origins(scope, config, found))
    if (allowed := request.allowed_in(scope)) is not None:  # what the server's indexes and the walks found too
        found = {method: [c for c in ranked if c.id in allowed] for method, ranked in found.items()}
    candidates: dict[str, Candidate] = {}
    scores: dict[str, dict[str, float]] = {}
    for method, ranked in found.items():
        for candidate in ranked:
            seen = candidates.get(candidate.id)
            if seen is None or (seen.vector is None and candidate.vector is not None):
                candidates[candidate.id] = candidate
            scores.setdefault(candidate.id, {})[method.value] = candidate.score
    ranked = _rerank(scope, config, request, found, candidates) if candidates else []
    if config.graph_weight > 0 and ranked and not WALK_METHODS.isdisjoint(found):
        ranked = _blend_walk(ranked, found, weight=config.graph_weight)
    elif config.graph_weight > 0 and ranked:
        ranked = _blend_graph(scope, config, request, ranked, candidates, scores)
    hits = []
    for item, score in ranked:
        if config.min_score is not None and score < config.min_score:
            continue
        candidate = candidates[item]
        hits.append(
            SearchHit(
                group=request.group,
                id=item,
                name=candidate.name,
                text=candidate.text,
                score=score,
                scores=scores[item],
                source=candidate.source,
                target=candidate.target,
                valid_at=candidate.valid_at,
                invalid_at=candidate.invalid_at,
            )
        )
        if len(hits) == config.limit:
            break
    return tuple(hits)


# Rerankers that read nothing from the graph server: RRF works on ranks, MMR on the views' vectors.
LOCAL_RERANKERS = frozenset({Reranker.RRF, Reranker.MMR})


def _reads_views_only(request: _Request, scoped: dict[Scope, ScopeConfig]) -> bool:
    """Whether every step of the request reads the views alone (caught up already), never the graph server:
    then nothing waits on a socket, so the steps run in the caller's thread and the pool's hand-offs (each a
    wait for a core on a busy machine) are saved. The query's embedding still runs beside them."""
    if request.engine is Engine.CYPHER or request.fallbacks or not request.views.prepared:
        return False
    return all(
        set(config.methods) <= {SearchMethod.BM25, SearchMethod.COSINE}
        and config.reranker in LOCAL_RERANKERS
        and config.graph_weight == 0
        for config in scoped.values()
    )


def _run_on_pool(work: Callable[..., Any], *args: Any) -> concurrent.futures.Future:
    return _pool.submit(in_context(work), *args)


def _run_here(work: Callable[..., Any], *args: Any) -> concurrent.futures.Future:
    """`work` run now, in this thread, its outcome in a finished future (as the pool would hand it over)."""
    done: concurrent.futures.Future = concurrent.futures.Future()
    try:
        done.set_result(work(*args))
    except Exception as error:  # re-raised by result(), where the pool's future would raise it
        done.set_exception(error)
    return done


def search(
    *,
    query: str,
    groups: Sequence[str],
    config: SearchConfig,
    valid_at: datetime | str | None = None,
    engine: Engine = Engine.AUTO,
    scope: MemoryScope | None = None,
) -> SearchResults:
    """Search the groups' memories; facts can be restricted to those that hold at `valid_at`, and every kind to
    a memory scope's (memoria/search/scoped.py)."""
    query = parse_query(query)
    request_groups = _checked_groups(groups)
    moment = checked_valid_at(valid_at)
    scoped = search_config_check(config).scopes()
    for kind, scope_config in scoped.items():
        if scope_config.reranker is Reranker.CROSS_ENCODER:
            rerankers.cross_encoder_model(where=f"{kind.value}.reranker")  # unavailable: say so before searching
    vector: concurrent.futures.Future | None = concurrent.futures.Future() if config.needs_query_vector() else None
    if vector is not None:  # the query's embedding runs while the views catch up
        _pool.submit(in_context(_embed_into), vector, query)
    walk_at = valid_time(moment)
    answers = [
        _search_group(
            _Request(
                query,
                group,
                moment,
                vector,
                Engine(engine),
                walk_at=walk_at,
                memory_scope=scope if scope is not None and not scope.empty else None,
            ),
            scoped,
        )
        for group in request_groups
    ]
    return answers[0] if len(answers) == 1 else _merged(answers, scoped)


def _merged(answers: list[SearchResults], scoped: dict[Scope, ScopeConfig]) -> SearchResults:
    """Several groups' answers as one: each scope's hits by score (group and id break ties), cut at its limit."""
    found = {
        scope.value: tuple(
            sorted(
                (hit for answer in answers for hit in getattr(answer, scope.value)),
                key=lambda hit: (-hit.score, hit.group, hit.id),
            )[: config.limit]
        )
        for scope, config in scoped.items()
    }
    views = {group: state for answer in answers for group, state in answer.engine.get("views", {}).items()}
    engine = {**answers[0].engine, **({"views": views} if views else {})}
    fallback = next((answer.engine["fallback"] for answer in answers if "fallback" in answer.engine), None)
    if fallback:
        engine["fallback"] = fallback
    return SearchResults(**found, engine=engine)


def _search_group(request: _Request, scoped: dict[Scope, ScopeConfig]) -> SearchResults:
    """One group's search: its scopes' methods run side by side on the shared pool."""
    if request.memory_scope is not None:
        members = scope_members(group=request.group, scope=request.memory_scope, kinds_wanted=frozenset(scoped))
        request = replace(request, allowed={kind: members.of(kind) for kind in scoped})
    indexed = {SearchMethod.BM25, SearchMethod.COSINE}
    walks = any(walks_in(scope_config) for scope_config in scoped.values())
    if walks and request.engine is not Engine.CYPHER:
        # One read of the group's stamps serves the views' catch-up and the walk's projection (its version is
        # their sum), where each made a round trip of its own.
        request = replace(request, stamps=group_stamps(group=request.group))
    running: dict[Scope, dict[SearchMethod, concurrent.futures.Future]] = {scope: {} for scope in scoped}
    # A walk reads no view and is the longest method: it starts while the views catch up (the texts of the
    # episodes it finds come from a view only if that view is caught up by then, else from the server).
    for scope, scope_config in scoped.items():
        for method in scope_config.methods:
            if method in WALK_METHODS:
                running[scope][method] = _run_on_pool(_run_method, scope, method, scope_config, request)
    _views_prepare(request, [scope for scope, scope_config in scoped.items() if indexed & set(scope_config.methods)])
    # A task only ever waits for tasks submitted before it, so the shared pool's FIFO queue cannot deadlock.
    start = _run_here if _reads_views_only(request, scoped) else _run_on_pool
    for method in (SearchMethod.BM25, SearchMethod.COSINE):
        for scope, scope_config in scoped.items():
            if method in scope_config.methods:
                running[scope][method] = start(_run_method, scope, method, scope_config, request)
    finishing = {
        scope: start(_finish_scope, scope, scope_config, request, running[scope])
        for scope, scope_config in scoped.items()
    }
    found = {scope.value: future.result() for scope, future in finishing.items()}
    return SearchResults(**found, engine=_engine_report(request))


def search_seeds(
    *, group: str, query: str, limit: int = 5, scope: MemoryScope | None = None
) -> list[tuple[str, float]]:
    """Seeds for the Activation retriever: hybrid RRF over entities (a memory scope's, when given), scores divided
    by the best into (0, 1]."""
    hits = search(query=query, groups=[group], config=recipe(SEED_RECIPE, limit=limit), scope=scope).entities
    best = hits[0].score if hits else 0.0
    return [(hit.id, hit.score / best) for hit in hits] if best > 0 else []
