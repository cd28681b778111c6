"""What each MCP tool takes: pydantic models on the shared vocabulary, unknown fields refused.

They check shape and bounds, and what the JSON schema an agent reads should say. The rules that already live
in the engine's own parsers (a search recipe's needs, an episode's text, a curation patch, retrieval
parameters) still run there afterwards, so no rule is written twice.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from memoria.api.episode_views import MAX_EPISODES_PER_REQUEST
from memoria.browse.neighbourhood import DEFAULT_LIMIT as DEFAULT_FACTS
from memoria.browse.neighbourhood import MAX_LIMIT as MAX_FACTS
from memoria.browse.neighbourhood import MAX_OFFSET
from memoria.context.request import ContextRequest
from memoria.curation.inputs import VERSION_PATTERN
from memoria.graph.kinds import EPISODE_SOURCES, RELATION_CATEGORIES
from memoria.graph.rules import MAX_NAME_LENGTH, MAX_QUERY_LENGTH, MAX_RELATION_LENGTH, MAX_TEXT_LENGTH
from memoria.ppr.request import MAX_TOP_K
from memoria.requests.moment import AsOfInput
from memoria.requests.vocabulary import (
    EntityId,
    EpisodeId,
    FactId,
    GroupName,
    NodeId,
    RequestModel,
    Tags,
    Timestamp,
    Weight,
)
from memoria.retrieval.params import MAX_SEEDS
from memoria.search.config import MAX_LIMIT, Scope
from memoria.search.recipes import RECIPES, offered_recipes

Query = Field(min_length=1, max_length=MAX_QUERY_LENGTH)
# What a default search_memory or retrieve call may cost the model that reads it (o200k_base tokens, measured by
# tests/mcp/test_http.py on hostile memories): few hits, each text cut, compact JSON.
SEARCH_DEFAULT_LIMIT = 5
DEFAULT_TEXT_TOKENS = 60
MAX_TEXT_TOKENS = 2000
DEFAULT_MAX_PATHS = 20
MAX_PATHS = 1000
SEARCH_DEFAULT_TOKENS = 3000
RETRIEVE_DEFAULT_TOKENS = 6000
LIST_EPISODES_DEFAULT = 10
LIST_EPISODES_MAX = 100
RECIPE_NAME_LENGTH = max(len(name) for name in RECIPES)
Version = Field(default=None, pattern=VERSION_PATTERN.pattern, description="the `version` a read answered")


def _offered_recipes_listed(schema: dict[str, Any]) -> None:
    """The schema lists the recipes offered when it is made (the cross-encoder's only with a model configured).
    The name itself is checked by the search request's parser, whose refusal says what a recipe needs."""
    for option in schema.get("anyOf", ()):
        if option.get("type") == "string":
            option["enum"] = list(offered_recipes())


class ListGroupsInput(RequestModel):
    pass


class SearchMemoryInput(RequestModel):
    group: GroupName
    query: str = Query
    scopes: list[Scope] | None = Field(
        default=None, min_length=1, description="what to search; default all four (facts, entities, episodes, …)"
    )
    recipe: str | None = Field(
        default=None,
        max_length=RECIPE_NAME_LENGTH,
        description="a named search configuration; default hybrid BM25 + cosine with RRF (episodes alone:"
        " episodes_hybrid_graph_gated, the same fused with a walk from the rare entities the query names)",
        json_schema_extra=_offered_recipes_listed,
    )
    limit: int = Field(default=SEARCH_DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="results per scope")
    text_tokens: int = Field(
        default=DEFAULT_TEXT_TOKENS,
        ge=1,
        le=MAX_TEXT_TOKENS,
        description="each hit's name and text cut to this many tokens (…); by default a call answers under"
        f" {SEARCH_DEFAULT_TOKENS} tokens",
    )
    valid_at: Timestamp | None = Field(default=None, description="only facts that held at this time")
    center: NodeId | None = Field(default=None, description="a node id, for the *_node_distance recipes")


class GetContextInput(ContextRequest):
    """POST /api/context's request, answering the text by default: an agent pastes the block, and pays for every
    token it reads (the JSON form repeats nothing, but its items still cost about twice the text)."""

    format: Literal["json", "text"] = Field(
        default="text",
        description="text (default): the block alone, ready for a prompt; json: also an item per line naming its"
        " source episodes, for citing",
    )


class EpisodeInput(RequestModel):
    content: str = Field(min_length=1, max_length=MAX_TEXT_LENGTH, description="the text to remember")
    id: NodeId | None = Field(default=None, description="your id for it; re-adding the same id changes nothing")
    name: str | None = Field(default=None, max_length=MAX_NAME_LENGTH)
    source: Literal[EPISODE_SOURCES] | None = None  # type: ignore[valid-type]
    source_description: str | None = Field(default=None, max_length=MAX_NAME_LENGTH)
    valid_at: Timestamp | None = Field(default=None, description="when it happened (default: now)")


class AddMemoryInput(RequestModel):
    group: GroupName
    episode: EpisodeInput | None = Field(default=None, description="one episode; or give `episodes`")
    episodes: list[EpisodeInput] | None = Field(
        default=None, min_length=1, max_length=MAX_EPISODES_PER_REQUEST, description="a batch, stored all or nothing"
    )
    update_communities: bool = True

    @model_validator(mode="after")
    def _one_of(self) -> AddMemoryInput:
        if (self.episode is None) == (self.episodes is None):
            raise ValueError("give exactly one of episode or episodes")
        return self

    def given(self) -> dict[str, Any] | list[dict[str, Any]]:
        """The batch as REST's body gives it (an episode object, or a list of them), for the one episode parser:
        its rules and words, a repeated id among them, apply to both faces."""
        if self.episode is not None:
            return self.episode.model_dump(exclude_none=True)
        return [episode.model_dump(exclude_none=True) for episode in self.episodes or ()]


class GetEntityInput(RequestModel):
    group: GroupName
    entity_id: EntityId


class GetFactsInput(AsOfInput):
    """An entity's facts; with none of the time fields every fact, ended ones included (as the explorer's view)."""

    group: GroupName
    entity_id: EntityId
    valid_at: Timestamp | None = Field(default=None, description="the older name of as_of")
    min_weight: Weight | None = None
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET)
    limit: int = Field(default=DEFAULT_FACTS, ge=1, le=MAX_FACTS)


