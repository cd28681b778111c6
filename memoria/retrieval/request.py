"""A retrieval request as callers send it (REST body, websocket frame, MCP tool): one pydantic model for all three,
so they answer alike, resolved into what the engine takes. Every problem names its field.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from memoria.graph.asof import AsOf
from memoria.graph.rules import MAX_TAGS
from memoria.requests.moment import AsOfInput
from memoria.requests.scope import MemoryScope
from memoria.requests.vocabulary import (
    Flag,
    GroupName,
    ListOf,
    NodeId,
    PatternText,
    QueryText,
    RequestModel,
    Tag,
    problems_raise,
)
from memoria.retrieval.activation import Seed
from memoria.retrieval.budget import BudgetInput, BudgetLimits, budget_limits
from memoria.retrieval.engines import ENGINES
from memoria.retrieval.params import MAX_SEEDS, ActivationParams, ActivationParamsInput

RETRIEVAL_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# A retrieval's id as frames and the journal name it; matched whole, so a final newline is not part of one.
RetrievalId = PatternText(RETRIEVAL_ID, "1–64 letters, digits, '_' or '-'", "a retrieval's id")


@dataclass(frozen=True)
class ActivationRequest:
    group: str
    query: str | None = None
    query_tags: tuple[str, ...] | None = None
    seeds: tuple[Seed, ...] | None = None
    params: ActivationParams = field(default_factory=ActivationParams)
    explain: bool = False
    budget: BudgetLimits | None = None  # None: the server's ceilings
    engine: str | None = None  # auto, cypher or view; None: the server's default (memoria/retrieval/engines.py)
    moment: AsOf | None = None  # when facts count (memoria/graph/asof.py); None: now, as known now
    scope: MemoryScope | None = None  # seeds found by the query only among this memory scope's entities


def _score(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError("must be a number in (0, 1]")
    if not 0 < value <= 1:
        raise ValueError(f"{value} is outside (0, 1]")
    return float(value)


def _engine(value: Any) -> Any:
    if value is not None and value not in ENGINES:
        raise ValueError(f"must be one of {', '.join(ENGINES)}")
    return value


class SeedInput(RequestModel):
    id: NodeId
    score: Annotated[float, BeforeValidator(_score), Field(gt=0, le=1, description="the energy it starts with")]


class ActivationBody(AsOfInput, MemoryScope):
    """POST /api/retrieval/activation and the websocket's activation frame: seeds, or a query to find them (among a
    memory scope's entities when user_id, agent_id, session_id or metadata is given)."""

    group: GroupName
    query: QueryText | None = None
    query_tags: ListOf(Tag, "strings", most=MAX_TAGS) | None = Field(  # type: ignore[valid-type]
        default=None, description="tags that steer energy along facts; default: the query's"
    )
    seeds: ListOf(SeedInput, "{id, score}", non_empty=True, most=MAX_SEEDS) | None = None  # type: ignore[valid-type]
    params: ActivationParamsInput | None = None
    explain: Flag = Field(default=False, description="say why each hop was taken or not")
    budget: BudgetInput | None = None
    engine: Annotated[Literal[ENGINES] | None, BeforeValidator(_engine)] = Field(  # type: ignore[valid-type]
        default=None,
        description="which engine runs it (memoria/retrieval/engines.py); default: the server's",
    )
    # The websocket frame's own keys, read by the consumer before the body is.
    type: SkipJsonSchema[Any] = None
    algorithm: SkipJsonSchema[Any] = None

    @field_validator("seeds")
    @classmethod
    def _distinct(cls, seeds: list[SeedInput] | None) -> list[SeedInput] | None:
        seen: set[str] = set()
        twice = []
        for index, seed in enumerate(seeds or ()):
            if seed.id in seen:
                twice.append(f"seeds[{index}].id: {seed.id!r} is given twice")
            seen.add(seed.id)
        problems_raise("seeds", twice, where="seeds")
        return seeds

    @model_validator(mode="after")
    def _seeds_or_query(self) -> ActivationBody:
        if self.seeds is None and self.query is None:
            problems_raise("body", ["seeds or query: give seeds ([{id, score}]) or a query text to find them"])
        return self

    def request(self) -> ActivationRequest:
        return ActivationRequest(
            group=self.group,
            query=self.query,
            query_tags=tuple(dict.fromkeys(self.query_tags)) if self.query_tags is not None else None,
            seeds=tuple(Seed(seed.id, seed.score) for seed in self.seeds) if self.seeds is not None else None,
            params=self.params.params() if self.params is not None else ActivationParams(),
            explain=self.explain,
            budget=budget_limits(self.budget),
            engine=self.engine,
            moment=self.resolved(),
            scope=self.memory_scope(),
        )
