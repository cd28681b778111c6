"""POST episodes into a group: the REST face of the add_episode pipeline (thin: validate, check access, call it)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.admission.episodes import episodes_admit
from memoria.admission.throttles import IngestThrottle
from memoria.api.parameters import query_parameters
from memoria.api.throttles import ThrottledOutput
from memoria.ingest.episodes import MAX_EPISODES_PER_REQUEST, EpisodesPost, EpisodesQuery
from memoria.requests.vocabulary import input_parse

__all__ = ["MAX_EPISODES_PER_REQUEST", "GroupEpisodesView"]  # the batch bound, as the MCP tool reads it


class GroupEpisodesView(APIView):
    """Add one episode ({...}) or several ([...], at most 500) to a group; the request lands whole or not at all.

    Episodes already stored (same id) are reported with `added: false` and left unchanged. The LLM steps run
    when an LLM is configured (503/502 if it fails: nothing is written); then the communities of the touched
    entities are refreshed, unless `?update_communities=false` (a failure there is reported per episode in
    `communities_error`: the episodes stay stored).
    """

    parser_classes = [JSONParser]
    calls_llm = True  # when one is configured: the schema documents its 502
    throttle_classes = [IngestThrottle]

    class EpisodeOutput(serializers.Serializer):
        episode_id = serializers.CharField()
        name = serializers.CharField()
        added = serializers.BooleanField()
        entities = serializers.ListField(child=serializers.CharField())
        entities_created = serializers.ListField(child=serializers.CharField())
        facts_created = serializers.ListField(child=serializers.CharField())
        facts_merged = serializers.ListField(child=serializers.CharField())
        facts_invalidated = serializers.ListField(child=serializers.CharField())
        touched_entities = serializers.ListField(child=serializers.CharField())
        communities = serializers.ListField(child=serializers.CharField())
        communities_error = serializers.CharField(allow_null=True)

    class Output(serializers.Serializer):
        group = serializers.CharField()
        added = serializers.IntegerField()
        unchanged = serializers.IntegerField()
        episodes = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        request=EpisodesPost,
        responses={200: Output, 201: Output, 429: ThrottledOutput},
        parameters=query_parameters(EpisodesQuery),
    )
    def post(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        query = input_parse(EpisodesQuery, EpisodesQuery.given(request.query_params))
        answer = episodes_admit(group=group, given=request.data, update_communities=query.update_communities)
        answer["episodes"] = [self.EpisodeOutput(episode).data for episode in answer["episodes"]]
        return Response(answer, status=status.HTTP_201_CREATED if answer["added"] else status.HTTP_200_OK)
