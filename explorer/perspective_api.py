"""Saved views of the graph page over REST (`/api/groups/<group>/views`): thin over explorer.perspectives.

Reading needs a user who may see the group; saving a private view too; sharing and the group's default need the
curator role (the service decides, so the rule is the same wherever it is called from).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.models import MAX_NAME_LENGTH, MAX_STATE_LENGTH
from explorer.perspective_request import PerspectiveChange, PerspectiveCreate
from explorer.perspectives import (
    PerspectiveRefused,
    default_perspective,
    perspective_card,
    perspective_change,
    perspective_create,
    perspective_delete,
    perspective_get,
    perspectives_list,
)
from memoria.requests.vocabulary import input_parse

# PerspectiveChange's own schema writes its optional fields as JSON Schema's "null" type, which OpenAPI 3.0 lacks.
VIEW_CHANGE = {
    "type": "object",
    "additionalProperties": False,
    "minProperties": 1,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_LENGTH},
        "state": {"type": "string", "maxLength": MAX_STATE_LENGTH, "description": "the graph page's URL query"},
        "shared": {"type": "boolean", "description": "share with the group (curator role) or make private"},
        "default": {"type": "boolean", "description": "make or unmake the group's default (curator role)"},
    },
}
VIEW_CARD = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description="{id, name, state, url, shared, default, owner, mine, created_at, updated_at}: `state` is the graph"
    " page's URL query, `url` opens the view",
)


class GroupViewsView(APIView):
    """List the views the user may open in the group (their own and the shared ones), or save one."""

    parser_classes = [JSONParser]
    permission_classes = [IsAuthenticated]  # saving a private view needs read access only

    @extend_schema(
        operation_id="groups_views_list",
        responses=OpenApiResponse(
            OpenApiTypes.OBJECT,
            description="{group, views: [view], default: id or null}: the default first, then by name",
        ),
    )
    def get(self, request: Request, group: str) -> Response:
        views = perspectives_list(user=request.user, group=group)
        default = next((view.pk for view in views if view.is_default), None)
        cards = [perspective_card(view, user=request.user) for view in views]
        return Response({"group": group, "views": cards, "default": default})

    @extend_schema(request=PerspectiveCreate, responses={201: VIEW_CARD})
    def post(self, request: Request, group: str) -> Response:
        wanted = input_parse(PerspectiveCreate, request.data)
        try:
            view = perspective_create(user=request.user, group=group, wanted=wanted)
        except PerspectiveRefused as error:
            raise PermissionDenied(str(error)) from error
        return Response(perspective_card(view, user=request.user), status=status.HTTP_201_CREATED)


class GroupDefaultViewView(APIView):
    """The group's default view, which the graph page opens with when its URL holds no state."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_view_default",
        responses=OpenApiResponse(OpenApiTypes.OBJECT, description="{group, view: view or null}"),
    )
    def get(self, request: Request, group: str) -> Response:
        view = default_perspective(user=request.user, group=group)
        return Response({"group": group, "view": view and perspective_card(view, user=request.user)})


class GroupViewView(APIView):
    """One view: open it, rename it, re-save its state, share it, make it the default, or delete it."""

    parser_classes = [JSONParser]
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="groups_view_retrieve", responses=VIEW_CARD)
    def get(self, request: Request, group: str, view_id: int) -> Response:
        view = perspective_get(user=request.user, group=group, view_id=view_id)
        return Response(perspective_card(view, user=request.user))

    @extend_schema(request={"application/json": VIEW_CHANGE}, responses=VIEW_CARD)
    def patch(self, request: Request, group: str, view_id: int) -> Response:
        wanted = input_parse(PerspectiveChange, request.data)
        try:
            view = perspective_change(user=request.user, group=group, view_id=view_id, wanted=wanted)
        except PerspectiveRefused as error:
            raise PermissionDenied(str(error)) from error
        return Response(perspective_card(view, user=request.user))

    @extend_schema(responses={204: None})
    def delete(self, request: Request, group: str, view_id: int) -> Response:
        try:
            perspective_delete(user=request.user, group=group, view_id=view_id)
        except PerspectiveRefused as error:
            raise PermissionDenied(str(error)) from error
        return Response(status=status.HTTP_204_NO_CONTENT)
