"""Graph view requests as callers send them (URL parameters): pydantic models of their query strings.

Every problem names its parameter, so a 400 says exactly what to fix; nothing is read on bad input. The views
read them with memoria.requests.query.query_parse and document them from the same models.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, StrictBool, WithJsonSchema
from pydantic_core import PydanticUseDefault

from memoria.browse.filters import CATEGORY_CHOICES, EdgeFilter
from memoria.browse.neighbourhood import DEFAULT_LIMIT, LINK_KINDS, MAX_LIMIT, MAX_OFFSET
from memoria.browse.paths import DEFAULT_MAX_HOPS, MAX_HOPS, PathMode, PathQuery
from memoria.browse.selectors import MAX_CARDS
from memoria.graph.rules import ID_PATTERN, MAX_WEIGHT, MIN_WEIGHT
from memoria.requests.moment import FLAG_VALUES, view_moment
from memoria.requests.query import EMPTY, ID_CHARACTERS, ChoiceList, WholeQuery, id_list, number_or_empty
from memoria.requests.vocabulary import NodeId, RequestModel, Timestamp

MAX_SUBGRAPH_HOPS = 3  # a hub's three-hop neighbourhood already reaches most of a small-world graph


def _blank_is_default(raw: Any) -> Any:
    """A URL's empty value (`?as_of=`) means the default, as a form that leaves a field blank sends it."""
    if raw is None or raw == "":
        raise PydanticUseDefault
    return raw


def _flag(raw: Any) -> Any:
    raw = _blank_is_default(raw)
    return FLAG_VALUES.get(raw.lower(), raw) if isinstance(raw, str) else raw


def _min_weight(raw: Any) -> float:
    raw = _blank_is_default(raw)
    try:
        weight = float(raw)
    except (TypeError, ValueError):
        weight = -1.0
    if not 0.0 <= weight <= MAX_WEIGHT:
        raise ValueError(f"{raw!r} is not a number in [0, {MAX_WEIGHT}]")
    return weight


def _mode(raw: Any) -> PathMode:
    try:
        return PathMode(raw)
    except ValueError:
        raise ValueError(f"{raw!r} is not one of {', '.join(PathMode)}") from None


def _ids(raw: Any) -> list[str]:
    ids = [item for item in str(raw).split(",") if item]
    if not 1 <= len(ids) <= MAX_CARDS:
        raise ValueError(f"give 1–{MAX_CARDS} comma-separated node ids")
    bad = [item for item in ids if not ID_PATTERN.match(item)]
    if bad:
        raise ValueError(f"{bad[0][:50]!r} is not a node id")
    return ids


Moment = Annotated[
    Timestamp | None,
    BeforeValidator(_blank_is_default),
    WithJsonSchema({"anyOf": [{"type": "string", "format": "date-time"}, EMPTY]}),
]
Ids = Annotated[
    list[str],
    BeforeValidator(_ids),
    WithJsonSchema(id_list(ID_CHARACTERS)),
    Field(description=f"1–{MAX_CARDS} comma-separated node ids"),
]


class EdgeFilterQuery(RequestModel):
    """Which facts a view shows: at which moment (as for retrieval: now by default), how heavy, which kinds."""

    as_of: Moment = Field(
        default=None, description="ISO 8601 with a zone: only facts that count then (docs/retrieval.md, Time)"
    )
    known_at: Moment = Field(default=None, description="as the memory knew them then (default with as_of: now)")
    include_invalidated: Annotated[
        StrictBool,
        BeforeValidator(_flag),
        WithJsonSchema({"anyOf": [{"type": "string", "enum": ["true", "false"]}, EMPTY]}),
    ] = Field(
        default=False, description="true: every fact, ended ones included; with no time parameter, facts that count now"
    )
    valid_at: Moment = Field(default=None, description="the older name of as_of")
    min_weight: Annotated[float, BeforeValidator(_min_weight), WithJsonSchema(number_or_empty(0, MAX_WEIGHT))] = Field(
        default=MIN_WEIGHT, description="only facts at least this heavy (default: all)"
    )
    categories: ChoiceList(CATEGORY_CHOICES) = Field(
        default=None, description="comma-separated relation categories; NONE for uncategorised"
    )

    def edge_filter(self) -> EdgeFilter:
        """The filter, its moment resolved; the rules between the time fields answer InvalidInput here."""
        given = {"as_of": self.as_of, "known_at": self.known_at, "valid_at": self.valid_at}
        moment = view_moment({**given, "include_invalidated": self.include_invalidated or None})
        return EdgeFilter(moment=moment, min_weight=self.min_weight, categories=self.categories)


class NeighbourhoodQuery(EdgeFilterQuery):
    """?links=RELATES,MENTIONS,HAS_MEMBER&offset=&limit= and the edge filter."""

    links: ChoiceList(LINK_KINDS) = Field(default=(LINK_KINDS[0],), description="comma-separated; default RELATES")
    offset: WholeQuery(0, MAX_OFFSET) = 0
    limit: WholeQuery(1, MAX_LIMIT) = Field(default=DEFAULT_LIMIT, description=f"default {DEFAULT_LIMIT}")


class PathParameters(EdgeFilterQuery):
    """?from=&to=&mode=shortest|strongest&max_hops= and the edge filter."""

    source: NodeId = Field(alias="from")
    target: NodeId = Field(alias="to")
    mode: Annotated[
        PathMode, BeforeValidator(_mode), WithJsonSchema({"type": "string", "enum": [mode.value for mode in PathMode]})
    ] = PathMode.SHORTEST
    max_hops: WholeQuery(1, MAX_HOPS) = Field(default=DEFAULT_MAX_HOPS, description=f"default {DEFAULT_MAX_HOPS}")

    def query(self, group: str) -> PathQuery:
        return PathQuery(
            group=group, source=self.source, target=self.target, max_hops=self.max_hops, edge_filter=self.edge_filter()
        )


class CardsQuery(RequestModel):
    """?ids=a,b,c alone: cards have no facts to filter."""

    ids: Ids


class SubgraphQuery(EdgeFilterQuery):
    """?ids=a,b,c&hops=0–MAX_SUBGRAPH_HOPS (default 0: the ids alone) and the edge filter."""

    hops: WholeQuery(0, MAX_SUBGRAPH_HOPS) = Field(
        default=0, description="default 0: the nodes within that many facts of the ids"
    )
    ids: Ids
