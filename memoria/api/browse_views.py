"""REST reads behind the explorer's graph view: node cards and details, neighbourhoods a page at a time, the
subgraph among chosen nodes, and paths. Validate, check group access, call memoria.browse; no Cypher here.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.api.schema import EMPTY, ID_CHARACTERS, choice_list, id_list, number_or_empty, whole_or_empty
from memoria.browse.filters import CATEGORY_CHOICES
from memoria.browse.neighbourhood import DEFAULT_LIMIT, LINK_KINDS, MAX_LIMIT, MAX_OFFSET, neighbourhood, subgraph
from memoria.browse.path_cards import path_answer
from memoria.browse.paths import DEFAULT_MAX_HOPS, MAX_HOPS, PathMode, path_find
from memoria.browse.request import (
    MAX_SUBGRAPH_HOPS,
    parse_ids_parameters,
    parse_neighbourhood_parameters,
    parse_path_parameters,
    parse_subgraph_parameters,
)
from memoria.browse.selectors import node_cards, node_detail
from memoria.errors import InvalidInput, names_shown
from memoria.graph.rules import MAX_WEIGHT

IDS = id_list(ID_CHARACTERS)
MOMENT = {"anyOf": [{"type": "string", "format": "date-time"}, EMPTY]}
FILTER_PARAMETERS = [
    OpenApiParameter(
        "as_of", MOMENT, description="ISO 8601 with a zone: only facts that count then (docs/retrieval.md, Time)"
    ),
    OpenApiParameter("known_at", MOMENT, description="as the memory knew them then (default with as_of: now)"),
    OpenApiParameter(
        "include_invalidated",
        {"anyOf": [{"type": "string", "enum": ["true", "false"]}, EMPTY]},
        description="true: every fact, ended ones included; with no time parameter, facts that count now",
    ),
    OpenApiParameter("valid_at", MOMENT, description="the older name of as_of"),
    OpenApiParameter(
        "min_weight", number_or_empty(0, MAX_WEIGHT), description="only facts at least this heavy (default: all)"
    ),
    OpenApiParameter(
        "categories",
        choice_list(CATEGORY_CHOICES),
        description="comma-separated relation categories; NONE for uncategorised",
    ),
]


class NodeCardsView(APIView):
    """Cards of several nodes of the group (`?ids=a,b,c`); ids not in the group are listed as missing."""

    @extend_schema(
        operation_id="groups_nodes_cards",
        parameters=[OpenApiParameter("ids", IDS, required=True)],
        responses=dict,
    )
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        ids, _ = parse_ids_parameters(request.query_params, filtered=False)
        cards = node_cards(group=group, ids=ids)
        found = {card.id for card in cards}
        return Response(
            {"nodes": [card.as_dict() for card in cards], "missing": [item for item in ids if item not in found]}
        )


class NodeDetailView(APIView):
    """One node: its card plus summary or content, attributes and times."""

    @extend_schema(responses=dict)
    def get(self, request: Request, group: str, node_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        if request.query_params:
            raise InvalidInput(f"unknown parameter(s): {names_shown(sorted(request.query_params))}")
        return Response(node_detail(group=group, node_id=node_id).as_dict())


class NeighbourhoodView(APIView):
    """A page of a node's links (strongest facts first), the neighbours' cards, and the facts among them."""

    @extend_schema(
        parameters=[
            OpenApiParameter("links", choice_list(LINK_KINDS), description="comma-separated; default RELATES"),
            OpenApiParameter("offset", whole_or_empty(0, MAX_OFFSET)),
            OpenApiParameter("limit", whole_or_empty(1, MAX_LIMIT), description=f"default {DEFAULT_LIMIT}"),
            *FILTER_PARAMETERS,
        ],
        responses=dict,
    )
    def get(self, request: Request, group: str, node_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        wanted = parse_neighbourhood_parameters(request.query_params)
        found = neighbourhood(
            group=group,
            node_id=node_id,
            links=wanted.links,
            edge_filter=wanted.edge_filter,
            offset=wanted.offset,
            limit=wanted.limit,
        )
        return Response(found.as_dict())


class SubgraphView(APIView):
    """The group's nodes among `?ids=` (and up to `hops` facts around them) and the facts between them."""

    @extend_schema(
        parameters=[
            OpenApiParameter("ids", IDS, required=True),
            OpenApiParameter(
                "hops",
                whole_or_empty(0, MAX_SUBGRAPH_HOPS),
                description="default 0: the nodes within that many facts of the ids",
            ),
            *FILTER_PARAMETERS,
        ],
        responses=dict,
    )
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        ids, edge_filter, hops = parse_subgraph_parameters(request.query_params)
        return Response(subgraph(group=group, ids=ids, edge_filter=edge_filter, hops=hops).as_dict())


class PathView(APIView):
    """The shortest or strongest path between two nodes over facts in either direction (docs/explorer.md)."""

    @extend_schema(
        parameters=[
            OpenApiParameter("from", {"type": "string", "pattern": f"^{ID_CHARACTERS}$"}, required=True),
            OpenApiParameter("to", {"type": "string", "pattern": f"^{ID_CHARACTERS}$"}, required=True),
            OpenApiParameter("mode", str, enum=[mode.value for mode in PathMode]),
            OpenApiParameter("max_hops", whole_or_empty(1, MAX_HOPS), description=f"default {DEFAULT_MAX_HOPS}"),
            *FILTER_PARAMETERS,
        ],
        responses=dict,
    )
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        wanted = parse_path_parameters(request.query_params, group=group)
        result = path_find(query=wanted.query, mode=wanted.mode)
        return Response(path_answer(group=group, result=result))
