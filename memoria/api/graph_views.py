"""REST face of the graph index (docs/graph-index.md) under /api/graph/<group>/...: thin views over
memoria.graphindex.service. Reads are GETs for any user who sees the group; writes need the curator role
(the default ReadOrCurate permission).
"""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.api.parameters import query_parameters
from memoria.api.path_ids import IdPathView
from memoria.errors import InvalidInput, names_shown
from memoria.graph.asof import AsOf
from memoria.graphindex import service as index
from memoria.graphindex.request import EdgeEndsQuery, EdgeRemoveQuery, IndexEdgesBody
from memoria.requests.moment import FIELDS, view_moment
from memoria.requests.query import EMPTY, query_parse

MOMENT = {"anyOf": [{"type": "string", "format": "date-time"}, EMPTY]}  # empty: not given
MOMENT_PARAMETERS = [
    OpenApiParameter("as_of", MOMENT, description="walk only the facts that count then (docs/retrieval.md, Time)"),
    OpenApiParameter("known_at", MOMENT, description="as the memory knew them then (default with as_of: now)"),
    OpenApiParameter(
        "include_invalidated",
        {"anyOf": [{"type": "string", "enum": ["true", "false"]}, EMPTY]},
        description="true: every edge, ended ones included; with no time parameter, edges that count now",
    ),
]
# Each comma-separated relation must hold a character that is neither a comma nor a space.
RELATIONS = {"type": "string", "pattern": r"^[^,]*[^,\s][^,]*(,[^,]*[^,\s][^,]*)*$"}
RELATED_PARAMETERS = [
    OpenApiParameter(
        "relation", {"type": "array", "items": RELATIONS}, description="relation to follow (repeat or comma-separate)"
    ),
    OpenApiParameter("direction", str, enum=list(index.DIRECTIONS), description="default out"),
    OpenApiParameter(
        "max_results", {"type": "integer", "minimum": 1, "maximum": index.MAX_RESULTS}, description="default 100"
    ),
    OpenApiParameter("min_weight", {"type": "number", "minimum": 0, "maximum": 1}, description="default 0"),
    *MOMENT_PARAMETERS,
]
TRAVERSAL_PARAMETERS = [
    *RELATED_PARAMETERS,
    OpenApiParameter(
        "max_depth", {"type": "integer", "minimum": 1, "maximum": index.MAX_DEPTH}, description="default 1"
    ),
]


def _only(params: QueryDict, allowed: set[str]) -> None:
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise InvalidInput(f"unknown parameter(s): {names_shown(unknown)} (allowed: {', '.join(sorted(allowed))})")


def _number(params: QueryDict, name: str, kind: type, default: Any) -> Any:
    raw = params.get(name)
    if raw is None:
        return default
    try:
        return kind(raw)
    except ValueError as error:
        raise InvalidInput(f"{name}: {raw!r} is not {'an integer' if kind is int else 'a number'}") from error


def _moment(params: QueryDict) -> AsOf:
    """The moment the query asks for; an empty parameter is one not given."""
    return view_moment({name: params[name] for name in FIELDS if params.get(name)})


def _options(params: QueryDict, *, depth: bool) -> index.TraversalOptions:
    allowed = {"relation", "direction", "max_results", "min_weight", *FIELDS} | ({"max_depth"} if depth else set())
    _only(params, allowed)
    relations = [part.strip() for value in params.getlist("relation") for part in value.split(",")]
    return index.traversal_options(
        relations=relations,
        direction=params.get("direction", "out"),
        max_depth=_number(params, "max_depth", int, 1),
        max_results=_number(params, "max_results", int, 100),
        min_weight=_number(params, "min_weight", float, 0.0),
        moment=_moment(params),
    )


class GraphEdgesView(APIView):
    """Add edges (POST, one edge or {"edges": [...]}) or remove one (DELETE ?source&target&relation)."""

    parser_classes = [JSONParser]

    @extend_schema(operation_id="graph_edges_add", request=IndexEdgesBody, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        body = request.data
        edges = body.get("edges") if isinstance(body, dict) and set(body) == {"edges"} else [body]
        report = index.edges_add(group=group, edges=edges)
        answer = {"created": report.edges_created, "updated": report.edges_updated, "size": index.size(group=group)}
        return Response(answer, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="graph_edges_remove",
        parameters=query_parameters(EdgeRemoveQuery),
        responses={200: OpenApiTypes.OBJECT},
    )
    def delete(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        edge = query_parse(EdgeRemoveQuery, request.query_params)
        removed = index.edge_remove(group=group, source=edge.source, target=edge.target, relation=edge.relation)
        if not removed:
            return Response({"removed": 0, "detail": "no such edge"}, status=status.HTTP_404_NOT_FOUND)
        return Response({"removed": removed})


class GraphEdgeExistsView(APIView):
    """Whether source → target exists (with `relation`, or with any relation)."""

    @extend_schema(
        operation_id="graph_edge_exists", parameters=query_parameters(EdgeEndsQuery), responses=OpenApiTypes.OBJECT
    )
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        edge = query_parse(EdgeEndsQuery, request.query_params)
        exists = index.has_edge(group=group, source=edge.source, target=edge.target, relation=edge.relation or "")
        return Response({"exists": exists})


class GraphStatsView(APIView):
    """The index's size (edges) and node count (nodes with an edge)."""

    @extend_schema(operation_id="graph_stats", responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        _only(request.query_params, set())
        return Response({"size": index.size(group=group), "node_count": index.node_count(group=group)})


class GraphNodeEdgesView(IdPathView):
    """A node's outgoing or incoming edges that count at the moment asked (now by default), each with its
    metadata and created_at."""

    direction = "outgoing"

    @extend_schema(parameters=MOMENT_PARAMETERS, responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, group: str, node_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        params = request.query_params
        _only(params, set(FIELDS))
        moment = _moment(params)
        read = index.outgoing if self.direction == "outgoing" else index.incoming
        return Response({"edges": [edge.as_dict() for edge in read(group=group, node_id=node_id, moment=moment)]})


class GraphNodeView(IdPathView):
    """DELETE removes every edge to or from the node (the memory itself stays)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def delete(self, request: Request, group: str, node_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        return Response({"removed": index.node_remove(group=group, node_id=node_id)})


class GraphWalkView(IdPathView):
    """Related nodes (one hop) or a multi-hop traversal: each result with id, depth, relation, weight and path."""

    multi_hop = True

    @extend_schema(parameters=TRAVERSAL_PARAMETERS, responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, group: str, node_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        options = _options(request.query_params, depth=self.multi_hop)
        if self.multi_hop:
            results = index.traverse(group=group, start=node_id, options=options)
        else:
            results = index.related(group=group, node_id=node_id, options=options)
        return Response({"start": node_id, "results": [result.as_dict() for result in results]})


class GraphRelatedView(GraphWalkView):
    """One hop only: the same answer as a traversal, without max_depth."""

    multi_hop = False

    @extend_schema(parameters=RELATED_PARAMETERS, responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, group: str, node_id: str) -> Response:
        return super().get(request, group, node_id)
