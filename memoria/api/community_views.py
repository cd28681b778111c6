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
from memoria.errors import InvalidInput
from memoria.ingest.communities import (
    ALGORITHMS,
    DEFAULT_RESOLUTION,
    LABEL_PROPAGATION,
    LEIDEN,
    MAX_RESOLUTION,
    MIN_RESOLUTION,
    check_resolution,
    communities_build,
)
from memoria.jobs.request_limits import sync_communities_check


class BuiltCommunityOutput(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    members = serializers.IntegerField()


class GroupCommunitiesView(APIView):
    """Rebuild a group's communities (curator); the old ones are replaced in the same transaction."""

    parser_classes = [JSONParser]
    calls_llm = True  # when one is configured: the schema documents its 502

    # Every view's nested serializers are called Input/Output: the schema needs names of its own.
    @extend_schema_serializer(component_name="CommunityBuildInput")
    class Input(serializers.Serializer):
        algorithm = serializers.ChoiceField(choices=ALGORITHMS, default=LABEL_PROPAGATION)
        resolution = serializers.FloatField(
            required=False, help_text=f"Leiden only, greater than 0 (default {DEFAULT_RESOLUTION})"
        )

        def validate(self, data: dict) -> dict:
            given = self.initial_data.get("resolution")
            if given is not None and (isinstance(given, bool) or not isinstance(given, int | float)):
                # DRF's FloatField also takes true and "1.5"; the body is JSON, so its number must be one.
                raise serializers.ValidationError({"resolution": [f"{given!r} is not a JSON number"]})
            try:
                check_resolution(data["algorithm"], data.get("resolution"))
            except InvalidInput as error:
                raise serializers.ValidationError({"resolution": [str(error)]}) from error
            return data

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

    # Input's rules across its fields, which the serializer's own schema cannot say: a resolution only with Leiden.
    BODY_SCHEMA = {
        "oneOf": [
            {
                "type": "object",
                "properties": {"algorithm": {"type": "string", "enum": [LABEL_PROPAGATION]}},
                "not": {"required": ["resolution"]},
            },
            {
                "type": "object",
                "properties": {
                    "algorithm": {"type": "string", "enum": [LEIDEN]},
                    "resolution": {"type": "number", "minimum": MIN_RESOLUTION, "maximum": MAX_RESOLUTION},
                },
                "required": ["algorithm"],
            },
        ]
    }

    @extend_schema(request={"application/json": BODY_SCHEMA}, responses={200: Output})
    def post(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        if not isinstance(request.data, dict):
            raise InvalidInput("body: must be a JSON object")
        given = self.Input(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        sync_communities_check(group=group)
        report = communities_build(group=group, algorithm=data["algorithm"], resolution=data.get("resolution"))
        return Response(asdict(report))
