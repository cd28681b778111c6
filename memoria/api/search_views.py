"""REST endpoints of hybrid search: validate, check group access, call the search service. No Cypher here."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.admission.throttles import SearchThrottle
from memoria.api.parameters import query_parameters
from memoria.api.throttles import throttled_responses
from memoria.requests.vocabulary import input_parse
from memoria.search.request import SearchBody, SearchParameters, SearchRequest
from memoria.search.service import search
from memoria.search.suggest import suggest
from memoria.search.suggest_request import MAX_SUGGESTIONS, MAX_TYPED_CHARS, SuggestRequest


def _answer(request: Request, wanted: SearchRequest) -> Response:
    check_group_access(user=request.user, group=wanted.group)
    found = search(
        query=wanted.query, groups=[wanted.group], config=wanted.config, valid_at=wanted.valid_at, scope=wanted.scope
    )
    return Response(found.as_dict())


class SearchView(APIView):
    """Search one group's facts, entities, episodes and communities: a named recipe (GET) or a full config (POST)."""

    parser_classes = [JSONParser]
    permission_classes = [IsAuthenticated]  # the POST only reads: viewers may run it
    throttle_classes = [SearchThrottle]

    @extend_schema(parameters=query_parameters(SearchParameters), responses=throttled_responses(dict))
    def get(self, request: Request) -> Response:
        return _answer(request, input_parse(SearchParameters, request.query_params.dict(), root="parameters").request())

    @extend_schema(request=SearchBody, responses=throttled_responses(dict))
    def post(self, request: Request) -> Response:
        return _answer(request, input_parse(SearchBody, request.data).request())


class SuggestView(APIView):
    """Search-as-you-type: a group's best entities for what has been typed, with kind, date, snippet and id."""

    permission_classes = [IsAuthenticated]
    throttle_classes = [SearchThrottle]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "q",
                {"type": "string", "minLength": 1, "maxLength": MAX_TYPED_CHARS},
                required=True,
                description="what has been typed so far (blank: no suggestions)",
            ),
            OpenApiParameter("group", str, required=True),
            OpenApiParameter(
                "limit", {"type": "integer", "minimum": 1, "maximum": MAX_SUGGESTIONS}, description="default 8"
            ),
        ],
        responses=throttled_responses(dict),
    )
    def get(self, request: Request) -> Response:
        wanted = input_parse(SuggestRequest, request.query_params.dict())
        check_group_access(user=request.user, group=wanted.group)
        found = suggest(group=wanted.group, text=wanted.q, limit=wanted.limit)
        suggestions = [item.as_dict() for item in found]
        return Response({"group": wanted.group, "query": wanted.q.strip(), "suggestions": suggestions})
