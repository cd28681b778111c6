"""A retrieval request as callers send it (REST body or websocket message), validated and resolved.

Validation names every offending field; resolution turns a query into seeds
and query tags when the caller did not give them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from memoria.accounts.roles import GROUP_PATTERN
from memoria.errors import InvalidInput, names_shown
from memoria.graph.asof import FIELDS, AsOf, as_of_parse
from memoria.graph.rules import ID_PATTERN, MAX_QUERY_LENGTH, MAX_TAG_LENGTH, MAX_TAGS, normalise_tag
from memoria.retrieval.activation import Seed
from memoria.retrieval.budget import BudgetLimits, parse_budget, server_limits
from memoria.retrieval.engines import ENGINES
from memoria.retrieval.params import MAX_SEEDS, ActivationParams, parse_params

REQUEST_KEYS = {"group", "query", "query_tags", "seeds", "params", "explain", "budget", "engine", *FIELDS}
RETRIEVAL_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


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


def _seeds(raw: Any, problems: list[str]) -> tuple[Seed, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        problems.append("seeds: must be a non-empty list of {id, score}")
        return None
    if len(raw) > MAX_SEEDS:
        problems.append(f"seeds: at most {MAX_SEEDS} seeds, got {len(raw)}")
        return None
    seeds: list[Seed] = []
    for index, item in enumerate(raw):
        where = f"seeds[{index}]"
        if not isinstance(item, dict) or set(item) - {"id", "score"}:
            problems.append(f"{where}: must be an object with id and score only")
            continue
        seed_id, score = item.get("id"), item.get("score")
        if not isinstance(seed_id, str) or not ID_PATTERN.match(seed_id):
            problems.append(f"{where}.id: must be a node id")
            continue
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            problems.append(f"{where}.score: must be a number in (0, 1]")
            continue
        if not 0 < score <= 1:
            problems.append(f"{where}.score: {score} is outside (0, 1]")
            continue
        if any(seed.id == seed_id for seed in seeds):
            problems.append(f"{where}.id: {seed_id!r} is given twice")
            continue
        seeds.append(Seed(seed_id, float(score)))
    return tuple(seeds)


def _tags(raw: Any, problems: list[str]) -> tuple[str, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(tag, str) for tag in raw):
        problems.append("query_tags: must be a list of strings")
        return None
    if len(raw) > MAX_TAGS:
        problems.append(f"query_tags: at most {MAX_TAGS} tags")
        return None
    tags = [normalise_tag(tag) for tag in raw]
    if any(not 1 <= len(tag) <= MAX_TAG_LENGTH for tag in tags):
        problems.append(f"query_tags: each tag must be 1–{MAX_TAG_LENGTH} characters")
        return None
    return tuple(dict.fromkeys(tags))


def parse_activation_request(raw: Any) -> ActivationRequest:
    """Check a decoded JSON body; InvalidInput lists every problem."""
    if not isinstance(raw, dict):
        raise InvalidInput("body: must be a JSON object")
    problems: list[str] = []
    unknown = sorted(set(raw) - REQUEST_KEYS - {"type", "algorithm"})
    if unknown:
        problems.append(f"unknown field(s): {names_shown(unknown)}")
    group = raw.get("group")
    if not isinstance(group, str) or not GROUP_PATTERN.match(group):
        problems.append("group: is required: 1–64 letters, digits, '_' or '-'")
    query = raw.get("query")
    if query is not None and (not isinstance(query, str) or not query.strip() or len(query) > MAX_QUERY_LENGTH):
        problems.append(f"query: must be a non-empty string of at most {MAX_QUERY_LENGTH} characters")
        query = None
    seeds = _seeds(raw.get("seeds"), problems)
    tags = _tags(raw.get("query_tags"), problems)
    explain = raw.get("explain", False)
    if not isinstance(explain, bool):
        problems.append("explain: must be true or false")
    engine = raw.get("engine")
    if engine is not None and engine not in ENGINES:
        problems.append(f"engine: must be one of {', '.join(ENGINES)}")
    if raw.get("seeds") is None and raw.get("query") is None:
        problems.append("seeds or query: give seeds ([{id, score}]) or a query text to find them")
    try:
        params = parse_params(raw.get("params"))
    except InvalidInput as error:
        problems.extend(error.problems)
        params = ActivationParams()
    budget = None
    try:
        budget = parse_budget(raw.get("budget"), ceiling=server_limits())
    except InvalidInput as error:
        problems.extend(error.problems)
    moment = None
    try:
        moment = as_of_parse(raw)
    except InvalidInput as error:
        problems.extend(error.problems)
    if problems:
        raise InvalidInput(problems)
    return ActivationRequest(group, query, tags, seeds, params, explain, budget, engine, moment)
