"""The words of the domain as annotated pydantic types, and the one adapter from ValidationError to InvalidInput.

Every request model (MCP tool input today; REST bodies and file records as they move over) is built on these,
so a node id, a group or a weight is checked by the same rule everywhere. The limits are imported from the
modules that already own them (memoria.graph.rules, the role rules), never restated here.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
)

from memoria.accounts.roles import GROUP_PATTERN
from memoria.errors import InvalidInput, names_shown
from memoria.graph.rules import (
    ID_PATTERN,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    MAX_WEIGHT,
    MIN_WEIGHT,
    normalise_tag,
    normalise_timestamp,
)

# JSON Schema regexes: Python's \Z (end of text, no final newline) is written $ for JSON Schema readers;
# the Python pattern itself still runs in the validator below, so the stricter rule is the one applied.
_ID_SCHEMA_PATTERN = ID_PATTERN.pattern.replace("\\Z", "$")


def _matches(pattern: Any, what: str) -> Any:
    def check(value: str) -> str:
        if not pattern.match(value):
            raise ValueError(f"must be {what}")
        return value

    return check


def _text(what: str) -> Any:
    """Before the str check, so a number where an id belongs reads "must be a node id", not pydantic's words."""

    def check(value: Any) -> Any:
        if not isinstance(value, str):
            raise ValueError(f"must be {what}")
        return value

    return check


def _tag(value: str) -> str:
    tag = normalise_tag(value)
    if not 1 <= len(tag) <= MAX_TAG_LENGTH:
        raise ValueError(f"must be 1–{MAX_TAG_LENGTH} characters once normalised")
    return tag


def _timestamp(value: str) -> str:
    try:
        return normalise_timestamp(value)
    except ValueError as error:
        raise ValueError(f"must be an ISO 8601 date-time with a zone ({error})") from error


NodeId = Annotated[
    str,
    Field(
        description="a memory's id (entity, episode, community or fact)",
        json_schema_extra={"pattern": _ID_SCHEMA_PATTERN},
    ),
    BeforeValidator(_text("a node id: 1–200 letters, digits or ._:/@#-")),
    AfterValidator(_matches(ID_PATTERN, "a node id: 1–200 letters, digits or ._:/@#-")),
]
GroupName = Annotated[
    str,
    Field(description="a memory group's name", json_schema_extra={"pattern": GROUP_PATTERN.pattern}),
    AfterValidator(_matches(GROUP_PATTERN, "1–64 letters, digits, '_' or '-'")),
]
Tag = Annotated[str, Field(description="a tag; case and spacing are normalised"), AfterValidator(_tag)]
Tags = Annotated[list[Tag], Field(max_length=MAX_TAGS)]
Weight = Annotated[float, Field(ge=MIN_WEIGHT, le=MAX_WEIGHT, description="a fact's weight")]
Timestamp = Annotated[
    str,
    Field(
        description="ISO 8601 date-time with a zone, e.g. 2026-03-01T09:00:00Z",
        json_schema_extra={"format": "date-time"},
    ),
    AfterValidator(_timestamp),
]


def Checked(kind: Any, *bounds: Any) -> Any:
    """A field documented as `kind` but checked by an engine validator that already owns its rule and wording
    (the import format's for edges): the schema tells a client what to send, the rule is written once."""
    return Annotated[Any, WithJsonSchema(TypeAdapter(Annotated[kind, *bounds] if bounds else kind).json_schema())]


class RequestModel(BaseModel):
    """Base of every request model: unknown fields are refused, not ignored, so a typo is an error."""

    model_config = ConfigDict(extra="forbid")


Model = TypeVar("Model", bound=BaseModel)


def _field_path(location: tuple[int | str, ...], where: str = "") -> str:
    path = where
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "body"


# Pydantic's own words where the project already had its wording ("group: is required" in every parser).
_MESSAGES = {"missing": "is required", "model_type": "must be a JSON object", "dict_type": "must be a JSON object"}


def validation_problems(error: ValidationError, where: str = "") -> list[str]:
    """Each pydantic error as `field.path: message`, the form every InvalidInput of the project uses.

    Unknown fields are named by the object that holds them (`episode: unknown field(s) colour`), once per object,
    so a key that is blank or starts with odd characters never stands where a field path is expected.
    """
    problems: list[str] = []
    unknown: dict[str, list[str]] = {}
    for item in error.errors(include_url=False, include_input=False):
        location = tuple(item["loc"])
        if item["type"] == "extra_forbidden" and location:
            unknown.setdefault(_field_path(location[:-1], where), []).append(str(location[-1]))
            continue
        message = _MESSAGES.get(item["type"], item["msg"].removeprefix("Value error, "))
        problems.append(f"{_field_path(location, where)}: {message}")
    problems += [f"{where}: unknown field(s) {names_shown(names)}" for where, names in unknown.items()]
    return problems


def input_parse(model: type[Model], raw: Any, *, where: str = "") -> Model:
    """Validate decoded JSON into `model`; InvalidInput names every offending field by its path.

    `where` prefixes every path (`merge.from`), so a body keeps the names its hand-written parser gave it.
    """
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise InvalidInput(validation_problems(error, where)) from None
