"""REST reads behind the explorer's graph view: node cards and details, neighbourhoods a page at a time, the
subgraph among chosen nodes, and paths. Validate, check group access, call memoria.browse; no Cypher here.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.api.parameters import query_parameters
from memoria.api.path_ids import IdPathView
from memoria.browse.neighbourhood import neighbourhood, subgraph
from memoria.browse.path_cards import path_answer
from memoria.browse.paths import path_find
from memoria.browse.request import (
    CardsQuery,
    NeighbourhoodQuery,
    PathParameters,
    SubgraphQuery,
)
from memoria.browse.selectors import node_cards, node_detail
from memoria.errors import InvalidInput, names_shown
from memoria.requests.query import query_parse


class NodeCardsView(APIView):
    """Cards of several nodes of the group (`?ids=a,b,c`); ids not in the group are listed as missing."""

    @extend_schema(
        operation_id="groups_nodes_cards",
        parameters=query_parameters(CardsQuery),
        responses=dict,
    )
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        ids = query_parse(CardsQuery, request.query_params).ids
        cards = node_cards(group=group, ids=ids)
        found = {card.id for card in cards}
        return Response(
            {"nodes": [card.as_dict() for card in cards], "missing": [item for item in ids if item not in found]}
        )


class NodeDetailView(IdPathView):
    """One node: its card plus summary or content, attributes and times."""

    @extend_schema(responses=dict)
    def get(self, request: Request, group: str, node_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        if request.query_params:
            raise InvalidInput(f"unknown parameter(s): {names_shown(sorted(request.query_params))}")
        return Response(node_detail(group=group, node_id=node_id).as_dict())


class NeighbourhoodView(IdPathView):
    """A page of a node's links (strongest facts first), the neighbours' cards, and the facts among them."""

    @extend_schema(
        parameters=query_parameters(NeighbourhoodQuery),
        responses=dict,
    )
    def get(self, request: Request, group: str, node_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        wanted = query_parse(NeighbourhoodQuery, request.query_params)
        found = neighbourhood(
            group=group,
            node_id=node_id,
            links=wanted.links,
            edge_filter=wanted.edge_filter(),
            offset=wanted.offset,
            limit=wanted.limit,
        )
        return Response(found.as_dict())


class SubgraphView(APIView):
    """The group's nodes among `?ids=` (and up to `hops` facts around them) and the facts between them."""

    @extend_schema(
        parameters=query_parameters(SubgraphQuery),
        responses=dict,
    )
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        wanted = query_parse(SubgraphQuery, request.query_params)
        found = subgraph(group=group, ids=wanted.ids, edge_filter=wanted.edge_filter(), hops=wanted.hops)
        return Response(found.as_dict())


class PathView(APIView):
    """The shortest or strongest path between two nodes over facts in either direction (docs/explorer.md)."""

    @extend_schema(
        parameters=query_parameters(PathParameters),
        responses=dict,
    )
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        wanted = query_parse(PathParameters, request.query_params)
        result = path_find(query=wanted.query(group), mode=wanted.mode)
        return Response(path_answer(group=group, result=result))
