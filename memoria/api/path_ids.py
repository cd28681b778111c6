"""The ids a URL path names, checked like every other id before a view runs: 400 naming the path parameter.

A path id reaches the view as text the router did not look at (`<path:node_id>` takes anything but an empty
string); without this, a quote or NUL in it was looked up and answered "not found", where the same text in a
query or body is refused by name. Every view whose URL names an item derives from IdPathView.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict
from rest_framework.request import Request
from rest_framework.views import APIView

from memoria.requests.vocabulary import NodeId, RequestModel, input_parse


class PathIds(RequestModel):
    """The item ids a URL may hold; the group is the group check's business (404 for any it cannot see)."""

    model_config = ConfigDict(extra="ignore")

    node_id: NodeId | None = None
    edge_id: NodeId | None = None
    entity_id: NodeId | None = None


class IdPathView(APIView):
    """An API view whose URL names an item: its id is checked after authentication, permission and throttles."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        input_parse(PathIds, {name: value for name, value in kwargs.items() if isinstance(value, str)}, root="path")
