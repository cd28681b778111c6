"""What each MCP tool takes: pydantic models on the shared vocabulary, unknown fields refused.

They check shape and bounds, and what the JSON schema an agent reads should say. The rules that already live
in the engine's own parsers (a search recipe's needs, an episode's text, a curation patch, retrieval
parameters) still run there afterwards, so no rule is written twice.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from memoria.api.episode_views import MAX_EPISODES_PER_REQUEST
from memoria.browse.neighbourhood import DEFAULT_LIMIT as DEFAULT_FACTS
from memoria.browse.neighbourhood import MAX_LIMIT as MAX_FACTS
from memoria.browse.neighbourhood import MAX_OFFSET
from memoria.context.request import ContextRequest
from memoria.curation.inputs import VERSION_PATTERN
from memoria.graph.kinds import EPISODE_SOURCES, RELATION_CATEGORIES
from memoria.graph.rules import MAX_NAME_LENGTH, MAX_QUERY_LENGTH, MAX_RELATION_LENGTH, MAX_TEXT_LENGTH
from memoria.ingest.episodes import CHAT_ROLES, Speaker
from memoria.ppr.request import MAX_TOP_K
from memoria.requests.moment import AsOfInput
from memoria.requests.scope import MemoryScope
from memoria.requests.vocabulary import (
    MAX_METADATA_KEYS,
    METADATA_KEY_PATTERN,
    EntityId,
    EpisodeId,
    FactId,
    GroupName,
    NodeId,
    OneOf,
    PatternText,
    RequestModel,
    ScopeId,
    Tags,
    Timestamp,
    Weight,
    input_parse,
)
from memoria.retrieval.params import BOUNDS, MAX_SEEDS, ActivationParams
from memoria.search.config import MAX_LIMIT, Scope
from memoria.search.recipes import RECIPES, offered_recipes

QUERY_EXAMPLES = ["stockouts in Lyon", "Where did Alice move to?"]
# What a default search_memory or retrieve call may cost the model that reads it (o200k_base tokens, measured by
# tests/mcp/test_http.py on hostile memories): few hits, each text cut, compact JSON.
SEARCH_DEFAULT_LIMIT = 5
DEFAULT_TEXT_TOKENS = 60
NAME_TOKENS = 24
MAX_TEXT_TOKENS = 2000
DEFAULT_MAX_PATHS = 12
MAX_PATHS = 1000
DEFAULT_ANSWER_TOKENS = 2000  # o200k_base: a default search_memory or retrieve answer, on the demo and hostile
LIST_EPISODES_DEFAULT = 10
LIST_EPISODES_MAX = 100
RECIPE_NAME_LENGTH = max(len(name) for name in RECIPES)
Version = Field(
    default=None,
    pattern=VERSION_PATTERN.pattern,
    description="the fact's `version` as your last read answered it (get_fact, get_facts, search_memory): the"
    " change is refused (`conflict`) if the fact changed since; leave it out to change it whatever it is now",
)


def _offset(what: str) -> Any:
    return Field(
        default=0,
        ge=0,
        le=MAX_OFFSET,
        description=f"{what} to skip: the last page's offset + limit (`more` says how many are left); default 0",
    )


def _page_limit(what: str, default: int, most: int) -> Any:
    return Field(default=default, ge=1, le=most, description=f"{what} in this page: 1–{most}, default {default}")


def _offered_recipes_listed(schema: dict[str, Any]) -> None:
    """The schema lists the recipes offered when it is made (the cross-encoder's only with a model configured).
    The name itself is checked by the search request's parser, whose refusal says what a recipe needs."""
    for option in schema.get("anyOf", ()):
        if option.get("type") == "string":
            option["enum"] = list(offered_recipes())


MetadataKey = PatternText(
    METADATA_KEY_PATTERN, "a metadata key: 1–64 letters, digits or _.- starting with a letter or _", "a metadata key"
)


class MetadataEntry(RequestModel):
    """One metadata key and its value: a list of these, not an object, since strict clients accept no open object
    (REST takes the object itself)."""

    key: MetadataKey = Field(examples=["channel"])
    value: str | float | bool = Field(description="its value: a text, a number or true/false", examples=["support"])


class ScopeInput(RequestModel):
    """Whose memories a tool adds or reads (memoria/requests/scope.py): checked again, in its words, as a
    MemoryScope, so a scope means one thing over REST and MCP."""

    user_id: ScopeId | None = Field(
        default=None,
        description="a user's id: adding, the memories are theirs; reading, only theirs",
        examples=["alice"],
    )
    agent_id: ScopeId | None = Field(
        default=None, description="an agent's id: adding, the memories are its own; reading, only its own"
    )
    session_id: ScopeId | None = Field(
        default=None, description="a session's id (a chat, a run): adding, they came from it; reading, only its"
    )
    metadata: list[MetadataEntry] | None = Field(
        default=None,
        max_length=MAX_METADATA_KEYS,
        description=f"free metadata as key/value pairs, at most {MAX_METADATA_KEYS}: adding, stored with the"
        " memories; reading, only memories with every pair",
        examples=[[{"key": "channel", "value": "support"}]],
    )

    @field_validator("metadata")
    @classmethod
    def _keys_once(cls, entries: list[MetadataEntry] | None) -> list[MetadataEntry] | None:
        keys = [entry.key for entry in entries or ()]
        if twice := sorted({key for key in keys if keys.count(key) > 1}):
            raise ValueError(f"key {twice[0]!r} given twice")
        return entries

    def scope_given(self) -> dict[str, Any]:
        """The scope as REST's body gives it (metadata an object)."""
        given: dict[str, Any] = {name: getattr(self, name) for name in ("user_id", "agent_id", "session_id")}
        if self.metadata is not None:
            given["metadata"] = {entry.key: entry.value for entry in self.metadata}
        return {name: value for name, value in given.items() if value is not None}

    def memory_scope(self) -> MemoryScope:
        return input_parse(MemoryScope, self.scope_given())


class ListGroupsInput(RequestModel):
    pass


class SearchMemoryInput(ScopeInput):
    group: GroupName
    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_LENGTH,
        description=f"what to look for: a question or keywords, 1–{MAX_QUERY_LENGTH} characters",
        examples=QUERY_EXAMPLES,
    )
    scopes: list[Scope] | None = Field(
        default=None,
        min_length=1,
        description="which kinds of memory to search: facts, entities, episodes, communities; default all four",
        examples=[["facts", "episodes"]],
    )
    recipe: str | None = Field(
        default=None,
        max_length=RECIPE_NAME_LENGTH,
        description="a named search configuration; default hybrid BM25 + cosine with RRF (episodes alone:"
        " episodes_hybrid_graph_gated, the same fused with a walk from the rare entities the query names)",
        json_schema_extra=_offered_recipes_listed,
    )
    limit: int = Field(
        default=SEARCH_DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description=f"hits per scope, best first: 1–{MAX_LIMIT}, default {SEARCH_DEFAULT_LIMIT}",
    )
    text_tokens: int = Field(
        default=DEFAULT_TEXT_TOKENS,
        ge=1,
        le=MAX_TEXT_TOKENS,
        description=f"each hit's text cut to this many tokens (o200k_base, GPT-4o's), its name to at most"
        f" {NAME_TOKENS}: 1–{MAX_TEXT_TOKENS}, default {DEFAULT_TEXT_TOKENS}; with the defaults an answer stays"
        f" under {DEFAULT_ANSWER_TOKENS} tokens",
    )
    valid_at: Timestamp | None = Field(
        default=None, description="only facts that held at this moment (ISO 8601 with a zone); default: now"
    )
    include_invalidated: bool = Field(
        default=False,
        description="true: facts that ended (invalidated) are found too, each with its invalid_at, for history;"
        " not with valid_at; default false: only facts that hold now",
    )

    @model_validator(mode="after")
    def _one_moment(self) -> SearchMemoryInput:
        if self.include_invalidated and self.valid_at is not None:
            raise ValueError("include_invalidated: true finds facts of every time, so it cannot come with valid_at")
        return self

    center: NodeId | None = Field(
        default=None, description="an entity's id, the node the *_node_distance recipes rank by distance from"
    )


