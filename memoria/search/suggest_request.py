"""The search-as-you-type request (`GET /api/search/suggest`): what the header and graph boxes send."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from memoria.graph.vocabulary import GroupName, RequestModel

MAX_SUGGESTIONS = 20
MAX_TYPED_CHARS = 200


class SuggestRequest(RequestModel):
    group: GroupName
    q: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TYPED_CHARS)] = Field(
        description="what has been typed so far"
    )
    limit: int = Field(default=8, ge=1, le=MAX_SUGGESTIONS, description="how many entities to list")
