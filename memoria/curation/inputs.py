"""What a curator may send, checked before anything is read or written; each problem names its field.

Edge values are checked by the import format's own validator (docs/import-format.md), so an edge a
curator writes obeys exactly the rules an imported or ingested one does: weight in [0.25, 1],
tags normalised as ingestion does, relation length, category from kinds.RELATION_CATEGORIES.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema, model_validator
from pydantic_core import PydanticUseDefault

from memoria.curation.audit import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from memoria.curation.models import EDGE, ENTITY, EPISODE
from memoria.errors import InvalidGraphDocument, InvalidInput
from memoria.graph.kinds import RELATION_CATEGORIES
from memoria.graph.rules import ID_PATTERN, MAX_RELATION_LENGTH, MAX_TEXT_LENGTH
from memoria.interchange.document import EdgeRecord, parse_graph_document
from memoria.requests.query import EMPTY, ID_CHARACTERS, whole_or_empty
from memoria.requests.vocabulary import NodeId, RequestModel, Tags, Timestamp, Weight, documented_as, input_parse

# Edge fields a curator edits in place; source and target change only through merges, episodes never by hand.
EDITABLE_EDGE_FIELDS: tuple[str, ...] = ("relation", "category", "fact", "weight", "tags", "valid_at")
VERSION_PATTERN = re.compile(r"^[0-9a-f]{1,64}$")
ITEM_KINDS: tuple[str, ...] = (EDGE, ENTITY, EPISODE)


def _version(value: Any) -> Any:
    if not isinstance(value, str) or not VERSION_PATTERN.fullmatch(value):
        raise ValueError("must be a version string as the read answered it")
    return value


# What the reads answered as `version`: the caller edits on top of that, or gets a conflict.
Version = Annotated[
    str,
    Field(description="the version the caller saw", json_schema_extra={"pattern": VERSION_PATTERN.pattern}),
    BeforeValidator(_version),
]


class EdgeInvalidation(RequestModel):
    """Every field is optional, so no body, {} and null all mean "end it now"."""

    invalid_at: Timestamp | None = Field(default=None, description="when the fact stopped holding (default now)")
    version: Version | None = None


class EdgePatch(RequestModel):
    """An edit in place: at least one editable field; the edge as edited then passes the import validator whole."""

    relation: Annotated[Any, documented_as(str, Field(min_length=1, max_length=MAX_RELATION_LENGTH))] = None
    category: Annotated[Any, documented_as(Literal[RELATION_CATEGORIES])] = None
    fact: Annotated[Any, documented_as(str, Field(max_length=MAX_TEXT_LENGTH))] = None
    weight: Annotated[Any, documented_as(Weight)] = None
    tags: Annotated[Any, documented_as(Tags)] = None
    valid_at: Annotated[Any, documented_as(Timestamp)] = None
    version: Version | None = None

    @model_validator(mode="after")
    def _something_to_edit(self) -> EdgePatch:
        if not self.fields:
            raise ValueError(f"give at least one of {', '.join(EDITABLE_EDGE_FIELDS)}")
        return self

    @property
    def fields(self) -> dict[str, Any]:
        """The editable fields as sent (normalised), so an edit touches only what the caller named."""
        return {name: getattr(self, name) for name in EDITABLE_EDGE_FIELDS if name in self.model_fields_set}


class EntityMerge(RequestModel):
    """The body of a merge: the duplicate (`from`), merged into the entity of the URL and then deleted."""

    source_id: NodeId = Field(alias="from", description="the id of the duplicate entity")
    version: Version | None = None
    source_version: Version | None = Field(default=None, alias="from_version")


class EdgeCreate(RequestModel):
    """A new edge as the import format writes one; the model names missing and unknown fields, the import
    validator (edge_record_check) then checks every value, so a new edge obeys the rules an imported one does."""

    id: Annotated[Any, documented_as(NodeId)] = None
    source: Annotated[Any, documented_as(NodeId)]
    target: Annotated[Any, documented_as(NodeId)]
    relation: Annotated[Any, documented_as(str, Field(min_length=1, max_length=MAX_RELATION_LENGTH))]
    weight: Annotated[Any, documented_as(Weight)]
    tags: Annotated[Any, documented_as(Tags)] = None
    fact: Annotated[Any, documented_as(str, Field(max_length=MAX_TEXT_LENGTH))] = None
    category: Annotated[Any, documented_as(Literal[RELATION_CATEGORIES])] = None
    valid_at: Annotated[Any, documented_as(Timestamp)] = None
    invalid_at: Annotated[Any, documented_as(Timestamp)] = None
    episodes: Annotated[Any, documented_as(list[NodeId])] = None


def edge_record_check(item: dict[str, Any], *, group: str, where: str = "edge") -> EdgeRecord:
    """One edge through the import validator; its `edges[0].field` names become `edge.field`."""
    try:
        document = parse_graph_document({"nodes": [], "edges": [item]}, group=group)
    except InvalidGraphDocument as error:
        raise InvalidInput([problem.replace("edges[0]", where, 1) for problem in error.problems]) from error
    return document.edges[0]


def edge_patch_parse(data: Any) -> EdgePatch:
    return input_parse(EdgePatch, data, where="edge")


def edge_create_parse(data: Any, *, group: str) -> EdgeRecord:
    """The model checks the body's shape (an object, its required fields, nothing unknown), the import its values."""
    input_parse(EdgeCreate, data, where="edge")
    return edge_record_check(data, group=group)


