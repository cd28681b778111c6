"""Graph view requests as callers send them (URL parameters), validated into what the browse reads take.

Every problem names its parameter, so a 400 says exactly what to fix; nothing is read on bad input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from memoria.browse.filters import CATEGORY_CHOICES, EdgeFilter
from memoria.browse.neighbourhood import DEFAULT_LIMIT, LINK_KINDS, MAX_LIMIT, MAX_OFFSET
from memoria.browse.paths import DEFAULT_MAX_HOPS, MAX_HOPS, PathMode, PathQuery
from memoria.browse.selectors import MAX_CARDS
from memoria.errors import InvalidInput, names_shown
from memoria.graph.asof import EVERY_FACT, VIEW_FIELDS, view_moment
from memoria.graph.rules import ID_PATTERN, MAX_WEIGHT, MIN_WEIGHT

FILTER_PARAMETERS = {*VIEW_FIELDS, "min_weight", "categories"}
NEIGHBOURHOOD_PARAMETERS = FILTER_PARAMETERS | {"links", "offset", "limit"}
PATH_PARAMETERS = FILTER_PARAMETERS | {"from", "to", "mode", "max_hops"}
IDS_PARAMETERS = FILTER_PARAMETERS | {"ids"}
MAX_SUBGRAPH_HOPS = 3  # a hub's three-hop neighbourhood already reaches most of a small-world graph


@dataclass(frozen=True)
class NeighbourhoodRequest:
    links: tuple[str, ...]
    edge_filter: EdgeFilter
    offset: int
    limit: int


@dataclass(frozen=True)
class PathRequest:
    query: PathQuery
    mode: PathMode


class _Problems(list[str]):
    """Problems collected over every parameter, raised together."""

    def unknown(self, params: Mapping[str, str], known: set[str]) -> None:
        extra = sorted(set(params) - known)
        if extra:
            self.append(f"unknown parameter(s): {names_shown(extra)} (known: {', '.join(sorted(known))})")

    def whole(self, params: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
        raw = params.get(name)
        if raw is None or raw == "":
            return default
        if not raw.isdigit() or not low <= int(raw) <= high:
            self.append(f"{name}: {raw!r} is not a whole number in [{low}, {high}]")
            return default
        return int(raw)

    def listed(self, raw: str | None, name: str, choices: tuple[str, ...]) -> tuple[str, ...] | None:
        """A comma-separated subset of choices (any case); None when absent."""
        if raw is None:
            return None
        given = tuple(dict.fromkeys(item.strip().upper() for item in raw.split(",") if item.strip()))
        wrong = [item for item in given if item not in choices]
        if wrong or not given:
            self.append(f"{name}: give a comma-separated list of {', '.join(choices)}")
            return None
        return given

    def node_id(self, raw: str | None, name: str) -> str:
        if raw is None or not ID_PATTERN.match(raw):
            self.append(f"{name}: is required: a node id (letters, digits and ._:/@#-, at most 200)")
            return ""
        return raw

    def check(self) -> None:
        if self:
            raise InvalidInput(list(self))


def _edge_filter(params: Mapping[str, str], problems: _Problems) -> EdgeFilter:
    moment = EVERY_FACT
    try:
        moment = view_moment({name: value for name, value in params.items() if value})
    except InvalidInput as error:
        problems.extend(error.problems)
    min_weight = MIN_WEIGHT
    raw = params.get("min_weight")
    if raw:
        try:
            min_weight = float(raw)
        except ValueError:
            min_weight = -1.0
        if not 0.0 <= min_weight <= MAX_WEIGHT:
            problems.append(f"min_weight: {raw!r} is not a number in [0, {MAX_WEIGHT}]")
            min_weight = MIN_WEIGHT
    categories = problems.listed(params.get("categories"), "categories", CATEGORY_CHOICES)
    return EdgeFilter(moment=moment, min_weight=min_weight, categories=categories)


def parse_neighbourhood_parameters(params: Mapping[str, str]) -> NeighbourhoodRequest:
    """?links=RELATES,MENTIONS,HAS_MEMBER&offset=&limit=&valid_at=&min_weight=&categories=."""
    problems = _Problems()
    problems.unknown(params, NEIGHBOURHOOD_PARAMETERS)
    links = problems.listed(params.get("links"), "links", LINK_KINDS) or (LINK_KINDS[0],)
    offset = problems.whole(params, "offset", 0, 0, MAX_OFFSET)
    limit = problems.whole(params, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    edge_filter = _edge_filter(params, problems)
    problems.check()
    return NeighbourhoodRequest(links=links, edge_filter=edge_filter, offset=offset, limit=limit)


def parse_path_parameters(params: Mapping[str, str], *, group: str) -> PathRequest:
    """?from=&to=&mode=shortest|strongest&max_hops=&valid_at=&min_weight=&categories=."""
    problems = _Problems()
    problems.unknown(params, PATH_PARAMETERS)
    source = problems.node_id(params.get("from"), "from")
    target = problems.node_id(params.get("to"), "to")
    mode = PathMode.SHORTEST
    try:
        mode = PathMode(params.get("mode", PathMode.SHORTEST.value))
    except ValueError:
        problems.append(f"mode: {params.get('mode')!r} is not one of {', '.join(PathMode)}")
    max_hops = problems.whole(params, "max_hops", DEFAULT_MAX_HOPS, 1, MAX_HOPS)
    edge_filter = _edge_filter(params, problems)
    problems.check()
    query = PathQuery(group=group, source=source, target=target, max_hops=max_hops, edge_filter=edge_filter)
    return PathRequest(query=query, mode=mode)


def parse_ids_parameters(params: Mapping[str, str], *, filtered: bool = True) -> tuple[list[str], EdgeFilter]:
    """?ids=a,b,c (1–MAX_CARDS node ids), with the edge filter's parameters when `filtered`."""
    problems = _Problems()
    problems.unknown(params, IDS_PARAMETERS if filtered else {"ids"})
    ids = [item for item in (params.get("ids") or "").split(",") if item]
    if not 1 <= len(ids) <= MAX_CARDS:
        problems.append(f"ids: give 1–{MAX_CARDS} comma-separated node ids")
    bad = [item for item in ids if not ID_PATTERN.match(item)]
    if bad:
        problems.append(f"ids: {bad[0][:50]!r} is not a node id")
    edge_filter = _edge_filter(params, problems)
    problems.check()
    return ids, edge_filter


def parse_subgraph_parameters(params: Mapping[str, str]) -> tuple[list[str], EdgeFilter, int]:
    """The ids and edge filter of parse_ids_parameters, and ?hops=0–MAX_SUBGRAPH_HOPS (default 0: the ids alone)."""
    problems = _Problems()
    hops = problems.whole(params, "hops", 0, 0, MAX_SUBGRAPH_HOPS)
    ids, edge_filter = [], EdgeFilter()
    try:
        ids, edge_filter = parse_ids_parameters({key: params[key] for key in params if key != "hops"})
    except InvalidInput as error:
        problems.extend(error.problems)
    problems.check()
    return ids, edge_filter, hops
