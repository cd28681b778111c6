"""POST episodes into a group: the REST face of the add_episode pipeline (thin: validate, check access, call it)."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.errors import InvalidInput
from memoria.ingest.episodes import episode_input_parse, episode_inputs_parse
from memoria.ingest.pipeline import episodes_add

# One request is one transaction: bounded so that a request stays a few seconds of work.
MAX_EPISODES_PER_REQUEST = 500


class GroupEpisodesView(APIView):
    """Add one episode ({...}) or several ([...], at most 500) to a group; the request lands whole or not at all.

    Episodes already stored (same id) are reported with `added: false` and left unchanged.
    """

    parser_classes = [JSONParser]

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

    class Output(serializers.Serializer):
        group = serializers.CharField()
        added = serializers.IntegerField()
        unchanged = serializers.IntegerField()
        episodes = serializers.ListField(child=serializers.DictField())

    @extend_schema(request=dict, responses={200: Output, 201: Output})
    def post(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        data = request.data
        if isinstance(data, dict):
            episodes = [episode_input_parse(data, where="episode")]
        elif isinstance(data, list):
            if not 1 <= len(data) <= MAX_EPISODES_PER_REQUEST:
                raise InvalidInput(f"episodes: send 1–{MAX_EPISODES_PER_REQUEST} episodes, not {len(data)}")
            episodes = episode_inputs_parse(data, where="episodes")
        else:
            raise InvalidInput("body: must be an episode object or a list of them")
        results = episodes_add(group=group, episodes=episodes, batch_size=len(episodes))
        added = sum(result.added for result in results)
        body = {
            "group": group,
            "added": added,
            "unchanged": len(results) - added,
            "episodes": [self.EpisodeOutput(asdict(result)).data for result in results],
        }
        return Response(body, status=status.HTTP_201_CREATED if added else status.HTTP_200_OK)
