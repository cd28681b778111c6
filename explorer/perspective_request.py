"""What saving and changing a perspective sends (`/api/groups/<group>/views/`), as pydantic request models.

The state is the graph page's URL query (view_state.js writes it); only its known keys are accepted, so a saved
view cannot smuggle parameters the page would not read, and its size is bounded.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import parse_qsl

from pydantic import AfterValidator, Field, StrictBool, model_validator

from explorer.models import MAX_NAME_LENGTH, MAX_STATE_LENGTH
from memoria.requests.vocabulary import RequestModel

# The graph page's URL keys (docs/explorer.md, "The view in the URL").
STATE_KEYS = frozenset(
    {
        "node", "nodes", "expanded", "hidden", "sel", "edge", "q",
        "cat", "w", "as_of", "colour", "size", "ew", "layout", "links", "pins",
        "action", "from", "to", "mode", "max_hops", "seeds", "hops", "top", "aware", "pq",
    }
)  # fmt: skip


def _printable(value: str) -> str:
    if any(ord(character) < 32 or ord(character) == 127 for character in value):
        raise ValueError("must not hold control characters")
    return value


def _name(value: str) -> str:
    name = " ".join(_printable(value).split())
    if not name:
        raise ValueError("must not be blank")
    return name


def _state(value: str) -> str:
    state = _printable(value).removeprefix("?")
    try:
        pairs = parse_qsl(state, keep_blank_values=True, strict_parsing=bool(state))
    except ValueError as error:
        raise ValueError(f"must be a URL query such as 'nodes=a,b&w=0.5' ({error})") from error
    unknown = sorted({key for key, _ in pairs} - STATE_KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown[:5])}; known: {', '.join(sorted(STATE_KEYS))}")
    return state


ViewName = Annotated[
    str, Field(min_length=1, max_length=MAX_NAME_LENGTH, description="shown in the Views menu"), AfterValidator(_name)
]
ViewState = Annotated[
    str,
    Field(max_length=MAX_STATE_LENGTH, description="the graph page's URL query, e.g. nodes=a,b&expanded=a&w=0.5"),
    AfterValidator(_state),
]


class PerspectiveCreate(RequestModel):
    name: ViewName
    state: ViewState
    shared: StrictBool = Field(default=False, description="seen by everyone of the group (curator role)")
    default: StrictBool = Field(default=False, description="the group's default view (curator role; implies shared)")


class PerspectiveChange(RequestModel):
    name: ViewName | None = None
    state: ViewState | None = None
    shared: StrictBool | None = Field(default=None, description="share with the group (curator role) or make private")
    default: StrictBool | None = Field(default=None, description="make or unmake the group's default (curator role)")

    @model_validator(mode="after")
    def _something(self) -> PerspectiveChange:
        if not self.model_fields_set:
            raise ValueError("name, state, shared or default: give at least one")
        return self
