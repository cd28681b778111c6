"""A request's moment: the three fields that say when its facts must count (REST body, query string, websocket
frame, MCP input), and how they resolve to the graph's AsOf (memoria/graph/asof.py holds the definition)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from pydantic import Field, StrictBool, ValidationInfo, field_validator

from memoria.errors import InvalidInput
from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.requests.vocabulary import RequestModel, Timestamp, input_parse

FIELDS = ("as_of", "known_at", "include_invalidated")
# What views and traversals take: `valid_at` is the older name of `as_of`, kept for the callers that used it.
VIEW_FIELDS = ("valid_at", *FIELDS)
FLAG_VALUES = {"true": True, "false": False}  # a URL's include_invalidated


class AsOfInput(RequestModel):
    """The three request fields (REST body, websocket frame): when, as known when, or every fact."""

    as_of: Timestamp | None = Field(default=None, description="the world's time the facts must hold at (default: now)")
    known_at: Timestamp | None = Field(
        default=None, description="what the memory knew at this time (default: now); replays an earlier state"
    )
    include_invalidated: StrictBool = Field(
        default=False, description="every fact counts, ended or not (audits); not with as_of or known_at"
    )

    @field_validator("include_invalidated")
    @classmethod
    def _not_with_times(cls, value: bool, info: ValidationInfo) -> bool:
        given = [name for name in ("as_of", "known_at") if info.data.get(name) is not None]
        if value and given:
            raise ValueError(f"true counts every fact at every time, so it cannot come with {' and '.join(given)}")
        return value

    def resolved(self, now: datetime | None = None) -> AsOf:
        """The moment this request asks at, missing times filled with now (one now for both)."""
        if self.include_invalidated:
            return EVERY_FACT
        stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime(TIMESTAMP_FORMAT)
        return AsOf(as_of=self.as_of or stamp, known_at=self.known_at or stamp)


def view_moment(given: Mapping[str, object]) -> AsOf:
    """The moment a view's facts must count at, from the time fields given (as_of, known_at, include_invalidated,
    and valid_at, the older name of as_of). As for retrieval, none of them means now, so a view shows what holds
    now; `include_invalidated=true` shows history, ended facts included, for audits. InvalidInput names the field
    as the caller spelled it."""
    raw = {name: given[name] for name in FIELDS if given.get(name) is not None}
    older = given.get("valid_at")
    if older is not None and "as_of" in raw:
        raise InvalidInput("valid_at: is the older name of as_of: give one of them")
    if older is not None:
        raw["as_of"] = older
    if isinstance(raw.get("include_invalidated"), str):  # a URL's flag
        flag = str(raw["include_invalidated"])
        raw["include_invalidated"] = FLAG_VALUES.get(flag.lower(), flag)
    try:
        return input_parse(AsOfInput, raw).resolved()
    except InvalidInput as error:
        named = "valid_at" if older is not None else "as_of"
        raise InvalidInput(
            [f"{named}:{p.removeprefix('as_of:')}" if p.startswith("as_of:") else p for p in error.problems]
        ) from None
