"""The memory model as neomodel classes: every node is a `Memory` keyed by (`group_id`, `id`) plus its kind label.

These classes are the one declaration of the graph's kinds and of what is indexed: a property with `index=True`
gets a range index on each label that has it, `fulltext_index` a full-text index and `vector_index` a vector
index (its dimensions are the configured model's, not the declared ones), and a class's `__key__` a uniqueness
constraint over those properties. memoria/graph/schema.py derives the schema from them and installs it through
the dialect adapter (neomodel's own installer knows neither ArcadeDB nor a key over two properties). Bulk writes
go through batched Cypher (memoria.interchange); these classes serve single-object reads and writes.
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    DateTimeFormatProperty,
    FloatProperty,
    FulltextIndex,
    IntegerProperty,
    JSONProperty,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    VectorIndex,
)

from memoria.graph import kinds
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.graph.versions import GROUP_STAMP


def _timestamp(**options: object) -> DateTimeFormatProperty:
    # Stored as fixed-width UTC strings, so Cypher compares them in time order on every server.
    return DateTimeFormatProperty(format=TIMESTAMP_FORMAT, **options)


def _searched_text(**options: object) -> StringProperty:
    """A text the full-text search reads."""
    return StringProperty(fulltext_index=FulltextIndex(), **options)


def _vector() -> ArrayProperty:
    """A stored embedding the vector search reads."""
    return ArrayProperty(FloatProperty(), vector_index=VectorIndex())


class Relates(StructuredRel):
    """A fact or association between two memories: the edge retrieval traverses."""

    uid = StringProperty(db_property="id", required=True, index=True)  # neomodel reserves `id`
    group_id = StringProperty(required=True, index=True)
    relation = StringProperty(required=True)
    relation_category = StringProperty(choices={c: c for c in kinds.RELATION_CATEGORIES})
    fact = _searched_text(default="")
    fact_embedding = _vector()
    weight = FloatProperty(required=True)
    tags = ArrayProperty(StringProperty(), default=list)
    episodes = ArrayProperty(StringProperty(), default=list)
    created_at = _timestamp()
    expired_at = _timestamp()
    valid_at = _timestamp()
    invalid_at = _timestamp()


class Memory(StructuredNode):
    """The shared label; look nodes up by `:Memory {group_id, id}` so the key's unique index is used."""

    __label__ = kinds.MEMORY_LABEL
    __key__ = ("group_id", "id")  # stored names; the same id may live in two groups

    uid = StringProperty(db_property="id", required=True)  # neomodel reserves `id`; indexed by the key
    group_id = StringProperty(required=True, index=True)
    name = StringProperty(required=True)
    created_at = _timestamp()

    relates = RelationshipTo("Memory", kinds.RELATES, model=Relates)


class Episode(Memory):
    """A raw message or document, as it arrived."""

    __label__ = kinds.EPISODE

    name = _searched_text(required=True)
    content = _searched_text(default="")
    source = StringProperty(choices={s: s for s in kinds.EPISODE_SOURCES}, default="text")
    source_description = StringProperty(default="")
    # A message's preceding messages, searched with its content (memoria.ingest.preceding); never shown as it.
    preceding_text = StringProperty()
    valid_at = _timestamp(index=True)
    embedding = _vector()

    mentions = RelationshipTo("Entity", kinds.MENTIONS)


class Entity(Memory):
    """Something the memories are about; may carry extra kind labels from the allow-list."""

    __label__ = kinds.ENTITY

    name = _searched_text(required=True)
    summary = _searched_text(default="")
    name_embedding = _vector()
    attributes = JSONProperty(default=dict)


class Community(Memory):
    """A cluster of entities with a summary."""

    __label__ = kinds.COMMUNITY

    name = _searched_text(required=True)
    summary = _searched_text(default="")
    name_embedding = _vector()

    members = RelationshipTo("Entity", kinds.HAS_MEMBER)


class GroupStamp(StructuredNode):
    """A write's mark on its group's version (memoria/graph/versions.py): not a Memory, so no listing sees it."""

    __label__ = GROUP_STAMP

    group_id = StringProperty(required=True, index=True)
    count = IntegerProperty(required=True)
    at = StringProperty()
    touched = ArrayProperty(StringProperty())
    folded = ArrayProperty(StringProperty())


NODE_MODELS: tuple[type[StructuredNode], ...] = (Memory, Episode, Entity, Community, GroupStamp)
RELATIONSHIP_MODELS: tuple[tuple[str, type[StructuredRel]], ...] = ((kinds.RELATES, Relates),)
