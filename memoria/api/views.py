"""REST endpoints: authenticate, check access, call a service, shape the answer. No Cypher here."""

from __future__ import annotations

from dataclasses import asdict

from asgiref.sync import async_to_sync
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access, user_groups, user_role
from memoria.admission.retrieval import activation_answer
from memoria.admission.throttles import IngestThrottle, RetrievalThrottle
from memoria.api.throttles import ThrottledOutput, throttled_responses
from memoria.graph.health import graph_health
from memoria.graph.selectors import group_summary, visible_groups
from memoria.interchange.document import parse_graph_document
from memoria.interchange.exporter import graph_document_export
from memoria.interchange.importer import graph_document_import
from memoria.interchange.records import GraphDocumentBody
from memoria.jobs.request_limits import sync_export_check, sync_import_check
from memoria.readmodel.cache import view_cache
from memoria.requests.vocabulary import input_parse
from memoria.retrieval.request import ActivationBody


class HealthView(APIView):
    """Graph server status; 503 while it is down so monitors see the outage."""

    class Output(serializers.Serializer):
        status = serializers.CharField()
        graph = serializers.DictField()

    @extend_schema(responses={200: Output, 503: Output})
    def get(self, request: Request) -> Response:
        health = graph_health()
        return Response(
            {"status": "ok" if health.up else "degraded", "graph": health.as_dict()},
            status=status.HTTP_200_OK if health.up else status.HTTP_503_SERVICE_UNAVAILABLE,
        )


class MeView(APIView):
    graph_free = True  # answered from the user database alone: the schema documents no 503 for it

    class Output(serializers.Serializer):
        username = serializers.CharField()
        role = serializers.CharField()
        groups = serializers.ListField(child=serializers.CharField(), allow_null=True)

    @extend_schema(responses=Output)
    def get(self, request: Request) -> Response:
        role = user_role(user=request.user)
        return Response(
            {
                "username": request.user.get_username(),
                "role": role.value if role else None,
                "groups": user_groups(user=request.user),
            }
        )


class GroupListView(APIView):
    class Output(serializers.Serializer):
        group = serializers.CharField()
        episodes = serializers.IntegerField()
        entities = serializers.IntegerField()
        communities = serializers.IntegerField()
        facts = serializers.IntegerField()
        view_bytes = serializers.IntegerField(
            allow_null=True, help_text="memory held by this process's search view of the group; null: not loaded"
        )

    @extend_schema(responses=Output(many=True))
    def get(self, request: Request) -> Response:
        groups = visible_groups(allowed=user_groups(user=request.user))
        views = {size.group: size.bytes for size in view_cache().sizes()}
        return Response([{**asdict(group_summary(group=group)), "view_bytes": views.get(group)} for group in groups])


class GroupImportView(APIView):
    """Upsert a graph document (docs/import-format.md) into a group, all or nothing, then embed what it wrote."""

    parser_classes = [JSONParser]
    throttle_classes = [IngestThrottle]

    class Output(serializers.Serializer):
        class Embedding(serializers.Serializer):
            embedded = serializers.IntegerField()
            left = serializers.IntegerField(allow_null=True)
            seconds = serializers.FloatField()
            error = serializers.CharField(allow_null=True)

        group = serializers.CharField()
        nodes_created = serializers.IntegerField()
        nodes_updated = serializers.IntegerField()
        edges_created = serializers.IntegerField()
        edges_updated = serializers.IntegerField()
        mentions = serializers.IntegerField()
        memberships = serializers.IntegerField()
        round_trips = serializers.IntegerField()
        seconds = serializers.FloatField()
        texts_changed = serializers.IntegerField()
        embedding = Embedding()

    @extend_schema(request=GraphDocumentBody, responses={200: Output, 429: ThrottledOutput})
    def post(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        document = parse_graph_document(request.data, group=group)
        sync_import_check(document, group=group)
        # A failed embedding still answers 200: the import is stored; `embedding` says what is left and why.
        report = graph_document_import(document=document, group=group, embed=True)
        return Response(self.Output(report).data)


class GroupExportView(APIView):
    @extend_schema(responses=dict)
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        sync_export_check(group=group)
        return Response(graph_document_export(group=group))


class ActivationRetrievalView(APIView):
    """Run an Activation Energy retrieval and answer with every seed's paths (watchers see it live).

    A retrieval its budget stopped is still a 200: `stats.status` is `budget_exhausted`, `stats.budget.exhausted`
    names the limit, and the seeds hold the paths found until then.
    """

    parser_classes = [JSONParser]
    permission_classes = [IsAuthenticated]  # a POST, but it only reads: viewers may run it
    throttle_classes = [RetrievalThrottle]

    @extend_schema(
        request=ActivationBody,
        responses=throttled_responses(
            OpenApiResponse(
                dict,
                description="Every seed's paths; `stats.status` is `completed`, or `budget_exhausted` when the"
                " budget (time or rows: `stats.budget`) stopped the retrieval, with the paths found until then.",
            )
        ),
    )
    def post(self, request: Request) -> Response:
        activation = input_parse(ActivationBody, request.data).request()
        check_group_access(user=request.user, group=activation.group)
        return Response(async_to_sync(activation_answer)(activation, requested_by=request.user.get_username()))
