"""POST /api/retrieval/ppr: the REST face of ppr_run (thin: validate, check access, call it)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.admission.throttles import RetrievalThrottle
from memoria.api.throttles import throttled_responses
from memoria.ppr.request import PprBody
from memoria.ppr.service import ppr_run
from memoria.requests.vocabulary import input_parse


class PprRetrievalView(APIView):
    """Personalized PageRank over a group's graph from seeds or a query; says how fresh the graph it used was."""

    parser_classes = [JSONParser]
    calls_llm = True  # when one is configured: the schema documents its 502
    permission_classes = [IsAuthenticated]  # a POST, but it only reads: viewers may run it
    throttle_classes = [RetrievalThrottle]

    @extend_schema(
        request=PprBody,
        responses=throttled_responses(
            OpenApiResponse(
                dict,
                description="The scores; `status` is `completed`, or `budget_exhausted` when the budget (time or"
                " rows: `budget`) stopped the solve: the scores are then its iterate so far (`converged` false).",
            )
        ),
    )
    def post(self, request: Request) -> Response:
        wanted = input_parse(PprBody, request.data).request()
        check_group_access(user=request.user, group=wanted.group)
        return Response(ppr_run(wanted).as_dict())