class GetContextInput(ScopeInput, ContextRequest):
    """POST /api/context's request, answering the text by default: an agent pastes the block, and pays for every
    token it reads (the JSON form repeats nothing, but its items still cost about twice the text)."""

    format: Literal["json", "text"] = Field(
        default="text",
        description="text (default): the block alone, ready for a prompt; json: also an item per line naming its"
        " source episodes, for citing",
    )


class EpisodeInput(RequestModel):
    content: str = Field(
        min_length=1,
        max_length=MAX_TEXT_LENGTH,
        description=f"the text to remember: a message, a note, a document or JSON; 1–{MAX_TEXT_LENGTH} characters",
        examples=["Alice Martin moved to the Rotterdam port in March."],
    )
    id: NodeId | None = Field(
        default=None,
        description="your id for this episode (1–200 letters, digits or ._:/@#-); adding the same id again changes"
        " nothing; default: one derived from the content",
    )
    name: str | None = Field(
        default=None,
        max_length=MAX_NAME_LENGTH,
        description=f"a short title shown with it, at most {MAX_NAME_LENGTH} characters",
        examples=["Planner message 12"],
    )
    source: Literal[EPISODE_SOURCES] | None = Field(  # type: ignore[valid-type]
        default=None, description="what the content is: message (a chat turn, the default), text or json"
    )
    source_description: str | None = Field(
        default=None,
        max_length=MAX_NAME_LENGTH,
        description=f"where it came from, in words, at most {MAX_NAME_LENGTH} characters",
        examples=["support chat"],
    )
    valid_at: Timestamp | None = Field(
        default=None, description="when it happened (ISO 8601 with a zone); default: now"
    )


