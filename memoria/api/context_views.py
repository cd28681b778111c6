"""POST /api/context: the REST face of context_build (thin: validate, check access, call it)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.admission.throttles import SearchThrottle
from memoria.api.throttles import throttled_responses
from memoria.context.request import ContextRequest
from memoria.context.service import context_build
from memoria.requests.vocabulary import input_parse


class ContextView(APIView):
    """A prompt-ready context for a query within a token budget: the facts that hold (now or `as_of`) with their
    validity, the summaries of the entities involved, the most relevant episodes (docs/agents.md)."""

    parser_classes = [JSONParser]
    permission_classes = [IsAuthenticated]  # a POST, but it only reads: viewers may run it
    throttle_classes = [SearchThrottle]  # it is a search with more packing

    @extend_schema(
        request=ContextRequest,
        responses=throttled_responses(
            OpenApiResponse(
                dict,
                description="`text` within `budget_tokens` (`used_tokens`); with format json also `items` (kind,"
                " id, score, tokens, line, validity of facts); `left_out` counts candidates that did not fit.",
            )
        ),
    )
    def post(self, request: Request) -> Response:
        wanted = input_parse(ContextRequest, request.data)
        check_group_access(user=request.user, group=wanted.group)
        block = context_build(
            group=wanted.group,
            query=wanted.query,
            budget_tokens=wanted.budget_tokens,
            as_of=wanted.as_of,
            scope=wanted.memory_scope(),
        )
        return Response(block.as_dict(form=wanted.format))