def edge_invalidation_parse(data: Any) -> EdgeInvalidation:
    return input_parse(EdgeInvalidation, {} if data is None else data, where="invalidate")


class EdgeDelete(RequestModel):
    """A delete's body: only the version the caller saw (optional)."""

    version: Version | None = None


class Undo(RequestModel):
    """An undo names its entry in the URL and takes nothing else."""


def edge_delete_parse(data: Any, *, version: Any = None) -> str | None:
    """A delete names the version it saw in its body or, as DELETE bodies are often dropped, in the query."""
    body = input_parse(EdgeDelete, {} if data is None else data, where="delete")
    if "version" in body.model_fields_set:
        return body.version
    return input_parse(EdgeDelete, {"version": version}, where="delete").version


def entity_merge_parse(data: Any) -> EntityMerge:
    return input_parse(EntityMerge, {} if data is None else data, where="merge")


def _item_id(raw: Any) -> Any:
    if raw in (None, ""):
        return None
    if not isinstance(raw, str) or not ID_PATTERN.match(raw):
        raise ValueError("must be an id (1–200 letters, digits or ._:/@#-)")
    return raw


def _item_kind(raw: Any) -> Any:
    if raw in (None, ""):
        return None
    if raw not in ITEM_KINDS:
        raise ValueError(f"must be one of {', '.join(ITEM_KINDS)}")
    return raw


def _positive(raw: Any) -> Any:
    if raw is None or raw == "":
        raise PydanticUseDefault
    if isinstance(raw, bool) or not str(raw).isdigit() or int(str(raw)) < 1:
        raise ValueError(f"{raw!r} must be a positive whole number")
    return int(str(raw))


def _page_size(raw: Any) -> Any:
    limit = _positive(raw)
    if limit > MAX_PAGE_SIZE:
        raise ValueError(f"{limit} is more than {MAX_PAGE_SIZE}")
    return limit


class AuditQuery(RequestModel):
    """The audit listing's query string; an empty value means "any" (or the default page size)."""

    item_id: Annotated[
        str | None, BeforeValidator(_item_id), WithJsonSchema({"type": "string", "pattern": f"^({ID_CHARACTERS})?$"})
    ] = Field(default=None, description="only entries that touched this edge or entity")
    item_kind: Annotated[
        str | None,
        BeforeValidator(_item_kind),
        WithJsonSchema({"anyOf": [{"type": "string", "enum": list(ITEM_KINDS)}, EMPTY]}),
    ] = None
    before: Annotated[int | None, BeforeValidator(_positive), WithJsonSchema(whole_or_empty(1))] = Field(
        default=None, description="an entry id: the page of entries older than it"
    )
    limit: Annotated[int, BeforeValidator(_page_size), WithJsonSchema(whole_or_empty(1, MAX_PAGE_SIZE))] = Field(
        default=DEFAULT_PAGE_SIZE, description=f"entries per page (default {DEFAULT_PAGE_SIZE})"
    )
