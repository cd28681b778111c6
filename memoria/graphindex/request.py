"""What the graph index's edge writes take (POST /api/graph/{group}/edges, docs/graph-index.md): pydantic models.

They check the shape (objects, required fields, no unknown ones, a bounded batch); each value is then checked by
the import format's validator, as every edge of Memoria is (memoria.interchange.document), so the rule and its
wording live there once and the models only document it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, RootModel

from memoria.graph.kinds import RELATION_CATEGORIES
from memoria.graph.rules import MAX_RELATION_LENGTH, MAX_TEXT_LENGTH
from memoria.requests.query import OrEmpty
from memoria.requests.vocabulary import NodeId, Relation, RequestModel, Tags, Timestamp, Weight, documented_as

MAX_BATCH = 10_000


class IndexEdgeMetadataInput(RequestModel):
    """What an index edge carries beside its ends, relation and weight; all of it optional."""

    fact: Annotated[Any, documented_as(str, Field(max_length=MAX_TEXT_LENGTH))] = None
    category: Annotated[Any, documented_as(Literal[RELATION_CATEGORIES])] = None
    tags: Annotated[Any, documented_as(Tags)] = None
    valid_at: Annotated[Any, documented_as(Timestamp)] = None
    invalid_at: Annotated[Any, documented_as(Timestamp)] = None


class IndexEdgeInput(RequestModel):
    """One edge, known by (source, relation, target): adding it again updates it in place."""

    source: Annotated[Any, documented_as(NodeId)]
    target: Annotated[Any, documented_as(NodeId)]
    relation: Annotated[Any, documented_as(str, Field(min_length=1, max_length=MAX_RELATION_LENGTH))]
    weight: Annotated[Any, documented_as(Weight)]
    metadata: IndexEdgeMetadataInput | None = None


class IndexEdgesInput(RequestModel):
    """A batch, stored all or nothing."""

    edges: list[IndexEdgeInput] = Field(min_length=1, max_length=MAX_BATCH)


class IndexEdgesBody(RootModel[IndexEdgeInput | IndexEdgesInput]):
    """The POST body: one edge, or {"edges": [...]}; documents the choice (the view tells them apart by `edges`)."""


class EdgeEndsQuery(RequestModel):
    """`GET …/edges/exists?source&target[&relation]`: whether source → target exists, with that relation or any.

    The ends and the relation are checked as stored ones are, so a quote, NUL or Cypher in them is a 400 naming
    the parameter, as every other id parameter answers, never a lookup that finds nothing.
    """

    source: NodeId
    target: NodeId
    relation: OrEmpty(Relation) = None  # type: ignore[valid-type]


class EdgeRemoveQuery(EdgeEndsQuery):
    """`DELETE …/edges?source&target&relation`: an edge is known by its ends and its relation."""

    relation: Relation