class MessageInput(RequestModel):
    role: OneOf(CHAT_ROLES) = Field(description="who spoke: user, assistant, system or tool")  # type: ignore[valid-type]
    name: Speaker | None = Field(
        default=None, description="the speaker's name (1–100 characters), when the role is not enough"
    )
    content: str = Field(
        min_length=1, max_length=MAX_TEXT_LENGTH, description="what was said", examples=["I moved to Lyon in March."]
    )


class AddMemoryInput(ScopeInput):
    """`episodes` or `messages`: "exactly one of" cannot be said in a schema that strict clients accept (they
    refuse a union at the root), so the descriptions say it and the model checks it."""

    group: GroupName
    episodes: list[EpisodeInput] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_EPISODES_PER_REQUEST,
        description=f"the episodes to remember, 1–{MAX_EPISODES_PER_REQUEST} (one is a list of one); stored all or"
        " nothing: if one is refused, none is written. Give `episodes` or `messages`, not both",
    )
    messages: list[MessageInput] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_EPISODES_PER_REQUEST,
        description=f"chat messages to remember, 1–{MAX_EPISODES_PER_REQUEST}, in order: one episode each, its text"
        " `name (role): content`. Give `episodes` or `messages`, not both",
        examples=[[{"role": "user", "name": "Alice", "content": "I moved to Lyon in March."}]],
    )
    update_communities: bool = Field(
        default=True,
        description="re-cluster the communities the new entities join, so community summaries include them; false"
        " is faster for a large import (communities can be updated later); default true",
    )

    @model_validator(mode="after")
    def _episodes_or_messages(self) -> AddMemoryInput:
        if (self.episodes is None) == (self.messages is None):
            raise ValueError("give `episodes` or `messages`, not both nor neither")
        return self

    def given(self) -> Any:
        """The request as REST's body gives it, for the one episode parser: its rules and words, a repeated id
        among them, apply to both faces; the scope goes with every episode."""
        scope = self.scope_given()
        if self.messages is not None:
            return {"messages": [message.model_dump(exclude_none=True) for message in self.messages], **scope}
        assert self.episodes is not None  # checked above
        return [{**episode.model_dump(exclude_none=True), **scope} for episode in self.episodes]


