"""POST a group's community build: the REST face of communities_build (thin: validate, check access, call it)."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.ingest.communities import communities_build
from memoria.ingest.community_request import CommunityBuild
from memoria.jobs.request_limits import sync_communities_check
from memoria.requests.vocabulary import input_parse


class BuiltCommunityOutput(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    members = serializers.IntegerField()


class GroupCommunitiesView(APIView):
    """Rebuild a group's communities (curator); the old ones are replaced in the same transaction."""

    parser_classes = [JSONParser]
    calls_llm = True  # when one is configured: the schema documents its 502

    # Every view's nested serializers are called Input/Output: the schema needs names of its own.
    @extend_schema_serializer(component_name="CommunityBuildOutput")
    class Output(serializers.Serializer):
        group = serializers.CharField()
        algorithm = serializers.CharField()
        resolution = serializers.FloatField(allow_null=True)
        summaries = serializers.CharField()
        communities = BuiltCommunityOutput(many=True)
        clustered_entities = serializers.IntegerField()
        unclustered_entities = serializers.IntegerField()
        removed = serializers.IntegerField()
        iterations = serializers.IntegerField()
        seconds = serializers.FloatField()

    @extend_schema(request=CommunityBuild, responses={200: Output})
    def post(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        wanted = input_parse(CommunityBuild, request.data)
        sync_communities_check(group=group)
        report = communities_build(group=group, algorithm=wanted.algorithm, resolution=wanted.resolution)
        return Response(asdict(report))
