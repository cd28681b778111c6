"""What a view holds of each searchable scope, and the bulk reads that fill it from the graph server.

Every read names the group, so its cost is the group's size, never the
server's. Items come back as a few long columns per page (the style
memoria/graphindex/projection.py measured five times faster than one record
per item on ArcadeDB), pages named by explicit node-id lists.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from memoria.embeddings import configured_model_id
from memoria.graph import driver, kinds
from memoria.graph.schema import vector_model_of, vector_model_parameters
from memoria.observability import in_context

PAGE_ITEMS = 5_000
PAGE_WORKERS = 2


@dataclass(frozen=True)
class ScopeSpec:
    """A scope's texts and vector as stored: `text_fields` are indexed for BM25 (each scored, summed),
    `shown_field` is the text a hit carries, `name_field` its name."""

    name: str
    label: str  # node label, or the relationship type of facts
    text_fields: tuple[str, ...]
    name_field: str
    shown_field: str
    vector_property: str
    is_fact: bool = False


FACTS = ScopeSpec("facts", kinds.RELATES, ("fact",), "relation", "fact", "fact_embedding", is_fact=True)
ENTITIES = ScopeSpec("entities", kinds.ENTITY, ("name", "summary"), "name", "summary", "name_embedding")
EPISODES = ScopeSpec("episodes", kinds.EPISODE, ("content",), "name", "content", "embedding")
COMMUNITIES = ScopeSpec("communities", kinds.COMMUNITY, ("name", "summary"), "name", "summary", "name_embedding")
SCOPES: dict[str, ScopeSpec] = {spec.name: spec for spec in (FACTS, ENTITIES, EPISODES, COMMUNITIES)}


@dataclass(frozen=True)
class Item:
    """One searchable item as a hit shows it; facts also carry their ends and validity."""

    id: str
    name: str
    text: str
    texts: dict[str, str]
    vector: np.ndarray | None  # float32; dropped once the view's matrix holds it
    source: str | None = None
    target: str | None = None
    valid_at: str | None = None
    invalid_at: str | None = None

    @property
    def text_bytes(self) -> int:
        return sum(len(value) for value in self.texts.values()) + len(self.name) + len(self.text)


GROUP_NODE_IDS = f"MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group}}) RETURN collect(n.id) AS ids"
LABEL_NODE_IDS = "MATCH (n:{label} {{group_id: $group}}) RETURN collect(n.id) AS ids"
# Node scopes: one column per stored property a view needs; missing texts read as '' so columns stay aligned.
NODE_PAGE = """
UNWIND $ids AS node_id
MATCH (n:{memory} {{id: node_id}})
WHERE n.group_id = $group AND '{label}' IN labels(n)
RETURN collect(n.id) AS ids, {text_columns},
       collect(CASE WHEN {model} = $model THEN coalesce(n.{vector}, []) ELSE [] END) AS vectors
