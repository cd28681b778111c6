"""The graph schema: which constraints and indexes Memoria needs, installed through the dialect.

Every statement is idempotent, so `python manage.py graph_schema` can run on every start. A node is keyed by
(group_id, id): the same id may live in two groups. Stores made before that held a unique constraint on `id`
alone; installing the schema retires it (after the key constraint exists), which is the whole migration, since
every stored node already carries both properties.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from neomodel import StructuredNode, StructuredRel

from memoria.graph import driver, kinds
from memoria.graph.dialect import GraphDialect, IndexSpec, KeySpec, graph_dialect
from memoria.graph.models import NODE_MODELS, RELATIONSHIP_MODELS
from memoria.graph.searchable import LEGACY_TEXT_VERSION, SEARCHABLE_TEXT_VERSION
from memoria.graph.versions import unstamped_groups_stamp

EMBEDDING_DIMENSIONS_DEFAULT = 384
# Beside every stored vector (`name_embedding`, `embedding`, `fact_embedding`): the id of the model that made it
# (memoria.embeddings.model_id_for). Vectors of two models are never compared; `reindex` replaces the others.
VECTOR_MODEL = "embedding_model"
# What a vector stored before models were recorded counts as: the packaged all-MiniLM-L6-v2 in fp32 made them all.
LEGACY_VECTOR_MODEL = "all-MiniLM-L6-v2"
# Beside it too: which definition of the item's searchable text it embeds (memoria.graph.searchable), so `reindex`
# re-embeds vectors made from an older definition; none stored counts as LEGACY_TEXT_VERSION. Such vectors are
# still the configured model's and are compared meanwhile: they only lack what the newer text adds.
VECTOR_TEXT = "embedding_text"
VECTOR_PROPERTIES = frozenset({"name_embedding", "embedding", "fact_embedding", VECTOR_MODEL, VECTOR_TEXT})


def vector_model_of(item: str) -> str:
    """Cypher for the model id of the vector on node or relationship `item` (`$legacy_model` when none is stored)."""
    return f"coalesce({item}.{VECTOR_MODEL}, $legacy_model)"


def vector_text_of(item: str) -> str:
    """Cypher for the searchable-text version the vector on `item` embeds (LEGACY_TEXT_VERSION when none is stored)."""
    return f"coalesce({item}.{VECTOR_TEXT}, {LEGACY_TEXT_VERSION})"


def vector_model_parameters(model: str) -> dict[str, str | int]:
    """The parameters `vector_model_of` needs, for the vectors of `model`, and the current text version."""
    return {"model": model, "legacy_model": LEGACY_VECTOR_MODEL, "text_version": SEARCHABLE_TEXT_VERSION}


def _stored_properties(model: type[StructuredNode] | type[StructuredRel]) -> list[tuple[str, Any]]:
    """(stored name, property) of each property a model declares or inherits, in declaration order."""
    found = model.defined_properties(aliases=False, rels=False)
    return [(prop.db_property or name, prop) for name, prop in found.items()]


def _labelled(label: str, relationship: bool, model: Any, wanted: Callable[[Any], object]) -> list[IndexSpec]:
    return [IndexSpec(label, name, relationship) for name, prop in _stored_properties(model) if wanted(prop)]


def _derived(wanted: Callable[[Any], object]) -> tuple[IndexSpec, ...]:
    """Every (label, property) of the models that `wanted` picks: nodes by their kind label, then relationships."""
    specs = [spec for model in NODE_MODELS for spec in _labelled(model.__label__, False, model, wanted)]
    specs += [spec for rel_type, model in RELATIONSHIP_MODELS for spec in _labelled(rel_type, True, model, wanted)]
    return tuple(specs)


# Derived from memoria/graph/models.py, the one declaration of what is keyed and indexed.
UNIQUE = tuple(KeySpec(model.__label__, model.__key__) for model in NODE_MODELS if "__key__" in vars(model))
# Uniqueness constraints of earlier schemas, by (label, properties): dropped wherever they are found.
RETIRED_UNIQUE = ((kinds.MEMORY_LABEL, ("id",)),)
RANGE = _derived(lambda prop: prop.index)
FULLTEXT = _derived(lambda prop: prop.fulltext_index)
VECTOR = _derived(lambda prop: prop.vector_index)


@dataclass(frozen=True)
class SchemaReport:
    dialect: str
    constraints: int
    range_indexes: int
    fulltext_indexes: int
    vector_indexes: int
    retired: tuple[str, ...] = ()


def embedding_dimensions() -> int:
    return int(getattr(settings, "MEMORIA_EMBEDDING_DIMENSIONS", EMBEDDING_DIMENSIONS_DEFAULT))


def schema_install(*, dialect: GraphDialect | None = None) -> SchemaReport:
    """Create every constraint and index that is missing; existing ones are left as they are."""
    dialect = dialect or graph_dialect()
    for spec in UNIQUE:
        dialect.unique_constraint(spec)
    retired = retired_constraints()
    for name in retired:
        dialect.constraint_drop(name)
    for spec in RANGE:
        dialect.range_index(spec)
    for spec in FULLTEXT:
        dialect.fulltext_index(spec)
    vector_indexes = dialect.serves_vector_indexes()
    for spec in VECTOR:
        if vector_indexes:
            dialect.vector_index(spec, embedding_dimensions())
        else:  # a store made when they were on drops them, or the server goes on rebuilding them
            dialect.vector_index_drop(spec)
    unstamped_groups_stamp()  # groups are listed from their stamps
    return SchemaReport(
        dialect.name, len(UNIQUE), len(RANGE), len(FULLTEXT), len(VECTOR) if vector_indexes else 0, tuple(retired)
    )


def retired_constraints() -> list[str]:
    """Names of the stored uniqueness constraints that RETIRED_UNIQUE lists, whatever they were named."""
    retired = set(RETIRED_UNIQUE)
    names = []
    for row in driver.read("SHOW CONSTRAINTS"):
        labels = tuple(row.get("labelsOrTypes") or ())
        shape = (labels[0] if len(labels) == 1 else "", tuple(row.get("properties") or ()))
        if "UNIQUE" in str(row.get("type") or "") and shape in retired:
            names.append(row["name"])
    return sorted(names)
