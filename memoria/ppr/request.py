"""A PPR request as callers send it (REST body, websocket frame, MCP tool): one pydantic model for all three.

Every problem names its field, so a 400 says exactly what to fix. Whether
seed ids belong to the group is checked by the service, against the group's
projection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from memoria.graph.asof import AsOf
from memoria.llm.modes import STEP_MODES, StepMode
from memoria.ppr.relations import BetasInput, RelationBetas
from memoria.projection.transition import DEFAULT_DAMPING
from memoria.requests.moment import AsOfInput
from memoria.requests.vocabulary import Flag, GroupName, ListOf, NodeId, QueryText, RequestModel, problems_raise
from memoria.retrieval.budget import BudgetLimits, PprBudgetInput, budget_limits
from memoria.retrieval.event_types import Algorithm

ALGORITHM = Algorithm.PPR
MAX_SEEDS = 1000
DEFAULT_TOP_K = 20
MAX_TOP_K = 1000
DEFAULT_SEED_WEIGHT = 1.0


@dataclass(frozen=True)
class SeedWeight:
    id: str
    weight: float = DEFAULT_SEED_WEIGHT


@dataclass(frozen=True)
class PprRequest:
    """`seeds` None and `query` None: every node restarts alike (global PageRank of the group)."""

    group: str
    seeds: tuple[SeedWeight, ...] | None = None
    query: str | None = None
    damping: float = DEFAULT_DAMPING
    top_k: int = DEFAULT_TOP_K
    directed: bool = False
    mentions: bool = True  # walk Episode→Entity MENTIONS links too (HippoRAG's passage nodes)
    relation_aware: bool = False
    # A query's seeds are the entities it names (memoria.linking.lexicon, IDF-weighted), not an entity search.
    linked: bool = False
    linked_max_share: float | None = None  # linked: leave out entities more than this share of episodes mention
    betas: RelationBetas | None = None  # relation-aware: the caller's β; None: chosen for the query
    betas_source: str = StepMode.AUTO  # who chooses β when the caller gives none: auto | offline | llm
    fact_filter: str = StepMode.AUTO  # who keeps the facts a query's seeds come from: auto | offline | llm
    budget: BudgetLimits | None = None  # time and rows (memoria/retrieval/budget.py); None: the server's ceilings
    moment: AsOf | None = None  # when facts count (memoria/graph/asof.py); None: now, as known now


def _weight(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ValueError("must be a finite number ≥ 0")
    return float(value)


def _damping(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise ValueError("must be a number strictly between 0 and 1")
    return float(value)


def _top_k(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TOP_K:
        raise ValueError(f"must be a whole number in [1, {MAX_TOP_K}]")
    return value


def _step_mode(value: Any) -> Any:
    if value not in STEP_MODES:
        raise ValueError(f"must be one of {', '.join(STEP_MODES)}")
    return value


def _ppr_only(value: Any) -> Any:
    if value != ALGORITHM:
        raise ValueError(f"must be {ALGORITHM.value!r} here")
    return value


StepChoice = Annotated[StepMode, BeforeValidator(_step_mode)]


class PprSeed(RequestModel):
    id: NodeId
    weight: Annotated[float, BeforeValidator(_weight), Field(ge=0)] = Field(
        default=DEFAULT_SEED_WEIGHT, description="its share of the restarts (seeds are normalised to sum 1)"
    )


class PprBody(AsOfInput):
    """POST /api/retrieval/ppr, the websocket's ppr frame and MCP's retrieve: seeds, a query, or neither (the
    group's global PageRank). Whether the seeds belong to the group is the service's check."""

    group: GroupName
    seeds: ListOf(PprSeed, "{id, weight}", non_empty=True, most=MAX_SEEDS) | None = None  # type: ignore[valid-type]
    query: QueryText | None = None
    damping: Annotated[float, BeforeValidator(_damping)] = Field(
        default=DEFAULT_DAMPING, json_schema_extra={"exclusiveMinimum": 0, "exclusiveMaximum": 1}
    )
    relation_aware: Flag = Field(default=False, description="weigh each relation category for the query (β)")
    linked: Flag = Field(default=False, description="seeds: the entities the query names")
    betas: BetasInput | None = Field(default=None, description="relation_aware: the β to use")
    betas_source: StepChoice = Field(default=StepMode.AUTO, description="relation_aware: who chooses β")
    filter: StepChoice = Field(default=StepMode.AUTO, description="relation_aware: who keeps the query's facts")
    top_k: Annotated[int, BeforeValidator(_top_k), Field(ge=1, le=MAX_TOP_K)] = DEFAULT_TOP_K
    directed: Flag = False
    mentions: Flag = Field(default=True, description="walk the Episode→Entity MENTIONS links too")
    budget: PprBudgetInput | None = None
    algorithm: SkipJsonSchema[Annotated[Any, BeforeValidator(_ppr_only)]] = ALGORITHM
    type: SkipJsonSchema[Any] = None  # the websocket frame's own key

    @field_validator("seeds")
    @classmethod
    def _distinct_and_weighed(cls, seeds: list[PprSeed] | None) -> list[PprSeed] | None:
        problems, seen = [], set()
        for index, seed in enumerate(seeds or ()):
            if seed.id in seen:
                problems.append(f"seeds[{index}].id: {seed.id!r} is given twice")
            seen.add(seed.id)
        if seeds and not problems and not any(seed.weight > 0 for seed in seeds):
            problems.append("seeds: at least one weight must be above 0 (they are normalised to sum 1)")
        problems_raise("seeds", problems, where="seeds")
        return seeds

    @model_validator(mode="after")
    def _fields_agree(self) -> PprBody:
        given, seeds, query, aware = (
            self.model_fields_set,
            self.seeds is not None,
            self.query is not None,
            self.relation_aware,
        )
        problems = []
        if seeds and query and not aware:
            problems.append("seeds or query: give seeds, or a query to find them, not both (both: relation_aware only)")
        if self.linked and (not query or seeds or aware):
            problems.append("linked: seeds from the entities a query names: give a query, no seeds, no relation_aware")
        if self.betas is not None and not aware:
            problems.append("betas: only used with relation_aware: true")
        if aware and not query and self.betas is None:
            problems.append("relation_aware: give a query (β and seeds are chosen for it) or betas")
        if "betas_source" in given and aware and self.betas is not None:
            problems.append("betas_source: β are given in betas; give one or the other")
        if "filter" in given and aware and (seeds or not query):
            problems.append("filter: only used when the seeds come from the query's facts (a query and no seeds)")
        if not aware:
            problems += [
                f"{name}: only used with relation_aware: true" for name in ("betas_source", "filter") if name in given
            ]
        problems_raise("body", problems)
        return self

    def request(self) -> PprRequest:
        return PprRequest(
            group=self.group,
            seeds=tuple(SeedWeight(seed.id, seed.weight) for seed in self.seeds) if self.seeds is not None else None,
            query=self.query.strip() if self.query is not None else None,
            damping=self.damping,
            top_k=self.top_k,
            directed=self.directed,
            mentions=self.mentions,
            relation_aware=self.relation_aware,
            linked=self.linked,
            betas=self.betas.betas() if self.betas is not None else None,
            betas_source=self.betas_source,
            fact_filter=self.filter,
            budget=budget_limits(self.budget, ppr=True),
            moment=self.resolved(),
        )
