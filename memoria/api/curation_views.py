"""Curation over REST: read an edge, edit, invalidate, delete or add one, merge entities, list and undo changes.

Thin: check group access (writes need the curator role, see permissions.ReadOrCurate), parse the
body with the engine's parser, call the service, answer with the audit entry (docs/curation.md).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_group_access
from memoria.api.parameters import query_parameters
from memoria.api.path_ids import IdPathView
from memoria.curation.audit import audit_entries_page
from memoria.curation.commit import ChangeOutcome
from memoria.curation.create import edge_create
from memoria.curation.delete import edge_delete
from memoria.curation.edit import edge_update
from memoria.curation.inputs import (
    VERSION_PATTERN,
    AuditQuery,
    EdgeCreate,
    EdgeInvalidation,
    EdgePatch,
    EntityMerge,
    Undo,
    edge_create_parse,
    edge_delete_parse,
    edge_invalidation_parse,
    edge_patch_parse,
    entity_merge_parse,
)
from memoria.curation.invalidate import edge_invalidate
from memoria.curation.merge import entity_merge
from memoria.curation.selectors import edge_detail, entity_state_get
from memoria.curation.undo import audit_entry_undo
from memoria.requests.query import query_parse
from memoria.requests.vocabulary import input_parse


def _answer(outcome: ChangeOutcome, **extra: Any) -> dict[str, Any]:
    return outcome.as_dict(**extra)


def _actor(request: Request) -> str:
    return request.user.get_username()


class GroupEdgesView(APIView):
    """Add an edge between two nodes of the group (curator)."""

    parser_classes = [JSONParser]

    @extend_schema(request=EdgeCreate, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        record = edge_create_parse(request.data, group=group)
        outcome = edge_create(group=group, record=record, actor=_actor(request))
        body = _answer(outcome, edge=edge_detail(group=group, edge_id=record.id))
        return Response(body, status=status.HTTP_201_CREATED)


class GroupEdgeView(IdPathView):
    """One edge: read it as the inspector shows it, edit it in place (PATCH), or delete it."""

    parser_classes = [JSONParser]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, group: str, edge_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        return Response(edge_detail(group=group, edge_id=edge_id))

    @extend_schema(request=EdgePatch, responses={200: OpenApiTypes.OBJECT})
    def patch(self, request: Request, group: str, edge_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        patch = edge_patch_parse(request.data)
        outcome = edge_update(group=group, edge_id=edge_id, patch=patch, actor=_actor(request))
        return Response(_answer(outcome, edge=edge_detail(group=group, edge_id=edge_id)))

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "version",
                {"type": "string", "pattern": VERSION_PATTERN.pattern},
                description="the version the caller saw (optional)",
            )
        ],
        request=OpenApiTypes.OBJECT,
        responses={200: OpenApiTypes.OBJECT},
    )
    def delete(self, request: Request, group: str, edge_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        version = edge_delete_parse(request.data, version=request.query_params.get("version"))
        outcome = edge_delete(group=group, edge_id=edge_id, version=version, actor=_actor(request))
        return Response(_answer(outcome, edge=None))


class GroupEdgeInvalidateView(IdPathView):
    """End an edge's validity (invalid_at, default now; expired_at now); the edge stays, struck through."""

    parser_classes = [JSONParser]

    @extend_schema(request=EdgeInvalidation, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, group: str, edge_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        invalidation = edge_invalidation_parse(request.data)
        outcome = edge_invalidate(group=group, edge_id=edge_id, invalidation=invalidation, actor=_actor(request))
        return Response(_answer(outcome, edge=edge_detail(group=group, edge_id=edge_id)))


class GroupEntityMergeView(IdPathView):
    """Merge the entity named by `from` into this one: facts, mentions and memberships move over, `from` goes."""

    parser_classes = [JSONParser]

    @extend_schema(request=EntityMerge, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, group: str, entity_id: str) -> Response:
        check_group_access(user=request.user, group=group)
        merge = entity_merge_parse(request.data)
        outcome = entity_merge(group=group, entity_id=entity_id, merge=merge, actor=_actor(request))
        kept = entity_state_get(group=group, entity_id=entity_id)
        entity = {"id": entity_id, "name": kept.name, "version": kept.version()} if kept else None
        return Response(_answer(outcome, entity=entity))


class GroupAuditView(APIView):
    """The group's curation changes, newest first, a page at a time; optionally only those touching one item."""

    @extend_schema(
        parameters=query_parameters(AuditQuery),
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, group: str) -> Response:
        check_group_access(user=request.user, group=group)
        query = query_parse(AuditQuery, request.query_params)
        page = audit_entries_page(
            group=group, item_id=query.item_id, item_kind=query.item_kind, before=query.before, limit=query.limit
        )
        return Response({"entries": list(page.entries), "next_before": page.next_before})


class GroupAuditUndoView(APIView):
    """Undo an entry: only the latest change to its items, and only while they are as it left them (else 409)."""

    parser_classes = [JSONParser]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, group: str, entry_id: int) -> Response:
        check_group_access(user=request.user, group=group)
        input_parse(Undo, {} if request.data is None else request.data, where="undo")
        outcome = audit_entry_undo(group=group, entry_id=entry_id, actor=_actor(request))
        return Response(_answer(outcome))
