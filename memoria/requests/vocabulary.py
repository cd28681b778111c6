"""The words of the domain as annotated pydantic types, and the one adapter from ValidationError to InvalidInput.

Every request model (MCP tool input today; REST bodies and file records as they move over) is built on these,
so a node id, a group or a weight is checked by the same rule everywhere. The limits are imported from the
modules that already own them (memoria.graph.rules, the role rules), never restated here.
"""

from __future__ import annotations

import enum
import json
import math
import re
from collections.abc import Iterable
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
from pydantic_core import InitErrorDetails, PydanticCustomError

from memoria.accounts.roles import GROUP_PATTERN
from memoria.errors import InvalidInput, names_shown
from memoria.graph.rules import (
    ID_PATTERN,
    MAX_QUERY_LENGTH,
    MAX_RELATION_LENGTH,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    MAX_WEIGHT,
    MIN_WEIGHT,
    normalise_tag,
    normalise_timestamp,
    relation_problem,
)

# JSON Schema regexes: Python's \Z (end of text, no final newline) is written $ for JSON Schema readers;
# the Python pattern itself still runs in the validator below, so the stricter rule is the one applied.
_ID_SCHEMA_PATTERN = ID_PATTERN.pattern.replace("\\Z", "$")


def _matches(pattern: Any, what: str) -> Any:
    def check(value: str) -> str:
        if not pattern.fullmatch(value):  # "$" alone would let a final newline through
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


def _relation(value: str) -> str:
    """The import format's rule for a relation name (memoria.graph.rules), so a relation asked about is one that
    could be stored: a quote, NUL or a clause of Cypher in it is refused, never looked up."""
    text = value.strip()
    if not text:
        raise ValueError("must not be empty")
    if len(text) > MAX_RELATION_LENGTH:
        raise ValueError(f"is longer than {MAX_RELATION_LENGTH} characters")
    if problem := relation_problem(text):
        raise ValueError(problem)
    return text


def _timestamp(value: str) -> str:
    try:
        return normalise_timestamp(value)
    except ValueError as error:
        raise ValueError(f"must be an ISO 8601 date-time with a zone ({error})") from error


def PatternText(pattern: re.Pattern[str], what: str, description: str) -> Any:
    """A text the whole of which matches `pattern` (never a final newline), refused as "must be <what>"."""
    return Annotated[
        str,
        Field(description=description, json_schema_extra={"pattern": _schema_pattern(pattern)}),
        BeforeValidator(_text(what)),
        AfterValidator(_matches(pattern, what)),
    ]


def _schema_pattern(pattern: re.Pattern[str]) -> str:
    """The pattern as JSON Schema reads it: a search, so anchored at both ends, "$" for Python's "\\Z" (a schema
    that let "!!x" through where the text must be all of one would promise what the server refuses)."""
    text = pattern.pattern.replace("\\Z", "$")
    return text if text.startswith("^") else f"^{text}"


NodeId = Annotated[
    str,
    Field(
        description="a memory's id (entity, episode, community or fact)",
        json_schema_extra={"pattern": _ID_SCHEMA_PATTERN},
    ),
    BeforeValidator(_text("a node id: 1–200 letters, digits or ._:/@#-")),
    AfterValidator(_matches(ID_PATTERN, "a node id: 1–200 letters, digits or ._:/@#-")),
]
# The same ids, each described by what it names: an agent reads the description to know which id goes where.
FactId = Annotated[NodeId, Field(description="a fact's id (search_memory, get_facts or get_fact give it)")]
EntityId = Annotated[NodeId, Field(description="an entity's id (search_memory or retrieve give it)")]
EpisodeId = Annotated[NodeId, Field(description="an episode's id (list_episodes or search_memory give it)")]
GroupName = Annotated[
    str,
    Field(description="a memory group's name", json_schema_extra={"pattern": GROUP_PATTERN.pattern}),
    BeforeValidator(_text("1–64 letters, digits, '_' or '-'")),
    AfterValidator(_matches(GROUP_PATTERN, "1–64 letters, digits, '_' or '-'")),
]
Relation = Annotated[
    str,
    Field(
        description="a relation name: letters, digits, spaces and _-.',()&:+/",
        min_length=1,
        max_length=MAX_RELATION_LENGTH,
    ),
    BeforeValidator(_text("a relation name")),
    AfterValidator(_relation),
]
# Who or what a memory belongs to, finer than its group (mem0's user_id/agent_id/run_id, Zep's users and sessions):
# ids a caller already has (an email, a UUID, a chat's id), so a little wider than a node id's characters.
SCOPE_ID_PATTERN = re.compile(r"[A-Za-z0-9._:/@#+\-]{1,128}\Z")
_SCOPE_ID_RULE = "a scope id: 1–128 letters, digits or ._:/@#+-"
ScopeId = PatternText(SCOPE_ID_PATTERN, _SCOPE_ID_RULE, "an id that scopes memories: a user's, an agent's, a session's")
# Free metadata: a flat JSON object. Keys are names a program chose (never Cypher: stored as `key=value` texts).
METADATA_KEY_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}\Z")
MAX_METADATA_KEYS = 20
MAX_METADATA_VALUE_LENGTH = 500
MAX_METADATA_BYTES = 4096  # the object as compact JSON, in UTF-8
MAX_METADATA_WHOLE = 2**53  # a whole number beyond it is not one a JSON reader keeps exactly (nor a float's)


