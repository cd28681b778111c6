"""Search as data: which methods find candidates, which reranker orders them, and how many come back, per scope.

Configs are frozen dataclasses, so a recipe can be shared and tweaked with
`dataclasses.replace`; `search_config_parse` builds one from JSON and names
every offending field.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

from memoria.errors import InvalidInput, unknown_keys_problem
from memoria.graph.rules import ID_PATTERN, MAX_QUERY_LENGTH
from memoria.ppr.pagerank import DEFAULT_DAMPING


class SearchMethod(enum.StrEnum):
    BM25 = "bm25"
    COSINE = "cosine"
    BFS = "bfs"
    PPR = "ppr"  # episodes only: PageRank from the entities the query names (memoria.search.graph_method)


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
        problems.extend(_scope_problems(scope, scoped))
    if problems:
        raise InvalidInput(problems)
    return config


def _scope_problems(scope: Scope, config: ScopeConfig) -> list[str]:
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
    elif weight > 0 and scope not in GRAPH_SCOPES and SearchMethod.PPR not in config.methods:
        problems.append(f"{where}.graph_weight: only facts and entities have graph connectivity (episodes: with ppr)")
    damping = config.ppr_damping
    if isinstance(damping, bool) or not isinstance(damping, int | float) or not 0.0 < damping < 1.0:
        problems.append(f"{where}.ppr_damping: must be a number strictly between 0 and 1")
    if SearchMethod.PPR in config.methods and config.reranker is not Reranker.RRF:
        problems.append(f"{where}.reranker: with ppr the text methods are fused by rrf (other rerankers: not yet)")
    if config.reranker is Reranker.NODE_DISTANCE and not config.center_node_id:
        problems.append(f"{where}.center_node_id: node_distance needs a center node id")
    return problems


# How each ScopeConfig field is read from JSON.
_FIELD_KINDS: dict[str, str] = {
    "methods": "methods",
    "reranker": "reranker",
    "limit": "int",
    "min_score": "float",
    "sim_min_score": "float",
    "mmr_lambda": "float",
    "bfs_depth": "int",
    "bfs_origin_ids": "ids",
    "center_node_id": "id",
    "graph_weight": "float",
    "ppr_damping": "float",
}
NULLABLE = {"min_score", "center_node_id"}


def _number(value: Any, where: str, *, whole: bool, problems: list[str]) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        problems.append(f"{where}: must be a {'whole number' if whole else 'number'}")
        return None
    if whole:
        if not float(value).is_integer():
            problems.append(f"{where}: must be a whole number")
            return None
        return int(value)
    return float(value)


def _choices(value: Any, kind: type[enum.StrEnum], where: str, problems: list[str]) -> Any:
    try:
        return kind(value)
    except ValueError:
        problems.append(f"{where}: {value!r} is not one of {', '.join(kind)}")
        return None


def _node_id(value: Any, where: str, problems: list[str]) -> str | None:
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        problems.append(f"{where}: must be a node id")
        return None
    return value


def _parse_scope(raw: Any, where: str, problems: list[str]) -> ScopeConfig | None:
    if not isinstance(raw, dict):
        problems.append(f"{where}: must be an object")
        return None
    if unknown := unknown_keys_problem(raw, _FIELD_KINDS, where=where, noun="field(s)"):
        problems.append(unknown)
    if "methods" not in raw:
        problems.append(f"{where}.methods: is required")
    values: dict[str, Any] = {}
    before = len(problems)
    for name, kind in _FIELD_KINDS.items():
        if name not in raw:
            continue
        value, at = raw[name], f"{where}.{name}"
        if value is None and name in NULLABLE:
            values[name] = None
        elif kind == "methods":
            if not isinstance(value, list):
                problems.append(f"{at}: must be a list of {', '.join(SearchMethod)}")
                continue
            parsed = [_choices(item, SearchMethod, f"{at}[{i}]", problems) for i, item in enumerate(value)]
            values[name] = tuple(dict.fromkeys(parsed))
        elif kind == "reranker":
            values[name] = _choices(value, Reranker, at, problems)
        elif kind in ("int", "float"):
            values[name] = _number(value, at, whole=kind == "int", problems=problems)
        elif kind == "ids":
            if not isinstance(value, list):
                problems.append(f"{at}: must be a list of node ids")
                continue
            values[name] = tuple(dict.fromkeys(_node_id(item, f"{at}[{i}]", problems) for i, item in enumerate(value)))
        else:
            values[name] = _node_id(value, at, problems)
    if len(problems) > before or "methods" not in values:
        return None
    return ScopeConfig(**values)


def search_config_parse(raw: Any, *, where: str = "config") -> SearchConfig:
    """A SearchConfig from decoded JSON ({"facts": {"methods": [...], ...}, ...}); InvalidInput names each problem."""
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: must be an object with any of {', '.join(Scope)}")
    problems: list[str] = []
    if unknown := unknown_keys_problem(raw, Scope, where=where, noun="scope(s)"):
        problems.append(unknown)
    scoped = {scope: _parse_scope(raw[scope.value], scope.value, problems) for scope in Scope if scope in raw}
    for scope, config in scoped.items():  # a scope that was read whole is checked now, so all problems come at once
        if config is not None:
            problems.extend(_scope_problems(scope, config))
    if problems:
        raise InvalidInput(problems)
    return search_config_check(SearchConfig(**{scope.value: config for scope, config in scoped.items()}))


def parse_query(raw: Any, *, where: str = "query") -> str:
    if not isinstance(raw, str) or not raw.strip() or len(raw) > MAX_QUERY_LENGTH:
        raise InvalidInput(f"{where}: must be a non-empty text of at most {MAX_QUERY_LENGTH} characters")
    return raw.strip()