class GetEntityInput(RequestModel):
    group: GroupName
    entity_id: EntityId


class GetFactsInput(AsOfInput):
    """An entity's facts at a moment: now when no time field is given, every fact with `include_invalidated`."""

    group: GroupName
    entity_id: EntityId
    valid_at: Timestamp | None = Field(default=None, description="the older name of `as_of`: give one of them")
    min_weight: Weight | None = Field(
        default=None, description="only facts at least this strong (weights run from 0.25 to 1); default: all"
    )
    offset: int = _offset("facts")
    limit: int = _page_limit("facts", DEFAULT_FACTS, MAX_FACTS)


class SeedInput(RequestModel):
    id: NodeId = Field(description="an entity's id to start from (search_memory or get_entity give it)")
    score: float = Field(
        default=1.0, gt=0, le=1, description="how strongly the retrieval starts here, in (0, 1]; default 1"
    )


def _activation_parameter(name: str, what: str) -> Any:
    """One of the engine's parameters (memoria/retrieval/params.py) as its own field, with the engine's bounds
    and default; the engine's parser checks it again, in its words. Fields rather than a `params` object: an
    open object makes strict clients give up on the whole tool."""
    _, low, high, low_ok = BOUNDS[name]
    interval = f"{'[' if low_ok else '('}{low:g}, {high:g}]"
    return Field(
        default=None,
        ge=low if low_ok else None,
        gt=None if low_ok else low,
        le=high,
        description=f"activation: {what}, in {interval}; default {getattr(ActivationParams(), name):g}",
    )


