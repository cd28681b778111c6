"""A search request as callers send it (URL parameters or a JSON body), validated into what `search` takes.

Every problem names its field, so a 400 tells the caller exactly what to fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memoria.accounts.roles import GROUP_PATTERN
from memoria.errors import InvalidInput, names_shown
from memoria.graph.rules import ID_PATTERN
from memoria.search.config import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    Reranker,
    Scope,
    SearchConfig,
    parse_query,
    search_config_parse,
)
from memoria.search.recipes import RECIPES, recipe, recipe_problem
from memoria.search.service import checked_valid_at

ALL_SCOPES = "all"
COMBINED_RECIPE = "combined_hybrid_rrf"
QUERY_PARAMETERS = {"q", "group", "scope", "limit", "recipe", "valid_at", "center", "format"}
BODY_KEYS = {"query", "group", "config", "valid_at"}


@dataclass(frozen=True)
class SearchRequest:
    group: str
    query: str
    config: SearchConfig
    valid_at: str | None = None


def _group(raw: Any, problems: list[str]) -> str:
    if not isinstance(raw, str) or not GROUP_PATTERN.match(raw):
        problems.append("group: is required: 1–64 letters, digits, '_' or '-'")
        return ""
    return raw


def _collect(problems: list[str], parse: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return parse(*args, **kwargs)
    except InvalidInput as error:
        problems.extend(error.problems)
        return None


def _limit(raw: str | None, problems: list[str]) -> int:
    if raw is None:
        return DEFAULT_LIMIT
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_LIMIT:
        problems.append(f"limit: {raw!r} is not a whole number in [1, {MAX_LIMIT}]")
        return DEFAULT_LIMIT
    return int(raw)


def parse_search_parameters(params: Mapping[str, str]) -> SearchRequest:
    """GET /api/search?q=&group=&scope=&limit=&recipe=&valid_at=&center= (center: for node_distance recipes)."""
    problems: list[str] = []
    unknown = sorted(set(params) - QUERY_PARAMETERS)
    if unknown:
        problems.append(f"unknown parameter(s): {names_shown(unknown)}")
    query = _collect(problems, parse_query, params.get("q"), where="q")
    group = _group(params.get("group"), problems)
    limit = _limit(params.get("limit"), problems)
    scope_name = params.get("scope", ALL_SCOPES)
    scope: Scope | None = None
    if scope_name != ALL_SCOPES:
        try:
            scope = Scope(scope_name)
        except ValueError:
            problems.append(f"scope: {scope_name!r} is not one of {', '.join(Scope)}, {ALL_SCOPES}")
    center = params.get("center")
    if center is not None and not ID_PATTERN.match(center):
        problems.append("center: must be a node id")
        center = None
    valid_at = _collect(problems, checked_valid_at, params.get("valid_at"))
    name = params.get("recipe") or (f"{scope.value}_hybrid_rrf" if scope else COMBINED_RECIPE)
    problem = recipe_problem(name)
    if problem is not None:
        problems.append(problem)
    elif center is None and any(c.reranker is Reranker.NODE_DISTANCE for c in RECIPES[name].scopes().values()):
        problems.append(f"center: recipe {name} ranks by distance from a node: give center=<node id>")
    if problems:
        raise InvalidInput(problems)
    config = recipe(name, limit=limit, center_node_id=center)
    if scope is not None:
        config = config.only(scope)
    return SearchRequest(group, query, config, valid_at)


def parse_search_body(raw: Any) -> SearchRequest:
    """POST /api/search: {"query", "group", "config": {scope: {...}}, "valid_at"?}."""
    if not isinstance(raw, dict):
        raise InvalidInput("body: must be a JSON object")
    problems: list[str] = []
    unknown = sorted(set(raw) - BODY_KEYS)
    if unknown:
        problems.append(f"unknown field(s): {names_shown(unknown)} (known: {', '.join(sorted(BODY_KEYS))})")
    query = _collect(problems, parse_query, raw.get("query"))
    group = _group(raw.get("group"), problems)
    if "config" not in raw:
        problems.append("config: is required")
    config = _collect(problems, search_config_parse, raw.get("config")) if "config" in raw else None
    valid_at = raw.get("valid_at")
    if valid_at is not None and not isinstance(valid_at, str):
        problems.append("valid_at: must be an ISO 8601 date-time string")
        valid_at = None
    valid_at = _collect(problems, checked_valid_at, valid_at)
    if problems:
        raise InvalidInput(problems)
    return SearchRequest(group, query, config, valid_at)