"""
# Facts leaving (or, with $both, touching) the page's nodes; the view keys facts by id, so one seen twice is one.
FACT_COLUMNS = f"""collect(r.id) AS ids, collect(startNode(r).id) AS sources, collect(endNode(r).id) AS targets,
       collect(coalesce(r.relation, '')) AS relations, collect(coalesce(r.fact, '')) AS facts,
       collect(coalesce(r.valid_at, '')) AS valid_ats, collect(coalesce(r.invalid_at, '')) AS invalid_ats,
       collect(CASE WHEN {vector_model_of("r")} = $model THEN coalesce(r.fact_embedding, []) ELSE [] END) AS vectors"""
FACTS_OUT_PAGE = f"""
UNWIND $ids AS node_id
MATCH (a:{kinds.MEMORY_LABEL} {{id: node_id}})-[r:{kinds.RELATES}]->(:{kinds.MEMORY_LABEL})
WHERE a.group_id = $group
RETURN {FACT_COLUMNS}
"""
FACTS_TOUCHING_PAGE = f"""
UNWIND $ids AS node_id
MATCH (a:{kinds.MEMORY_LABEL} {{id: node_id}})-[r:{kinds.RELATES}]-(:{kinds.MEMORY_LABEL})
WHERE a.group_id = $group
RETURN {FACT_COLUMNS}
"""


def _node_page_query(spec: ScopeSpec) -> str:
    fields = dict.fromkeys((*spec.text_fields, spec.name_field, spec.shown_field))
    columns = ", ".join(f"collect(coalesce(n.{name}, '')) AS text_{name}" for name in fields)
    return NODE_PAGE.format(
        memory=kinds.MEMORY_LABEL,
        label=spec.label,
        text_columns=columns,
        vector=spec.vector_property,
        model=vector_model_of("n"),
    )


NODE_PAGES = {spec.name: _node_page_query(spec) for spec in SCOPES.values() if not spec.is_fact}


def _pages(ids: Sequence[str], size: int = PAGE_ITEMS) -> Iterator[list[str]]:
    for start in range(0, len(ids), size):
        yield list(ids[start : start + size])


def _columns(query: str, **parameters: Any) -> Any:
    """One record of columns; a vector of another model than the configured one reads as none (never compared)."""
    return driver.read_records(query, **parameters, **vector_model_parameters(configured_model_id()))[0]


def _optional(value: str) -> str | None:
    return value or None


def _vectors(raw: list[list[float]]) -> list[np.ndarray | None]:
    """A page's vectors as float32 rows: one conversion for the page when every item has one of the same size."""
    if raw and all(raw) and len({len(vector) for vector in raw}) == 1:
        return list(np.asarray(raw, dtype=np.float32))
    return [np.asarray(vector, dtype=np.float32) if vector else None for vector in raw]


def _node_items(spec: ScopeSpec, record: Any) -> Iterator[Item]:
    vectors = _vectors(record["vectors"])
    for position, item_id in enumerate(record["ids"]):
        texts = {name: str(record[f"text_{name}"][position]) for name in spec.text_fields}
        yield Item(
            id=item_id,
            name=str(record[f"text_{spec.name_field}"][position]),
            text=str(record[f"text_{spec.shown_field}"][position]),
            texts=texts,
            vector=vectors[position],
        )


def _fact_items(record: Any) -> Iterator[Item]:
    vectors = _vectors(record["vectors"])
    for position, fact_id in enumerate(record["ids"]):
        fact = str(record["facts"][position])
        yield Item(
            id=fact_id,
            name=str(record["relations"][position]),
            text=fact,
            texts={"fact": fact},
            vector=vectors[position],
            source=record["sources"][position],
            target=record["targets"][position],
            valid_at=_optional(record["valid_ats"][position]),
            invalid_at=_optional(record["invalid_ats"][position]),
        )


def scope_items(spec: ScopeSpec, *, group: str) -> Iterator[Item]:
    """Every item of the scope in the group; pages are read two at a time, so the server streams the next
    while this process decodes one."""
    if spec.is_fact:
        node_ids = _columns(GROUP_NODE_IDS, group=group)["ids"]
        query, items = FACTS_OUT_PAGE, _fact_items
    else:
        node_ids = _columns(LABEL_NODE_IDS.format(label=spec.label), group=group)["ids"]
        query, items = NODE_PAGES[spec.name], partial(_node_items, spec)
    with ThreadPoolExecutor(max_workers=PAGE_WORKERS, thread_name_prefix="memoria-view") as pool:
        read = in_context(lambda page: _columns(query, ids=page, group=group))
        for record in pool.map(read, _pages(node_ids)):
            yield from items(record)


def items_touching(spec: ScopeSpec, *, group: str, node_ids: Sequence[str]) -> Iterator[Item]:
    """The scope's items as stored now among `node_ids` (node scopes) or touching them (facts)."""
    for page in _pages(sorted(set(node_ids))):
        if spec.is_fact:
            yield from _fact_items(_columns(FACTS_TOUCHING_PAGE, ids=page, group=group))
        else:
            yield from _node_items(spec, _columns(NODE_PAGES[spec.name], ids=page, group=group))