class RetrieveInput(AsOfInput, ScopeInput):
    """A retrieval as REST and the websocket take it, at a moment (`as_of`, `known_at`, `include_invalidated`:
    memoria/graph/asof.py) like theirs. Give `query`, `seeds` or both (said in their descriptions: a schema that
    requires one of two fields is refused by strict clients)."""

    group: GroupName
    algorithm: Literal["activation", "ppr"] = Field(
        default="activation",
        description="activation (default): spread energy along facts and answer the paths it took; ppr: rank"
        " nodes by Personalized PageRank from the seeds",
    )
    query: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_QUERY_LENGTH,
        description="what the retrieval is about; without `seeds`, the entities it finds are the seeds. Give"
        " `query`, `seeds` or both",
        examples=QUERY_EXAMPLES,
    )
    seeds: list[SeedInput] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_SEEDS,
        description=f"1–{MAX_SEEDS} entities to start from, each with a score. Give `query`, `seeds` or both",
    )
    query_tags: Tags | None = Field(
        default=None,
        description="activation: tags that steer energy along facts tagged alike; default: the query's words",
        examples=[["logistics", "stock"]],
    )
    max_depth: int | None = _activation_parameter("max_depth", "the most hops a path takes")
    min_activation: float | None = _activation_parameter(
        "min_activation", "a hop is taken only when the energy it passes on exceeds this"
    )
    tag_sim_floor: float | None = _activation_parameter(
        "tag_sim_floor", "the share of energy a fact passes on when its tags share none of the query's"
    )
    max_branches: int | None = _activation_parameter("max_branches", "facts followed from each node")
    top_k: int | None = Field(
        default=None, ge=1, le=MAX_TOP_K, description=f"ppr: how many scored nodes it answers, 1–{MAX_TOP_K}"
    )
    relation_aware: bool | None = Field(
        default=None, description="ppr: weigh each relation category by how much the query asks for it"
    )
    max_paths: int = Field(
        default=DEFAULT_MAX_PATHS,
        ge=1,
        le=MAX_PATHS,
        description=f"activation: the strongest paths kept over all seeds (`paths_total` counts them all):"
        f" 1–{MAX_PATHS}, default {DEFAULT_MAX_PATHS}",
    )
    detail: Literal["compact", "full"] = Field(
        default="compact",
        description=f"activation: compact (default) gives each hop's fact (edge_id), relation, direction, next node"
        f" and energy, so an answer with the defaults stays under {DEFAULT_ANSWER_TOKENS} tokens; full gives"
        " REST's answer whole: each hop's weight, degree, tag similarity and parent energy, the engine and budget",
    )

    def _parameters(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in BOUNDS if getattr(self, name) is not None}

    @model_validator(mode="after")
    def _seeds_or_query(self) -> RetrieveInput:
        if self.seeds is None and self.query is None:
            raise ValueError("give seeds or a query")
        return self

    def engine_request(self) -> dict[str, Any]:
        """The REST body of the same retrieval: the engine's own parser checks the rest (and names fields)."""
        body: dict[str, Any] = {"group": self.group, **self.scope_given()}  # activation: the seeds' scope
        if self.query is not None:
            body["query"] = self.query
        if self.algorithm == "activation":
            if self.seeds is not None:
                body["seeds"] = [{"id": seed.id, "score": seed.score} for seed in self.seeds]
            optional = {"query_tags": self.query_tags, "params": self._parameters() or None}
            misplaced = {"top_k": self.top_k, "relation_aware": self.relation_aware}
        else:
            if self.seeds is not None:
                body["seeds"] = [{"id": seed.id, "weight": seed.score} for seed in self.seeds]
            optional = {"top_k": self.top_k, "relation_aware": self.relation_aware}
            misplaced = {"query_tags": self.query_tags, **self._parameters()}
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
    relation: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_RELATION_LENGTH,
        description=f"the relation's new name, 1–{MAX_RELATION_LENGTH} characters; default: unchanged",
        examples=["works at"],
    )
    category: Literal[RELATION_CATEGORIES] | None = Field(  # type: ignore[valid-type]
        default=None, description="the relation's new category; default: unchanged"
    )
    fact: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_TEXT_LENGTH,
        description="the fact's new sentence; default: unchanged",
        examples=["Alice Martin works at the Rotterdam port."],
    )
    weight: Weight | None = Field(
        default=None, description="how strong the fact is, 0.25 (weak) to 1 (certain); default: unchanged"
    )
    tags: Tags | None = Field(
        default=None, description="the fact's tags, replacing the old ones; default: unchanged", examples=[["hr"]]
    )
    valid_at: Timestamp | None = Field(
        default=None, description="when the fact started to hold (ISO 8601 with a zone); default: unchanged"
    )
    version: str | None = Version

    def patch(self) -> dict[str, Any]:
        """The REST PATCH body: only the fields given."""
        return self.model_dump(exclude={"group", "fact_id"}, exclude_none=True)


class InvalidateFactInput(RequestModel):
    group: GroupName
    fact_id: FactId
    invalid_at: Timestamp | None = Field(
        default=None, description="when the fact stopped holding (ISO 8601 with a zone); default: now"
    )
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


class ListEpisodesInput(ScopeInput):
    group: GroupName
    offset: int = _offset("episodes")
    limit: int = _page_limit("episodes", LIST_EPISODES_DEFAULT, LIST_EPISODES_MAX)
    text_tokens: int = Field(
        default=DEFAULT_TEXT_TOKENS,
        ge=1,
        le=MAX_TEXT_TOKENS,
        description=f"each episode's content cut to this many tokens (o200k_base): 1–{MAX_TEXT_TOKENS}, default"
        f" {DEFAULT_TEXT_TOKENS}",
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
