"""A search request as callers send it (URL parameters or a JSON body): pydantic models on the shared vocabulary,
resolved into what `search` takes.

The models read the shape; the rules a config must keep (bounds, which methods suit a scope, what a recipe needs)
belong to memoria.search.config and memoria.search.recipes, which recipes pass through too: the models run them
and report their problems in their own words, all at once. Every problem names its field.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from memoria.errors import InvalidInput
from memoria.requests.scope import MemoryScope
from memoria.requests.vocabulary import (
    GroupName,
    ListOf,
    NodeId,
    Number,
    OneOf,
    QueryText,
    RequestModel,
    ScopeId,
    WholeNumber,
    problems_raise,
)
from memoria.search.config import (
    DEFAULT_LIMIT,
    MAX_BFS_DEPTH,
    MAX_LIMIT,
    MAX_ORIGINS,
    Reranker,
    Scope,
    ScopeConfig,
    SearchConfig,
    SearchMethod,
    scope_problems,
    search_config_check,
)
from memoria.search.recipes import RECIPES, SCOPE_DEFAULT_RECIPES, recipe, recipe_problem
from memoria.search.service import checked_valid_at

ALL_SCOPES = "all"
COMBINED_RECIPE = "combined_hybrid_rrf"
_DEFAULTS = ScopeConfig(methods=())  # the dataclass owns every default; the model documents them


@dataclass(frozen=True)
class SearchRequest:
    group: str
    query: str
    config: SearchConfig
    valid_at: str | None = None
    scope: MemoryScope | None = None  # only memories of this user, agent, session, metadata


def _bounds(low: float, high: float, *, exclusive_low: bool = False, exclusive_high: bool = False) -> Any:
    """The bounds as the schema states them; search_config_check applies them (recipes pass through it too)."""
    return {
        "exclusiveMinimum" if exclusive_low else "minimum": low,
        "exclusiveMaximum" if exclusive_high else "maximum": high,
    }


class ScopeInput(RequestModel):
    """How one scope is searched (memoria.search.config.ScopeConfig; docs/search.md)."""

    methods: ListOf(OneOf(SearchMethod), ", ".join(SearchMethod))  # type: ignore[valid-type]
    reranker: OneOf(Reranker) = _DEFAULTS.reranker  # type: ignore[valid-type]
    limit: WholeNumber = Field(default=_DEFAULTS.limit, json_schema_extra=_bounds(1, MAX_LIMIT))
    min_score: Number | None = Field(default=None, description="scores below it (after reranking) are dropped")
    sim_min_score: Number = Field(
        default=_DEFAULTS.sim_min_score, json_schema_extra=_bounds(-1, 1, exclusive_high=True)
    )
    mmr_lambda: Number = Field(default=_DEFAULTS.mmr_lambda, json_schema_extra=_bounds(0, 1))
    bfs_depth: WholeNumber = Field(default=_DEFAULTS.bfs_depth, json_schema_extra=_bounds(1, MAX_BFS_DEPTH))
    bfs_origin_ids: ListOf(NodeId, "node ids") = Field(  # type: ignore[valid-type]
        default=list(_DEFAULTS.bfs_origin_ids), json_schema_extra={"maxItems": MAX_ORIGINS}
    )
    center_node_id: NodeId | None = Field(default=None, description="node_distance ranks by distance from it")
    graph_weight: Number = Field(default=_DEFAULTS.graph_weight, json_schema_extra=_bounds(0, 1))
    ppr_damping: Number = Field(
        default=_DEFAULTS.ppr_damping, json_schema_extra=_bounds(0, 1, exclusive_low=True, exclusive_high=True)
    )
    ppr_seed_share: Number | None = Field(
        default=_DEFAULTS.ppr_seed_share,
        description="ppr: only entities at most this share of the episodes mention seed the walk",
        json_schema_extra=_bounds(0, 1, exclusive_low=True),
    )

    def scope_config(self) -> ScopeConfig:
        values = self.model_dump()
        values["methods"] = tuple(dict.fromkeys(self.methods))
        values["bfs_origin_ids"] = tuple(dict.fromkeys(self.bfs_origin_ids))
        return ScopeConfig(**values)


def _scope_checked(scope: Scope, given: ScopeInput | None) -> ScopeInput | None:
    """A scope read whole is checked at once, so its problems come with the other scopes' (`facts.limit: …`)."""
    if given is not None:
        problems_raise(scope.value, scope_problems(scope, given.scope_config()), where=scope.value)
    return given


def _scope_field(scope: Scope) -> Any:
    """A scope's config; left out it is not searched (null is refused, as an object is expected)."""
    return Annotated[ScopeInput, AfterValidator(partial(_scope_checked, scope))]


