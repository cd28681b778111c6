"""The memory model as neomodel classes: every node is a `Memory` keyed by (`group_id`, `id`) plus its kind label.

Bulk writes go through batched Cypher (memoria.interchange); these classes
serve single-object reads and writes, and document the shape of the graph.
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    DateTimeFormatProperty,
    FloatProperty,
    JSONProperty,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
)

from memoria.graph import kinds
from memoria.graph.rules import TIMESTAMP_FORMAT


def _timestamp(**options: object) -> DateTimeFormatProperty:
    # Stored as fixed-width UTC strings, so Cypher compares them in time order on every server.
    return DateTimeFormatProperty(format=TIMESTAMP_FORMAT, **options)


class Relates(StructuredRel):
    """A fact or association between two memories: the edge retrieval traverses."""

    uid = StringProperty(db_property="id", required=True, index=True)  # neomodel reserves `id`
    group_id = StringProperty(required=True, index=True)
    relation = StringProperty(required=True)
    relation_category = StringProperty(choices={c: c for c in kinds.RELATION_CATEGORIES})
    fact = StringProperty(default="")
    fact_embedding = ArrayProperty(FloatProperty())
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

    uid = StringProperty(db_property="id", required=True, index=True)  # neomodel reserves `id`; unique per group
    group_id = StringProperty(required=True, index=True)
    name = StringProperty(required=True)
    created_at = _timestamp()

    relates = RelationshipTo("Memory", kinds.RELATES, model=Relates)


class Episode(Memory):
    """A raw message or document, as it arrived."""

    __label__ = kinds.EPISODE

    content = StringProperty(default="")
    source = StringProperty(choices={s: s for s in kinds.EPISODE_SOURCES}, default="text")
    source_description = StringProperty(default="")
    valid_at = _timestamp()
    embedding = ArrayProperty(FloatProperty())

    mentions = RelationshipTo("Entity", kinds.MENTIONS)


class Entity(Memory):
    """Something the memories are about; may carry extra kind labels from the allow-list."""

    __label__ = kinds.ENTITY

    summary = StringProperty(default="")
    name_embedding = ArrayProperty(FloatProperty())
    attributes = JSONProperty(default=dict)


class Community(Memory):
    """A cluster of entities with a summary."""

    __label__ = kinds.COMMUNITY

    summary = StringProperty(default="")
    name_embedding = ArrayProperty(FloatProperty())

    members = RelationshipTo("Entity", kinds.HAS_MEMBER)
