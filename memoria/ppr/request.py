"""A PPR request as callers send it (REST body, later the websocket), validated field by field.

Every problem names its field, so a 400 says exactly what to fix. Whether
seed ids belong to the group is checked by the service, against the group's
projection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from memoria.accounts.roles import GROUP_PATTERN
from memoria.errors import InvalidInput, names_shown
from memoria.graph.asof import FIELDS, AsOf, as_of_parse
from memoria.graph.rules import ID_PATTERN
from memoria.graph.vocabulary import input_parse
from memoria.llm.modes import STEP_MODES, StepMode
from memoria.ppr.pagerank import DEFAULT_DAMPING
from memoria.ppr.relations import RelationBetas, betas_parse
from memoria.retrieval.budget import BudgetLimits, PprBudgetInput, budget_limits
from memoria.retrieval.event_types import Algorithm
from memoria.search.config import parse_query

REQUEST_KEYS = {
    "group",
    "seeds",
    "query",
    "damping",
    "relation_aware",
    "linked",
    "betas",
    "betas_source",
    "filter",
    "top_k",
    "directed",
    "mentions",
    "budget",
    *FIELDS,
}
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
    betas: RelationBetas | None = None  # relation-aware: the caller's β; None: chosen for the query
    betas_source: str = StepMode.AUTO  # who chooses β when the caller gives none: auto | offline | llm
    fact_filter: str = StepMode.AUTO  # who keeps the facts a query's seeds come from: auto | offline | llm
    budget: BudgetLimits | None = None  # time and rows (memoria/retrieval/budget.py); None: the server's ceilings
    moment: AsOf | None = None  # when facts count (memoria/graph/asof.py); None: now, as known now


def _number(raw: Any) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return None
    return float(raw)


def _seeds(raw: Any, problems: list[str]) -> tuple[SeedWeight, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        problems.append("seeds: must be a non-empty list of {id, weight}")
        return None
    if len(raw) > MAX_SEEDS:
        problems.append(f"seeds: at most {MAX_SEEDS} seeds, got {len(raw)}")
        return None
    seeds: dict[str, SeedWeight] = {}
    for index, item in enumerate(raw):
        where = f"seeds[{index}]"
        if not isinstance(item, dict) or "id" not in item or set(item) - {"id", "weight"}:
            problems.append(f"{where}: must be an object with an id and an optional weight")
            continue
        seed_id = item["id"]
        if not isinstance(seed_id, str) or not ID_PATTERN.match(seed_id):
            problems.append(f"{where}.id: must be a node id")
            continue
        weight = _number(item.get("weight", DEFAULT_SEED_WEIGHT))
        if weight is None or weight < 0:
            problems.append(f"{where}.weight: must be a finite number ≥ 0")
            continue
        if seed_id in seeds:
            problems.append(f"{where}.id: {seed_id!r} is given twice")
            continue
        seeds[seed_id] = SeedWeight(seed_id, weight)
    if seeds and len(seeds) == len(raw) and not any(seed.weight > 0 for seed in seeds.values()):
        problems.append("seeds: at least one weight must be above 0 (they are normalised to sum 1)")
    return tuple(seeds.values())


def _flag(raw: dict[str, Any], name: str, default: bool, problems: list[str]) -> bool:
    value = raw.get(name, default)
    if not isinstance(value, bool):
        problems.append(f"{name}: must be true or false")
        return default
    return value


def parse_ppr_request(raw: Any) -> PprRequest:
    """Check a decoded JSON body; InvalidInput lists every problem."""
    if not isinstance(raw, dict):
        raise InvalidInput("body: must be a JSON object")
    problems: list[str] = []
    unknown = sorted(set(raw) - REQUEST_KEYS - {"type", "algorithm"})
    if unknown:
        problems.append(f"unknown field(s): {names_shown(unknown)} (known: {', '.join(sorted(REQUEST_KEYS))})")
    if raw.get("algorithm", ALGORITHM) != ALGORITHM:
        problems.append(f"algorithm: must be {ALGORITHM.value!r} here")
    group = raw.get("group")
    if not isinstance(group, str) or not GROUP_PATTERN.match(group):
        problems.append("group: is required: 1–64 letters, digits, '_' or '-'")
    seeds = _seeds(raw.get("seeds"), problems)
    query = None
    if raw.get("query") is not None:
        try:
            query = parse_query(raw["query"])
        except InvalidInput as error:
            problems.extend(error.problems)
    relation_aware = _flag(raw, "relation_aware", False, problems)
    if raw.get("seeds") is not None and raw.get("query") is not None and not relation_aware:
        problems.append("seeds or query: give seeds, or a query to find them, not both (both: relation_aware only)")
    linked = _flag(raw, "linked", False, problems)
    if linked and (raw.get("query") is None or raw.get("seeds") is not None or relation_aware):
        problems.append("linked: seeds from the entities a query names: give a query, no seeds, no relation_aware")
    damping = _number(raw.get("damping", DEFAULT_DAMPING))
    if damping is None or not 0 < damping < 1:
        problems.append("damping: must be a number strictly between 0 and 1")
        damping = DEFAULT_DAMPING
    top_k = raw.get("top_k", DEFAULT_TOP_K)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        problems.append(f"top_k: must be a whole number in [1, {MAX_TOP_K}]")
        top_k = DEFAULT_TOP_K
    directed = _flag(raw, "directed", False, problems)
    mentions = _flag(raw, "mentions", True, problems)
    betas = None
    if raw.get("betas") is not None:
        if not relation_aware:
            problems.append("betas: only used with relation_aware: true")
        else:
            try:
                betas = betas_parse(raw["betas"])
            except InvalidInput as error:
                problems.extend(error.problems)
    if relation_aware and raw.get("query") is None and raw.get("betas") is None:
        problems.append("relation_aware: give a query (β and seeds are chosen for it) or betas")
    betas_source = _step_choice(raw, "betas_source", problems)
    if "betas_source" in raw and relation_aware and raw.get("betas") is not None:
        problems.append("betas_source: β are given in betas; give one or the other")
    fact_filter = _step_choice(raw, "filter", problems)
    if "filter" in raw and relation_aware and (raw.get("seeds") is not None or raw.get("query") is None):
        problems.append("filter: only used when the seeds come from the query's facts (a query and no seeds)")
    if not relation_aware:
        problems.extend(
            f"{name}: only used with relation_aware: true" for name in ("betas_source", "filter") if name in raw
        )
    budget = None
    try:
        given = raw.get("budget")
        budget = budget_limits(None if given is None else input_parse(PprBudgetInput, given, where="budget"), ppr=True)
    except InvalidInput as error:
        problems.extend(error.problems)
    moment = None
    try:
        moment = as_of_parse(raw)
    except InvalidInput as error:
        problems.extend(error.problems)
    if problems:
        raise InvalidInput(problems)
    return PprRequest(
        group,
        seeds,
        query,
        damping,
        top_k,
        directed,
        mentions,
        relation_aware,
        linked,
        betas,
        betas_source,
        fact_filter,
        budget=budget,
        moment=moment,
    )


def _step_choice(raw: dict[str, Any], name: str, problems: list[str]) -> str:
    value = raw.get(name, StepMode.AUTO)
    if value not in STEP_MODES:
        problems.append(f"{name}: must be one of {', '.join(STEP_MODES)}")
        return StepMode.AUTO
    return value
