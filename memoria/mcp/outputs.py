"""What each MCP tool answers, as pydantic models so the tools publish an output schema.

The shapes are the REST answers' (docs/api.md); parts that REST documents as open objects stay open here.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class GroupSummary(BaseModel):
    group: str
    episodes: int
    entities: int
    communities: int
    facts: int


class ListGroupsOutput(BaseModel):
    role: str | None = Field(description="your role: viewer reads, curator also edits, admin sees every group")
    groups: list[GroupSummary]


class SearchHit(BaseModel):
    id: str
    name: str
    text: str
    score: float
    scores: dict[str, float] = Field(description="each search method's own score")
    source: str | None = Field(default=None, description="facts only: the subject entity's id")
    target: str | None = Field(default=None, description="facts only: the object entity's id")
    valid_at: str | None = Field(default=None, description="facts only: when it started to hold")
    invalid_at: str | None = Field(default=None, description="facts only: when it stopped holding (None: holds)")
    version: str | None = Field(default=None, description="facts only: its version, to send back with an edit")


class SearchMemoryOutput(BaseModel):
    facts: list[SearchHit]
    entities: list[SearchHit]
    episodes: list[SearchHit]
    communities: list[SearchHit]


class EpisodeResult(BaseModel):
    episode_id: str
    name: str
    added: bool = Field(description="false: an episode with this id was already stored and is left unchanged")
    entities: list[str]
    entities_created: list[str]
    facts_created: list[str]
    facts_merged: list[str]
    facts_invalidated: list[str]
    touched_entities: list[str]
    communities: list[str]
    communities_error: str | None


class AddMemoryOutput(BaseModel):
    group: str
    added: int
    unchanged: int
    episodes: list[EpisodeResult]


class GetEntityOutput(BaseModel):
    entity: dict[str, Any] = Field(description="id, name, kind, labels, degree, community, summary, attributes, …")
    fact_total: int = Field(description="facts touching it (get_facts lists them)")
    episodes: list[dict[str, Any]] = Field(description="the newest episodes that mention it: id, name, valid_at")
    episode_total: int


class GetFactsOutput(BaseModel):
    entity: dict[str, Any]
    facts: list[dict[str, Any]] = Field(
        description="id, source, target, relation, fact, weight, tags, valid_at, invalid_at, version (to send back"
        " with an edit), …"
    )
    total: int = Field(description="facts that pass the filter")
    more: int = Field(description="facts after this page (raise offset to read them)")


class RetrieveOutput(BaseModel):
    algorithm: str
    result: dict[str, Any] = Field(
        description="activation: per seed its strongest paths, each hop with its fact (edge_id), relation,"
        " direction, the node reached and its energy (detail full: the REST answer of /api/retrieval/activation);"
        " ppr: scored nodes, passages, iterations (the REST answer of /api/retrieval/ppr)"
    )


class CurationOutput(BaseModel):
    entry: dict[str, Any] | None = Field(description="the audit entry (undo it in the audit page or API)")
    reindexed: int | None
    fact: dict[str, Any] | None = Field(description="the fact as it is now, with its new version (None: deleted)")


class ClearGroupOutput(BaseModel):
    group: str
    nodes_deleted: int = Field(description="episodes, entities and communities deleted (their facts went with them)")


class UndoOutput(BaseModel):
    entry: dict[str, Any] = Field(description="the undo's own audit entry; `undoes` is the id of the change taken back")
    reindexed: int | None


class DeleteEpisodeOutput(BaseModel):
    entry: dict[str, Any] = Field(description="the audit entry: it keeps the episode, its mentions and facts whole")
    reindexed: int | None
    facts_deleted: list[str] = Field(description="ids of the facts drawn from this episode alone, deleted with it")
    facts_kept: list[str] = Field(description="ids of the facts other episodes also support: they stay, without it")


class GetFactOutput(BaseModel):
    fact: dict[str, Any] = Field(
        description="id, source and target ({id, name, labels}), relation, category, fact, weight, tags, valid_at,"
        " invalid_at, expired_at, the episodes it came from, and `version` (send it back with an edit)"
    )


class EpisodeSummary(BaseModel):
    id: str = Field(description="the episode's id")
    name: str
    valid_at: str | None = Field(description="when it happened")
    created_at: str | None = Field(description="when it was stored")
    source: str | None
    content: str = Field(description="its text, cut to `text_tokens`")
    user_id: str | None = Field(default=None, description="the user it belongs to, if any")
    agent_id: str | None = Field(default=None, description="the agent it belongs to, if any")
    session_id: str | None = Field(default=None, description="the session it came from, if any")
    metadata: dict[str, Any] | None = Field(default=None, description="its metadata, if any")


class ListEpisodesOutput(BaseModel):
    episodes: list[EpisodeSummary] = Field(description="newest first")
    total: int = Field(description="episodes in the group (of the scope given)")
    more: int = Field(description="episodes after this page (raise offset to read them)")


class GraphStatus(BaseModel):
    status: str = Field(description="up or down")
    detail: str
    dialect: str | None = Field(description="the graph server's Cypher dialect (arcadedb or neo4j)")
    latency_ms: float | None


class StatusOutput(BaseModel):
    status: str = Field(description="ok, or degraded while the graph server does not answer")
    graph: GraphStatus
    user: str = Field(description="who the token belongs to")
    role: str | None = Field(description="viewer reads, curator also edits, admin sees every group")
    groups: int | None = Field(
        description="how many groups you may read (list_groups names them); None while the graph is down"
    )


class ContextOutput(BaseModel):
    group: str
    query: str
    as_of: str | None
    budget_tokens: int
    used_tokens: int = Field(description="tokens of `text` in o200k_base (GPT-4o's tokenizer); never above the budget")
    left_out: int = Field(description="candidates that did not fit in the budget")
    text: str | None = Field(
        default=None, description="format json: the block (format text: the block is the tool's text content)"
    )
    items: list[dict[str, Any]] | None = Field(
        default=None,
        description="format json: per line of `text`, its kind (fact, chain, episode, entity), id, line index,"
        " tokens and source episodes [{id, name}]",
    )