class SeedInput(RequestModel):
    id: NodeId
    score: float = Field(default=1.0, gt=0, le=1, description="how strongly the retrieval starts here")


class RetrieveInput(AsOfInput):
    """A retrieval as REST and the websocket take it, at a moment (`as_of`, `known_at`, `include_invalidated`:
    memoria/graph/asof.py) like theirs."""

    group: GroupName
    algorithm: Literal["activation", "ppr"] = "activation"
    query: str | None = Field(default=None, min_length=1, max_length=MAX_QUERY_LENGTH)
    seeds: list[SeedInput] | None = Field(default=None, min_length=1, max_length=MAX_SEEDS)
    query_tags: Tags | None = Field(default=None, description="activation: tags that steer energy along facts")
    params: dict[str, Any] | None = Field(default=None, description="activation: engine parameters (docs/retrieval.md)")
    top_k: int | None = Field(default=None, ge=1, le=MAX_TOP_K, description="ppr: how many scored nodes")
    relation_aware: bool | None = Field(default=None, description="ppr: weigh relations for the query")
    max_paths: int = Field(
        default=DEFAULT_MAX_PATHS,
        ge=1,
        le=MAX_PATHS,
        description="activation: the strongest paths kept over all seeds (`paths_total` counts them all); by"
        f" default a call answers under {RETRIEVE_DEFAULT_TOKENS} tokens",
    )

    @model_validator(mode="after")
    def _seeds_or_query(self) -> RetrieveInput:
        if self.seeds is None and self.query is None:
            raise ValueError("give seeds or a query")
        return self

    def engine_request(self) -> dict[str, Any]:
        """The REST body of the same retrieval: the engine's own parser checks the rest (and names fields)."""
        body: dict[str, Any] = {"group": self.group}
        if self.query is not None:
            body["query"] = self.query
        if self.algorithm == "activation":
            if self.seeds is not None:
                body["seeds"] = [{"id": seed.id, "score": seed.score} for seed in self.seeds]
            optional = {"query_tags": self.query_tags, "params": self.params}
            misplaced = {"top_k": self.top_k, "relation_aware": self.relation_aware}
        else:
            if self.seeds is not None:
                body["seeds"] = [{"id": seed.id, "weight": seed.score} for seed in self.seeds]
            optional = {"top_k": self.top_k, "relation_aware": self.relation_aware}
            misplaced = {"query_tags": self.query_tags, "params": self.params}
        body.update({name: value for name, value in optional.items() if value is not None})
        body.update({name: value for name, value in misplaced.items() if value is not None})  # the parser names it
        moment = {"as_of": self.as_of, "known_at": self.known_at}
        body.update({name: value for name, value in moment.items() if value is not None})
        if self.include_invalidated:
            body["include_invalidated"] = True
        return body


class UpdateFactInput(RequestModel):
    group: GroupName
    fact_id: FactId
    relation: str | None = Field(default=None, min_length=1, max_length=MAX_RELATION_LENGTH)
    category: Literal[RELATION_CATEGORIES] | None = None  # type: ignore[valid-type]
    fact: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT_LENGTH)
    weight: Weight | None = None
    tags: Tags | None = None
    valid_at: Timestamp | None = None
    version: str | None = Version

    def patch(self) -> dict[str, Any]:
        """The REST PATCH body: only the fields given."""
        return self.model_dump(exclude={"group", "fact_id"}, exclude_none=True)


class InvalidateFactInput(RequestModel):
    group: GroupName
    fact_id: FactId
    invalid_at: Timestamp | None = Field(default=None, description="when it stopped holding (default: now)")
    version: str | None = Version


class StatusInput(RequestModel):
    pass


class GetFactInput(RequestModel):
    group: GroupName
    fact_id: FactId


class DeleteFactInput(RequestModel):
    group: GroupName
    fact_id: FactId
    version: str | None = Version


class ListEpisodesInput(RequestModel):
    group: GroupName
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET, description="episodes to skip (the last page's offset + limit)")
    limit: int = Field(
        default=LIST_EPISODES_DEFAULT, ge=1, le=LIST_EPISODES_MAX, description="episodes in this page, newest first"
    )
    text_tokens: int = Field(
        default=DEFAULT_TEXT_TOKENS,
        ge=1,
        le=MAX_TEXT_TOKENS,
        description="each episode's content cut to this many tokens",
    )


class DeleteEpisodeInput(RequestModel):
    group: GroupName
    episode_id: EpisodeId


class UndoInput(RequestModel):
    group: GroupName


class ClearGroupInput(RequestModel):
    group: GroupName
    confirm: GroupName = Field(description="the group's name once more: nothing is deleted unless the two match")

    @model_validator(mode="after")
    def _confirmed(self) -> ClearGroupInput:
        if self.confirm != self.group:
            raise ValueError("confirm: repeat the name of the group to clear; it differs from `group`")
        return self
