"""Search as data: which methods find candidates, which reranker orders them, and how many come back, per scope.

Configs are frozen dataclasses, so a recipe can be shared and tweaked with
`dataclasses.replace`; `search_config_check` holds the rules every config (a recipe or a request's, whose
shape memoria.search.request.SearchConfigInput reads) must keep.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from memoria.errors import InvalidInput
from memoria.projection.transition import DEFAULT_DAMPING
from memoria.requests.vocabulary import QueryText, validation_problems


class SearchMethod(enum.StrEnum):
    BM25 = "bm25"
    COSINE = "cosine"
    BFS = "bfs"
    PPR = "ppr"  # episodes only: PageRank from the entities the query names (its runner: memoria.ppr.search_walk)


class Reranker(enum.StrEnum):
    RRF = "rrf"
    MMR = "mmr"
    NODE_DISTANCE = "node_distance"
    EPISODE_MENTIONS = "episode_mentions"
    CROSS_ENCODER = "cross_encoder"


class Scope(enum.StrEnum):
    FACTS = "facts"
    ENTITIES = "entities"
    EPISODES = "episodes"
    COMMUNITIES = "communities"


# What each scope can be searched and reranked by: graph methods and rerankers need entity endpoints.
SCOPE_METHODS: dict[Scope, tuple[SearchMethod, ...]] = {
    Scope.FACTS: (SearchMethod.BM25, SearchMethod.COSINE, SearchMethod.BFS),
    Scope.ENTITIES: (SearchMethod.BM25, SearchMethod.COSINE, SearchMethod.BFS),
    Scope.EPISODES: (SearchMethod.BM25, SearchMethod.COSINE, SearchMethod.PPR),
    Scope.COMMUNITIES: (SearchMethod.BM25, SearchMethod.COSINE),
}
_TEXT_RERANKERS = (Reranker.RRF, Reranker.MMR, Reranker.CROSS_ENCODER)
SCOPE_RERANKERS: dict[Scope, tuple[Reranker, ...]] = {
    Scope.FACTS: tuple(Reranker),
    Scope.ENTITIES: tuple(Reranker),
    Scope.EPISODES: _TEXT_RERANKERS,
    Scope.COMMUNITIES: _TEXT_RERANKERS,
}

# Methods that walk the graph from what the query names (memoria.search.walks): their runners are registered by
# the package that owns the walk, and their candidates are fused after the text methods' ranking (service.py).
WALK_METHODS = frozenset({SearchMethod.PPR})

# Scopes whose items sit on the entity graph, so a graph_weight can blend their connectivity.
GRAPH_SCOPES = (Scope.FACTS, Scope.ENTITIES)

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
DEFAULT_MMR_LAMBDA = 0.5
DEFAULT_BFS_DEPTH = 2
MAX_BFS_DEPTH = 3
MAX_ORIGINS = 20


@dataclass(frozen=True)
class ScopeConfig:
    """How one scope is searched. Scores below `min_score` (after reranking; None: no minimum) are dropped."""

    methods: tuple[SearchMethod, ...]
    reranker: Reranker = Reranker.RRF
    limit: int = DEFAULT_LIMIT
    min_score: float | None = None
    # Cosine candidates at or below this similarity are dropped before fusion.
    sim_min_score: float = 0.0
    mmr_lambda: float = DEFAULT_MMR_LAMBDA
    bfs_depth: int = DEFAULT_BFS_DEPTH
    bfs_origin_ids: tuple[str, ...] = ()
    center_node_id: str | None = None
    # Share of the final score given to the graph; 0 leaves it alone. Facts and entities: connectivity
    # (memoria.search.connectivity). Episodes searched with ppr: the PPR score, fused with the text methods'.
    graph_weight: float = 0.0
    ppr_damping: float = DEFAULT_DAMPING  # the ppr method's damping
    # The ppr method's gate: an entity the query names seeds the walk only if at most this share of the group's
    # episodes mention it (a speaker named in half a conversation tells no turn apart). None: every one seeds.
    ppr_seed_share: float | None = None


@dataclass(frozen=True)
class SearchConfig:
    """A search over any of the four scopes; a scope left None is not searched."""

    facts: ScopeConfig | None = None
    entities: ScopeConfig | None = None
    episodes: ScopeConfig | None = None
    communities: ScopeConfig | None = None

    def scopes(self) -> dict[Scope, ScopeConfig]:
        return {scope: config for scope in Scope if (config := getattr(self, scope.value)) is not None}

    def only(self, scope: Scope) -> SearchConfig:
        """This config restricted to one scope (InvalidInput when it does not search that scope)."""
        scoped = getattr(self, scope.value)
        if scoped is None:
            raise InvalidInput(f"scope: this search does not cover {scope.value}")
        return SearchConfig(**{scope.value: scoped})

    def needs_query_vector(self) -> bool:
        return any(
            SearchMethod.COSINE in config.methods or config.reranker is Reranker.MMR
            for config in self.scopes().values()
        )


def search_config_check(config: SearchConfig) -> SearchConfig:
    """Refuse configs no search can honour (recipes and parsed JSON alike pass through here)."""
    problems: list[str] = []
    if not config.scopes():
        problems.append("config: name at least one of facts, entities, episodes, communities")
    for scope, scoped in config.scopes().items():
        problems.extend(scope_problems(scope, scoped))
    if problems:
        raise InvalidInput(problems)
    return config


def scope_problems(scope: Scope, config: ScopeConfig) -> list[str]:
    """What is wrong with one scope's config, each problem as `scope.field: message`."""
    where = scope.value
    problems = []
    if not config.methods:
        problems.append(f"{where}.methods: name at least one method")
    for method in config.methods:
        if method not in SCOPE_METHODS[scope]:
            allowed = ", ".join(SCOPE_METHODS[scope])
            problems.append(f"{where}.methods: {method.value} cannot search {where} (allowed: {allowed})")
    if config.reranker not in SCOPE_RERANKERS[scope]:
        allowed = ", ".join(SCOPE_RERANKERS[scope])
        problems.append(f"{where}.reranker: {config.reranker.value} cannot rerank {where} (allowed: {allowed})")
    if not 1 <= config.limit <= MAX_LIMIT:
        problems.append(f"{where}.limit: {config.limit} is outside [1, {MAX_LIMIT}]")
    if not 0.0 <= config.mmr_lambda <= 1.0:
        problems.append(f"{where}.mmr_lambda: {config.mmr_lambda} is outside [0, 1]")
    if not -1.0 <= config.sim_min_score < 1.0:
        problems.append(f"{where}.sim_min_score: {config.sim_min_score} is outside [-1, 1)")
    if not 1 <= config.bfs_depth <= MAX_BFS_DEPTH:
        problems.append(f"{where}.bfs_depth: {config.bfs_depth} is outside [1, {MAX_BFS_DEPTH}]")
    if config.methods == (SearchMethod.BFS,) and not config.bfs_origin_ids:
        # Beside other methods, a BFS without origins starts from their best candidates.
        problems.append(f"{where}.bfs_origin_ids: bfs alone needs at least one origin node id")
    if len(config.bfs_origin_ids) > MAX_ORIGINS:
        problems.append(f"{where}.bfs_origin_ids: at most {MAX_ORIGINS} origins")
    weight = config.graph_weight
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight):
        problems.append(f"{where}.graph_weight: must be a number in [0, 1]")
    elif not 0.0 <= weight <= 1.0:
        problems.append(f"{where}.graph_weight: {weight} is outside [0, 1]")
    elif weight > 0 and scope not in GRAPH_SCOPES and not walks_in(config):
        problems.append(f"{where}.graph_weight: only facts and entities have graph connectivity (episodes: with ppr)")
    damping = config.ppr_damping
    if isinstance(damping, bool) or not isinstance(damping, int | float) or not 0.0 < damping < 1.0:
        problems.append(f"{where}.ppr_damping: must be a number strictly between 0 and 1")
    share = config.ppr_seed_share
    if share is not None and (isinstance(share, bool) or not isinstance(share, int | float) or not 0.0 < share <= 1.0):
        problems.append(f"{where}.ppr_seed_share: must be a number in (0, 1], or none for every linked entity")
    elif share is not None and SearchMethod.PPR not in config.methods:
        problems.append(f"{where}.ppr_seed_share: only used by the ppr method (episodes)")
    if walks_in(config) and config.reranker is not Reranker.RRF:
        problems.append(f"{where}.reranker: with ppr the text methods are fused by rrf (other rerankers: not yet)")
    if config.reranker is Reranker.NODE_DISTANCE and not config.center_node_id:
        problems.append(f"{where}.center_node_id: node_distance needs a center node id")
    return problems


def walks_in(config: ScopeConfig) -> bool:
    """Whether the scope's methods include a walk (WALK_METHODS)."""
    return not WALK_METHODS.isdisjoint(config.methods)


_QUERY = TypeAdapter(QueryText)


def parse_query(raw: Any, *, where: str = "query") -> str:
    """The text `search` looks for, by the request models' rule (QueryText), stripped: Python callers pass here."""
    try:
        return _QUERY.validate_python(raw).strip()
    except ValidationError as error:
        raise InvalidInput(validation_problems(error, where)) from None