def _metadata_value(key: str, value: Any) -> str | int | float | bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) <= MAX_METADATA_WHOLE:
            return value
        try:
            value = float(value)  # kept as JSON readers keep it
        except OverflowError:  # not a refusal by itself: it would end the request as a 500
            raise ValueError(f"{key}: is a number too large to keep") from None
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{key}: must be a finite number")
        return int(value) if value.is_integer() and abs(value) <= MAX_METADATA_WHOLE else value
    if isinstance(value, str):
        if len(value) > MAX_METADATA_VALUE_LENGTH:
            raise ValueError(f"{key}: is longer than {MAX_METADATA_VALUE_LENGTH} characters")
        return value
    raise ValueError(f"{key}: must be a text, a number or true/false, not {type(value).__name__}")


def _metadata(value: Any) -> dict[str, str | int | float | bool]:
    """Flat and bounded, so an episode's metadata stays a few properties the server can match exactly; a whole
    number is stored as one (2.0 is 2), so a filter by 2 finds it."""
    if not isinstance(value, dict):
        raise ValueError("must be a JSON object of names to texts, numbers or true/false")
    if len(value) > MAX_METADATA_KEYS:
        raise ValueError(f"at most {MAX_METADATA_KEYS} keys, got {len(value)}")
    checked: dict[str, str | int | float | bool] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not METADATA_KEY_PATTERN.fullmatch(key):
            shown = key if isinstance(key, str) and len(key) <= 64 else f"{str(key)[:64]}…"
            rule = "1–64 letters, digits or _.- starting with a letter or _"
            raise ValueError(f"{shown!r} is not a metadata key: {rule}")
        checked[key] = _metadata_value(key, item)
    size = len(json.dumps(checked, ensure_ascii=False, separators=(",", ":")).encode())
    if size > MAX_METADATA_BYTES:
        raise ValueError(f"is {size} bytes as JSON, more than {MAX_METADATA_BYTES}")
    return checked


