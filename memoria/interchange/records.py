"""The records of a graph document (docs/import-format.md) as pydantic models: one node, one edge, one link.

Each field is checked by the rule and the words the import format has always used (`edges[0].weight: 1.5 is
outside [0.25, 1.0]`), and documented in the OpenAPI schema from the same model. Rules that span records
(duplicate ids, links to unknown nodes, the problem cap) live in memoria.interchange.document, after these.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)

from memoria.graph import kinds
from memoria.graph.rules import (
    FORBIDDEN_IN_TEXT,
    ID_PATTERN,
    MAX_NAME_LENGTH,
    MAX_RELATION_LENGTH,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    MAX_TEXT_LENGTH,
    MAX_WEIGHT,
    MIN_WEIGHT,
    normalise_tag,
    normalise_timestamp,
    relation_problem,
    shown,
    text_problem,
)
from memoria.requests.vocabulary import NodeId, RequestModel, Timestamp

PROPERTY_KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}\Z")
# Counts a legitimate document stays far below; a hostile one costs an error instead of memory and a huge write.
MAX_LABELS = 16
MAX_PROPERTIES = 100
MAX_PROPERTY_LIST = 1_000
MAX_EDGE_EPISODES = 10_000
MAX_ID_LENGTH = 200
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def scalar_ok(value: Any) -> bool:
    """A property value the graph server stores as it is: a bounded clean string, a 64-bit int, a finite float."""
    if isinstance(value, bool | str):
        return isinstance(value, bool) or (len(value) <= MAX_TEXT_LENGTH and not FORBIDDEN_IN_TEXT.search(value))
    if isinstance(value, int):
        return INT64_MIN <= value <= INT64_MAX  # what the graph server stores; Python's ints have no bound
    if isinstance(value, float):
        return math.isfinite(value)
    return False


# Field checks. Each takes the decoded JSON value as it came (None where the key is null or left out) and
# answers the stored value or raises ValueError in the import format's words.


def _string(
    max_length: int, *, required: bool, single_line: bool | None = None, non_empty: bool | None = None
) -> Callable[[Any], str | None]:
    """A string field; by default one no longer than a name is a one-line text, and a required one is not blank."""
    one_line = max_length <= MAX_NAME_LENGTH if single_line is None else single_line
    blank_refused = required if non_empty is None else non_empty

    def check(value: Any) -> str | None:
        if value is None:
            if required:
                raise ValueError("is required")
            return None
        if not isinstance(value, str):
            raise ValueError(f"must be a string, not {type(value).__name__}")
        if blank_refused and not value.strip():
            raise ValueError("must not be empty")
        if len(value) > max_length:
            raise ValueError(f"is longer than {max_length} characters")
        if problem := text_problem(value, single_line=one_line):
            raise ValueError(problem)
        return value

    return check


def _identifier(value: Any) -> str:
    text = _string(MAX_ID_LENGTH, required=True)(value)
    if not ID_PATTERN.match(text):
        raise ValueError(f"{shown(text)} may hold only letters, digits and ._:/@#-")
    return text


def _optional_identifier(value: Any) -> str | None:
    return None if value is None else _identifier(value)


def _timestamp(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError("must be an ISO 8601 date-time string")
    try:
        return normalise_timestamp(value)
    except ValueError as error:
        # The parser's own message quotes the whole value: only the time-zone hint is worth passing on.
        reason = str(error) if "time zone" in str(error) else "expected e.g. 2025-03-01T09:30:00Z"
        raise ValueError(f"{shown(value)} is not a usable ISO 8601 date-time: {reason}") from None


def _choice(choices: tuple[str, ...], *, optional: bool = True) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if value is None and optional:
            return None
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return value

    return check


def _relation(value: Any) -> str:
    text = _string(MAX_RELATION_LENGTH, required=True)(value)
    if problem := relation_problem(text):
        raise ValueError(problem)
    return text.strip()


def _weight(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not scalar_ok(value):
        raise ValueError("must be a number in [0.25, 1.0]")
    if not MIN_WEIGHT <= value <= MAX_WEIGHT:
        raise ValueError(f"{value} is outside [0.25, 1.0]")
    return float(value)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"must be a list, not {type(value).__name__}")
    return value


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError("must be a list of strings")
    return value


def _raise_all(problems: list[str]) -> None:
    """A field with several problems names them all, in one line."""
    if problems:
        raise ValueError("; ".join(problems))


def _tags(value: Any) -> tuple[str, ...]:
    raw = _strings(value)
    if len(raw) > MAX_TAGS:
        raise ValueError(f"has {len(raw)} tags; at most {MAX_TAGS} are allowed")
    tags: dict[str, None] = {}
    problems: list[str] = []
    for tag in raw:
        normal = normalise_tag(tag)
        if not 1 <= len(normal) <= MAX_TAG_LENGTH:
            problems.append(f"tag {shown(tag)} must be 1–{MAX_TAG_LENGTH} characters")
        elif problem := text_problem(normal, single_line=True):
            problems.append(f"tag {shown(tag)} {problem}")
        else:
            tags[normal] = None
    _raise_all(problems)
    return tuple(tags)


def _episode_ids(value: Any) -> tuple[str, ...]:
    if isinstance(value, list) and len(value) > MAX_EDGE_EPISODES:
        raise ValueError(f"has {len(value)} ids; at most {MAX_EDGE_EPISODES} are allowed")
    if not isinstance(value, list) or not all(isinstance(item, str) and ID_PATTERN.match(item) for item in value):
        raise ValueError("must be a list of episode ids")
    return tuple(dict.fromkeys(value))


def node_kind(labels: list[str]) -> str:
    """The node's kind: its one kind label, Entity when it has none (or, refused anyway, several)."""
    kind_labels = {label for label in labels if label in kinds.NODE_KINDS}
    return kind_labels.pop() if len(kind_labels) == 1 else kinds.ENTITY