class SearchConfigInput(RequestModel):
    """A search config: any of the four scopes; a scope left out is not searched."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"minProperties": 1})

    facts: _scope_field(Scope.FACTS) = None  # type: ignore[valid-type]
    entities: _scope_field(Scope.ENTITIES) = None  # type: ignore[valid-type]
    episodes: _scope_field(Scope.EPISODES) = None  # type: ignore[valid-type]
    communities: _scope_field(Scope.COMMUNITIES) = None  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _config_checked(self) -> SearchConfigInput:
        problems_raise("config", _config_problems(self.search_config), where="config")
        return self

    @property
    def search_config(self) -> SearchConfig:
        return SearchConfig(**{scope.value: given.scope_config() for scope, given in self._scopes().items()})

    def _scopes(self) -> dict[Scope, ScopeInput]:
        return {scope: given for scope in Scope if (given := getattr(self, scope.value)) is not None}


def _config_problems(config: SearchConfig) -> list[str]:
    try:
        search_config_check(config)
    except InvalidInput as error:
        return error.problems
    return []


def _valid_at(value: Any) -> Any:
    """Search's own timestamp rule and wording (memoria.search.service.checked_valid_at), as a ValueError."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError("must be an ISO 8601 date-time string")
    try:
        return checked_valid_at(value)
    except InvalidInput as error:
        raise ValueError(error.problems[0].removeprefix("valid_at: ")) from None


ValidAt = Annotated[
    str | None,
    Field(description="ISO 8601 with a zone; only facts that held then", json_schema_extra={"format": "date-time"}),
    BeforeValidator(_valid_at),
]


class SearchBody(MemoryScope):
    """POST /api/search: a full config, scope by scope, and the memory scope searched (user_id, agent_id,
    session_id, metadata: every memory of the group when none is given)."""

    query: QueryText
    group: GroupName
    config: SearchConfigInput
    valid_at: ValidAt = None

    def request(self) -> SearchRequest:
        return SearchRequest(
            self.group, self.query.strip(), self.config.search_config, self.valid_at, scope=self.memory_scope()
        )


def _limit_text(value: Any) -> Any:
    """A URL's limit is text; MCP passes a number."""
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(text, str) or not text.isdigit() or not 1 <= int(text) <= MAX_LIMIT:
        raise ValueError(f"{value!r} is not a whole number in [1, {MAX_LIMIT}]")
    return int(text)


def _recipe_named(name: str | None) -> str | None:
    if name and (problem := recipe_problem(name)) is not None:
        raise ValueError(problem.removeprefix("recipe: "))
    return name


class SearchParameters(RequestModel):
    """GET /api/search?q=&group=&scope=&limit=&recipe=&valid_at=&center=: a named recipe."""

    q: QueryText
    group: GroupName
    scope: OneOf([*Scope, ALL_SCOPES]) = ALL_SCOPES  # type: ignore[valid-type]
    limit: Annotated[int, BeforeValidator(_limit_text)] = Field(
        default=DEFAULT_LIMIT, json_schema_extra=_bounds(1, MAX_LIMIT), description="results per scope"
    )
    recipe: Annotated[str | None, AfterValidator(_recipe_named)] = Field(
        default=None,
        description="a recipe of docs/search.md (default: the scope's hybrid_rrf, episodes_hybrid_graph_gated for"
        " episodes, or combined_hybrid_rrf);"
        " the *_cross_encoder ones only where MEMORIA_CROSS_ENCODER_MODEL names a model (none ships with Memoria)",
    )
    valid_at: ValidAt = None
    center: NodeId | None = Field(default=None, description="a node id, for the node_distance recipes")
    format: SkipJsonSchema[str | None] = None  # REST framework's own override of the answer's format
    user_id: ScopeId | None = Field(default=None, description="only the memories of this user")
    agent_id: ScopeId | None = Field(default=None, description="only the memories of this agent")
    session_id: ScopeId | None = Field(
        default=None, description="only the memories of this session (metadata filters: POST /api/search)"
    )

    @model_validator(mode="after")
    def _center_given(self) -> SearchParameters:
        name = self.recipe_name
        if self.center is None and any(c.reranker is Reranker.NODE_DISTANCE for c in RECIPES[name].scopes().values()):
            problems_raise("center", [f"center: recipe {name} ranks by distance from a node: give center=<node id>"])
        return self

    @property
    def recipe_name(self) -> str:
        return self.recipe or (SCOPE_DEFAULT_RECIPES[self.scope] if self.scope != ALL_SCOPES else COMBINED_RECIPE)

    def request(self) -> SearchRequest:
        """The recipe's config (InvalidInput when the scope asked for is not one it searches)."""
        config = recipe(self.recipe_name, limit=self.limit, center_node_id=self.center)
        if self.scope != ALL_SCOPES:
            config = config.only(Scope(self.scope))
        scope = MemoryScope(user_id=self.user_id, agent_id=self.agent_id, session_id=self.session_id)
        return SearchRequest(self.group, self.q.strip(), config, self.valid_at, scope=scope)
