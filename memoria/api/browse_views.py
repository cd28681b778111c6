"""REST reads behind the explorer's graph view: node cards and details, neighbourhoods a page at a time, the
subgraph among chosen nodes, and paths. Validate, check group access, call memoria.browse; no Cypher here.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.browse.neighbourhood import neighbourhood, subgraph
from memoria.browse.path_cards import path_answer
from memoria.browse.request import (
    parse_ids_parameters,
    parse_neighbourhood_parameters,
    parse_path_parameters,
    parse_subgraph_parameters,
)
from memoria.browse.selectors import node_cards, node_detail
from memoria.errors import InvalidInput
from memoria.graph.paths import path_find

FILTER_PARAMETERS = [
    OpenApiParameter("valid_at", str, description="ISO 8601: only facts that held then"),
    OpenApiParameter("min_weight", float, description="only facts at least this heavy (0–1)"),
    OpenApiParameter("categories", str, description="comma-separated relation categories; NONE for uncategorised"),
]


class NodeCardsView(APIView):
    """Cards of several nodes of the group (`?ids=a,b,c`); ids not in the group are listed as missing."""

    @extend_schema(
        operation_id="groups_nodes_cards",
        parameters=[OpenApiParameter("ids", str, required=True)],
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
            raise InvalidInput(f"unknown parameter(s): {', '.join(sorted(request.query_params))}")
        return Response(node_detail(group=group, node_id=node_id).as_dict())


class NeighbourhoodView(APIView):
    """A page of a node's links (strongest facts first), the neighbours' cards, and the facts among them."""

    @extend_schema(
        parameters=[
            OpenApiParameter("links", str, description="comma-separated: RELATES (default), MENTIONS, HAS_MEMBER"),
            OpenApiParameter("offset", int),
            OpenApiParameter("limit", int, description="1–200, default 50"),
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
            OpenApiParameter("ids", str, required=True),
            OpenApiParameter("hops", int, description="0–3, default 0: the nodes within that many facts of the ids"),
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
            OpenApiParameter("from", str, required=True),
            OpenApiParameter("to", str, required=True),
            OpenApiParameter("mode", str, enum=["shortest", "strongest"]),
            OpenApiParameter("max_hops", int, description="1–10, default 6"),
            *FILTER_PARAMETERS,
        ],
        responses=dict,
    )
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        wanted = parse_path_parameters(request.query_params, group=group)
        result = path_find(query=wanted.query, mode=wanted.mode)
        return Response(path_answer(group=group, result=result))