# The schema says each bound but the total, which no JSON Schema keyword counts (the docs and the refusal do).
MetadataValue = (
    Annotated[str, Field(max_length=MAX_METADATA_VALUE_LENGTH)]
    | Annotated[int, Field(ge=-MAX_METADATA_WHOLE, le=MAX_METADATA_WHOLE)]
    | float
    | bool
)
Metadata = Annotated[
    dict[str, MetadataValue],
    Field(
        description=f"free metadata: a flat object of names to texts, numbers or true/false; at most"
        f" {MAX_METADATA_KEYS} keys, {MAX_METADATA_BYTES} bytes as JSON",
        examples=[{"channel": "support", "priority": 2}],
        json_schema_extra={
            "maxProperties": MAX_METADATA_KEYS,
            "propertyNames": {"pattern": _schema_pattern(METADATA_KEY_PATTERN)},
        },
    ),
    BeforeValidator(_metadata),
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


def _whole(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not float(value).is_integer():
        raise ValueError("must be a whole number")
    return int(value)


def _finite(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError("must be a number")
    return float(value)


def _query(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_QUERY_LENGTH:
        raise ValueError(f"must be a non-empty text of at most {MAX_QUERY_LENGTH} characters")
    return value


# JSON numbers as the project reads them: true/false and "3" are not numbers, 2.0 is a whole number.
WholeNumber = Annotated[int, BeforeValidator(_whole)]
Number = Annotated[float, BeforeValidator(_finite)]
# What a search or a retrieval is asked (not stripped here: the engine strips what it searches for).
QueryText = Annotated[
    str,
    Field(min_length=1, max_length=MAX_QUERY_LENGTH, description="the question or words to look for"),
    BeforeValidator(_query),
]


def OneOf(kind: type[enum.Enum] | Iterable[str]) -> Any:
    """A choice among an enum's values (or plain names), refused in the project's words ("'x' is not one of a, b")."""
    values = [member.value for member in kind] if isinstance(kind, type) else [str(value) for value in kind]

    def check(value: Any) -> Any:
        if value not in values:
            raise ValueError(f"{value!r} is not one of {', '.join(map(str, values))}")
        return value

    base = kind if isinstance(kind, type) else str
    return Annotated[base, BeforeValidator(check), WithJsonSchema({"type": "string", "enum": values})]


def ListOf(kind: Any, what: str, *, non_empty: bool = False, most: int | None = None) -> Any:
    """A JSON list of `kind`; anything else (an empty list too, when `non_empty`) is refused in the project's words."""

    def check(value: Any) -> Any:
        if not isinstance(value, list) or (non_empty and not value):
            raise ValueError(f"must be a {'non-empty ' if non_empty else ''}list of {what}")
        if most is not None and len(value) > most:
            raise ValueError(f"at most {most} items, got {len(value)}")
        return value

    return Annotated[list[kind], BeforeValidator(check), Field(min_length=1 if non_empty else 0, max_length=most)]


def _flag(value: Any) -> Any:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


Flag = Annotated[bool, BeforeValidator(_flag)]


# An engine validator's problem, in the engine's words; its path is completed from where the model met it.
_ENGINE_PROBLEM = "engine_problem"


def problems_raise(title: str, problems: list[str], *, where: str = "") -> None:
    """Inside a validator, report an engine check's problems (InvalidInput's `path: message` strings) in the engine's
    words, so a rule the engine owns is written once and every problem of a body still comes at once.

    `where` is the path the engine wrote them under (`facts` for a scope's rules); it is taken off and the path of
    the value being validated is put in its place (`config.facts.limit` inside a search body).
    """
    details = []
    for problem in problems:
        path, _, message = problem.partition(": ")
        relative = path.removeprefix(where).removeprefix(".") if where else path
        context = {"path": relative, "message": message}
        details.append(
            InitErrorDetails(type=PydanticCustomError(_ENGINE_PROBLEM, "{message}", context), loc=(), input=None)
        )
    if details:
        raise ValidationError.from_exception_data(title, details)


def documented_as(kind: Any, *bounds: Any) -> WithJsonSchema:
    """The schema of a field typed `Annotated[Any, documented_as(kind)]`: documented as `kind` but checked by an
    engine validator that already owns its rule and wording (the import format's for edges), so the schema tells a
    client what to send and the rule is written once. A marker rather than a type-returning call, so type checkers
    read the field as what it is: any value, checked later."""
    return WithJsonSchema(TypeAdapter(Annotated[kind, *bounds] if bounds else kind).json_schema())


class RequestModel(BaseModel):
    """Base of every request model: unknown fields are refused, not ignored, so a typo is an error."""

    model_config = ConfigDict(extra="forbid")


Model = TypeVar("Model", bound=BaseModel)


def _field_path(location: tuple[int | str, ...], where: str = "", root: str = "body") -> str:
    path = where
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or root


# Pydantic's own words where the project already had its wording ("group: is required" in every parser).
_MESSAGES = {"missing": "is required", "model_type": "must be a JSON object", "dict_type": "must be a JSON object"}


def validation_problems(error: ValidationError, where: str = "", root: str = "body") -> list[str]:
    """Each pydantic error as `field.path: message`, the form every InvalidInput of the project uses.

    Unknown fields are named by the object that holds them (`episode: unknown field(s) colour`), once per object,
    so a key that is blank or starts with odd characters never stands where a field path is expected.
    """
    problems: list[str] = []
    unknown: dict[str, list[str]] = {}
    for item in error.errors(include_url=False, include_input=False):
        location = tuple(item["loc"])
        if item["type"] == "extra_forbidden" and location:
            unknown.setdefault(_field_path(location[:-1], where, root), []).append(str(location[-1]))
            continue
        if item["type"] == _ENGINE_PROBLEM:
            context = item.get("ctx", {})
            path, relative = _field_path(location, where, root=""), context["path"]
            path += relative if relative.startswith("[") or not path else f".{relative}" if relative else ""
            problems.append(f"{path or root}: {context['message']}")
            continue
        message = _MESSAGES.get(item["type"], item["msg"].removeprefix("Value error, "))
        problems.append(f"{_field_path(location, where, root)}: {message}")
    problems += [f"{where}: unknown field(s) {names_shown(names)}" for where, names in unknown.items()]
    return problems


def input_parse(model: type[Model], raw: Any, *, where: str = "", root: str = "body") -> Model:
    """Validate decoded JSON into `model`; InvalidInput names every offending field by its path.

    `where` prefixes every path (`merge.from`), so a body keeps the names its hand-written parser gave it; `root`
    names the whole input where no field does (`parameters` for a URL's query string).
    """
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise InvalidInput(validation_problems(error, where, root)) from None
