"""The search-as-you-type request (`GET /api/search/suggest`): what the header and graph boxes send."""

from __future__ import annotations

from pydantic import Field

from memoria.requests.vocabulary import GroupName, RequestModel

MAX_SUGGESTIONS = 20
MAX_TYPED_CHARS = 200


class SuggestRequest(RequestModel):
    group: GroupName
    # Blank text is valid and lists nothing (a box sends what is typed, spaces too); the schema says so exactly.
    q: str = Field(min_length=1, max_length=MAX_TYPED_CHARS, description="what has been typed so far")
    limit: int = Field(default=8, ge=1, le=MAX_SUGGESTIONS, description="how many entities to list")