def _labels(value: Any) -> list[str]:
    labels = _strings(value)
    if len(labels) > MAX_LABELS:
        raise ValueError(f"has {len(labels)} labels; at most {MAX_LABELS} are allowed")
    problems: list[str] = []
    kind_labels = sorted({label for label in labels if label in kinds.NODE_KINDS})
    if len(kind_labels) > 1:
        problems.append(f"has more than one kind label {kind_labels}")
    kind = node_kind(labels)
    allowed_extra = kinds.entity_labels()
    for label in labels:
        if label in kinds.NODE_KINDS or label == kinds.MEMORY_LABEL:
            continue
        if label not in allowed_extra:
            problems.append(f"label {shown(label)} is not allowed (allowed: {', '.join(allowed_extra)})")
        elif kind != kinds.ENTITY:
            problems.append(f"label {shown(label)} is only allowed on entities")
    _raise_all(problems)
    return labels


def _properties(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError("must be an object")
    if len(value) > MAX_PROPERTIES:
        raise ValueError(f"has {len(value)} keys; at most {MAX_PROPERTIES} are allowed")
    return value


def _property_key(value: Any) -> str:
    if not isinstance(value, str) or not PROPERTY_KEY_PATTERN.match(value):
        raise ValueError(f"key {shown(value)} must match [a-z][a-z0-9_]* (≤ 64 characters)")
    return value


def _property_value(value: Any) -> Any:
    if isinstance(value, list) and len(value) > MAX_PROPERTY_LIST:
        raise ValueError(f"has {len(value)} items; at most {MAX_PROPERTY_LIST} are allowed")
    if not (scalar_ok(value) or (isinstance(value, list) and all(scalar_ok(item) for item in value))):
        raise ValueError(
            f"must be a string (≤ {MAX_TEXT_LENGTH} characters, no control characters), a finite number "
            "(integers within 64 bits), a boolean or a list of those"
        )
    return value


def _checked(kind: Any, check: Callable[[Any], Any], documented: Any) -> Any:
    """A field of type `kind`, checked by `check` alone and documented as `documented` in the schema."""
    # WithJsonSchema, not json_schema_input_type: drf-spectacular asks for the serialization schema of a model.
    # A field that takes null (as "left out") says so, so a client may send it and a fuzzer expects it accepted.
    nullable = type(None) in get_args(kind)
    schema = TypeAdapter(documented | None if nullable else documented).json_schema()
    return Annotated[kind, PlainValidator(check), WithJsonSchema(schema)]


_Text = Annotated[str, Field(max_length=MAX_TEXT_LENGTH)]
_Name = Annotated[str, Field(max_length=MAX_NAME_LENGTH)]
_Scalar = _Text | bool | int | float
_PROPERTY_KEY_SCHEMA = PROPERTY_KEY_PATTERN.pattern.replace("\\Z", "$")  # JSON Schema writes Python's \Z as $
RecordId = _checked(str, _identifier, NodeId)
OptionalRecordId = _checked(str | None, _optional_identifier, NodeId)
RequiredText = _checked(str, _string(MAX_TEXT_LENGTH, required=True), Annotated[_Text, Field(min_length=1)])
Name = _checked(str, _string(MAX_NAME_LENGTH, required=True), Annotated[_Name, Field(min_length=1)])
OptionalName = _checked(str | None, _string(MAX_NAME_LENGTH, required=False), _Name)
OptionalText = _checked(str | None, _string(MAX_TEXT_LENGTH, required=False), _Text)
# A list whose items a loader reads one by one (skipping or naming the bad ones itself).
AnyList = _checked(list[Any], _list, list[Any])
# A text that must be there but may be blank (a dataset passage with no text is still a passage).
PresentText = _checked(str, _string(MAX_TEXT_LENGTH, required=True, non_empty=False), _Text)
RecordTimestamp = _checked(str | None, _timestamp, Timestamp)
EpisodeSource = _checked(str | None, _choice(kinds.EPISODE_SOURCES), Literal[kinds.EPISODE_SOURCES])  # type: ignore[valid-type]
RequiredEpisodeSource = _checked(str, _choice(kinds.EPISODE_SOURCES, optional=False), Literal[kinds.EPISODE_SOURCES])  # type: ignore[valid-type]


class NodeRecordBody(RequestModel):
    """A node: an entity by default; `labels` may make it an Episode or a Community (docs/import-format.md)."""

    id: RecordId
    name: Name
    labels: _checked(list[str], _labels, Annotated[list[str], Field(max_length=MAX_LABELS)]) = []
    summary: OptionalText = None
    properties: Annotated[
        dict[
            _checked(
                str, _property_key, Annotated[str, Field(pattern=PROPERTY_KEY_PATTERN.pattern.replace("\\Z", "$"))]
            ),
            _checked(Any, _property_value, _Scalar | Annotated[list[_Scalar], Field(max_length=MAX_PROPERTY_LIST)]),
        ],
        Field(max_length=MAX_PROPERTIES),
        BeforeValidator(_properties),
    ] = {}
    content: OptionalText = Field(default=None, description="an episode's text (episodes only)")
    source: EpisodeSource = Field(default=None, description="an episode's source (episodes only; default text)")
    source_description: OptionalName = Field(default=None, description="episodes only")
    valid_at: RecordTimestamp = Field(default=None, description="when the episode happened (episodes only)")

    @field_validator("content", "source", "source_description", "valid_at", mode="before")
    @classmethod
    def _episodes_only(cls, value: Any, info: ValidationInfo) -> Any:
        # Labels that failed their own check name their problem; the fields after them are not blamed as well.
        if value is not None and "labels" in info.data and node_kind(info.data["labels"]) != kinds.EPISODE:
            raise ValueError("is only allowed on episodes")
        return value

    @property
    def kind(self) -> str:
        return node_kind(self.labels)

    @property
    def extra_labels(self) -> tuple[str, ...]:
        """Labels beyond the kind (entities only), once each, in the order given."""
        skipped = {*kinds.NODE_KINDS, kinds.MEMORY_LABEL}
        return tuple(dict.fromkeys(label for label in self.labels if label not in skipped))


class EdgeRecordBody(RequestModel):
    """A fact: a weighted, tagged relation between two entities; `id` is derived from its ends when absent."""

    source: RecordId
    target: RecordId
    relation: _checked(str, _relation, Annotated[str, Field(min_length=1, max_length=MAX_RELATION_LENGTH)])
    weight: _checked(float, _weight, Annotated[float, Field(ge=MIN_WEIGHT, le=MAX_WEIGHT)])
    tags: _checked(
        tuple[str, ...],
        _tags,
        Annotated[list[Annotated[str, Field(max_length=MAX_TAG_LENGTH)]], Field(max_length=MAX_TAGS)],
    ) = ()
    fact: OptionalText = None
    category: _checked(str | None, _choice(kinds.RELATION_CATEGORIES), Literal[kinds.RELATION_CATEGORIES]) = None  # type: ignore[valid-type]
    valid_at: RecordTimestamp = None
    invalid_at: RecordTimestamp = None
    episodes: _checked(tuple[str, ...], _episode_ids, Annotated[list[NodeId], Field(max_length=MAX_EDGE_EPISODES)]) = ()
    id: OptionalRecordId = None

    @field_validator("target")
    @classmethod
    def _not_a_loop(cls, target: str, info: ValidationInfo) -> str:
        # A loop would count twice in a node's degree on some servers; retrieval needs one meaning.
        if info.data.get("source") == target:
            raise ValueError("must differ from source (self-loops are not allowed)")
        return target

    @field_validator("invalid_at")
    @classmethod
    def _ends_after_start(cls, invalid_at: str | None, info: ValidationInfo) -> str | None:
        valid_at = info.data.get("valid_at")
        if valid_at and invalid_at and invalid_at < valid_at:
            raise ValueError("is before valid_at")
        return invalid_at


class MentionBody(RequestModel):
    """An episode mentions an entity."""

    episode: RecordId
    entity: RecordId


class MembershipBody(RequestModel):
    """A community has an entity as a member."""

    community: RecordId
    entity: RecordId


class GraphDocumentBody(RequestModel):
    """A graph document (docs/import-format.md): nodes and edges, optionally links; all or nothing is written."""

    nodes: list[NodeRecordBody]
    edges: list[EdgeRecordBody]
    mentions: list[MentionBody] | None = None
    memberships: list[MembershipBody] | None = None


DOCUMENT_KEYS = frozenset(GraphDocumentBody.model_fields)


def _path(where: str, location: tuple[int | str, ...]) -> str:
    path = where
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _under_bad_key(location: tuple[Any, ...]) -> bool:
    """A property value's location (`…, properties, key`) whose key is not a property key."""
    return (
        len(location) >= 2
        and location[-2] == "properties"
        and not (isinstance(location[-1], str) and PROPERTY_KEY_PATTERN.match(location[-1]))
    )


def record_problems(error: ValidationError, where: str) -> list[str]:
    """A record's problems in the import format's words: unknown keys first, then each field by its path."""
    unknown: list[str] = []
    problems: list[str] = []
    for item in error.errors(include_url=False):
        location = tuple(item["loc"])
        if item["type"] == "extra_forbidden":
            unknown.append(str(location[-1]))
            continue
        if location and location[-1] == "[key]":  # a property's key is named by the properties object
            location = location[:-2]
        elif _under_bad_key(location):
            continue  # its key's problem is reported, and a path must not quote a key that is not one
        if item["type"] == "missing":
            message = "is required"
        elif item["type"] in ("model_type", "model_attributes_type", "dict_type"):
            message = f"must be an object, not {type(item['input']).__name__}"
        else:
            message = item["msg"].removeprefix("Value error, ")
        problems.append(f"{_path(where, location)}: {message}")
    if unknown:
        names = sorted(unknown)
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        problems.insert(0, f"{where}: unknown key(s) {', '.join(map(shown, names[:5]))}{more}")
    return problems


Record = TypeVar("Record", bound=BaseModel)


def record_parse(model: type[Record], raw: Any, where: str, problems: list[str], **context: Any) -> Record | None:
    """`raw` as `model`, or None with its problems (`corpus.json[3].title: …`) added to `problems`: the one way a
    record of a document, an episodes body or a dataset file is read, so all of them report alike."""
    try:
        return model.model_validate(raw, context=context)
    except ValidationError as error:
        problems.extend(record_problems(error, where))
        return None
