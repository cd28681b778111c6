"""POST episodes into a group: the REST face of the add_episode pipeline (thin: validate, check access, call it)."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.api.throttles import IngestThrottle, ThrottledOutput
from memoria.errors import InvalidInput
from memoria.ingest.episodes import episode_input_parse, episode_inputs_parse
from memoria.ingest.pipeline import episodes_add, extractors_for_settings

# One request is one transaction: bounded so that a request stays a few seconds of work.
MAX_EPISODES_PER_REQUEST = 500
COMMUNITIES_PARAMETER = "update_communities"
BOOLEAN_WORDS = {"true": True, "1": True, "false": False, "0": False}


def update_communities_parse(raw: str | None) -> bool:
    """?update_communities=false leaves the group's communities as they are (true, the default, refreshes them)."""
    if raw is None:
        return True
    value = BOOLEAN_WORDS.get(raw.strip().lower())
    if value is None:
        raise InvalidInput(f"{COMMUNITIES_PARAMETER}: {raw!r} must be true or false")
    return value


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
        request=dict,
        responses={200: Output, 201: Output, 429: ThrottledOutput},
        parameters=[
            OpenApiParameter(
                COMMUNITIES_PARAMETER, bool, description="refresh the communities of touched entities (default true)"
            )
        ],
    )
    def post(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        update_communities = update_communities_parse(request.query_params.get(COMMUNITIES_PARAMETER))
        data = request.data
        if isinstance(data, dict):
            episodes = [episode_input_parse(data, where="episode")]
        elif isinstance(data, list):
            if not 1 <= len(data) <= MAX_EPISODES_PER_REQUEST:
                raise InvalidInput(f"episodes: send 1–{MAX_EPISODES_PER_REQUEST} episodes, not {len(data)}")
            episodes = episode_inputs_parse(data, where="episodes")
        else:
            raise InvalidInput("body: must be an episode object or a list of them")
        results = episodes_add(
            group=group,
            episodes=episodes,
            extractors=extractors_for_settings(),
            batch_size=len(episodes),
            update_communities=update_communities,
        )
        added = sum(result.added for result in results)
        body = {
            "group": group,
            "added": added,
            "unchanged": len(results) - added,
            "episodes": [self.EpisodeOutput(asdict(result)).data for result in results],
        }
        return Response(body, status=status.HTTP_201_CREATED if added else status.HTTP_200_OK)
