"""What a view holds of each searchable scope, and the bulk reads that fill it from the graph server.

Every read names the group, so its cost is the group's size, never the
server's. Items come back as a few long columns per page (the style
memoria/projection/projection.py measured five times faster than one record
per item on ArcadeDB), pages named by explicit node-id lists.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from itertools import islice
from typing import Any

import numpy as np

from memoria.embeddings import configured_model_id
from memoria.graph import driver, kinds
from memoria.graph.schema import vector_model_of, vector_model_parameters
from memoria.graph.searchable import FACT_TRIPLE, PRECEDING_PROPERTY, with_preceding
from memoria.observability import in_context

PAGE_ITEMS = 2_000
PAGE_WORKERS = 2


@dataclass(frozen=True)
class ScopeSpec:
    """A scope's texts and vector as stored: `text_fields` are indexed for BM25 (each scored, summed),
    `shown_field` is the text a hit carries, `name_field` its name. `preceding_property`, when set, is text
    indexed in front of the shown field but never shown: a message's preceding messages (memoria.ingest.preceding),
    in one field with its content because that measured better than a field of their own (docs/evaluation.md)."""

    name: str
    label: str  # node label, or the relationship type of facts
    text_fields: tuple[str, ...]
    name_field: str
    shown_field: str
    vector_property: str
    is_fact: bool = False
    preceding_property: str | None = None


# The text fields are the parts of each item's searchable text (memoria.graph.searchable), a field each as the
# server's full-text indexes hold them; a fact's `triple` is "source-name relation target-name".
FACTS = ScopeSpec("facts", kinds.RELATES, ("fact", "triple"), "relation", "fact", "fact_embedding", is_fact=True)
ENTITIES = ScopeSpec("entities", kinds.ENTITY, ("name", "summary"), "name", "summary", "name_embedding")
EPISODES = ScopeSpec(
    "episodes",
    kinds.EPISODE,
    ("name", "content"),
    "name",
    "content",
    "embedding",
    preceding_property=PRECEDING_PROPERTY,
)
COMMUNITIES = ScopeSpec("communities", kinds.COMMUNITY, ("name", "summary"), "name", "summary", "name_embedding")
SCOPES: dict[str, ScopeSpec] = {spec.name: spec for spec in (FACTS, ENTITIES, EPISODES, COMMUNITIES)}


@dataclass(frozen=True, slots=True)
class Item:
    """One searchable item as a hit shows it; facts also carry their ends and validity. Its vector travels
    beside it in an ItemPage and lives in the view's matrix only (as Python floats it would take 9 KB an item)."""

    id: str
    name: str
    text: str
    texts: dict[str, str]
    source: str | None = None
    target: str | None = None
    valid_at: str | None = None
    invalid_at: str | None = None
    # When the memory learned the fact and its end (transaction time): with the two above, what search's
    # validity filter reads, by the one definition in memoria/graph/asof.py.
    created_at: str | None = None
    expired_at: str | None = None

    @property
    def text_bytes(self) -> int:
        return sum(len(value) for value in self.texts.values()) + len(self.name) + len(self.text)


@dataclass(frozen=True)
class ItemPage:
    """Items as one read returned them, with their vectors apart: a float32 matrix (one row an item) when every
    item has a vector of one size, so a view copies the page in one step; else one entry an item, None for none."""

    items: list[Item]
    vectors: np.ndarray | list[np.ndarray | None]

    def __len__(self) -> int:
        return len(self.items)


GROUP_NODE_IDS = f"MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group}}) RETURN collect(n.id) AS ids"
LABEL_NODE_IDS = "MATCH (n:{label} {{group_id: $group}}) RETURN collect(n.id) AS ids"
# Node scopes: one column per stored property a view needs; missing texts read as '' so columns stay aligned.
NODE_PAGE = """
UNWIND $ids AS node_id
MATCH (n:{memory} {{group_id: $group, id: node_id}})
WHERE '{label}' IN labels(n)
RETURN collect(n.id) AS ids, {text_columns},
       collect(CASE WHEN {model} = $model THEN coalesce(n.{vector}, []) ELSE [] END) AS vectors
"""
# Facts leaving (or touching) the page's nodes, `a` and `b` their ends; the view keys facts by id, so one seen
# twice is one.
FACT_COLUMNS = f"""collect(r.id) AS ids, collect(a.id) AS sources, collect(b.id) AS targets,
       collect(coalesce(r.relation, '')) AS relations, collect(coalesce(r.fact, '')) AS facts,
       collect({FACT_TRIPLE}) AS triples,
       collect(coalesce(r.valid_at, '')) AS valid_ats, collect(coalesce(r.invalid_at, '')) AS invalid_ats,
       collect(coalesce(r.created_at, '')) AS created_ats, collect(coalesce(r.expired_at, '')) AS expired_ats,
       collect(CASE WHEN {vector_model_of("r")} = $model THEN coalesce(r.fact_embedding, []) ELSE [] END) AS vectors"""
FACTS_OUT_PAGE = f"""
UNWIND $ids AS node_id
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: node_id}})-[r:{kinds.RELATES}]->(b:{kinds.MEMORY_LABEL})
RETURN {FACT_COLUMNS}
"""
FACTS_TOUCHING_PAGE = f"""
UNWIND $ids AS node_id
MATCH (:{kinds.MEMORY_LABEL} {{group_id: $group, id: node_id}})-[r:{kinds.RELATES}]-(:{kinds.MEMORY_LABEL})
WITH r, startNode(r) AS a, endNode(r) AS b
RETURN {FACT_COLUMNS}
"""


def _preceding(spec: ScopeSpec) -> tuple[str, ...]:
    return (spec.preceding_property,) if spec.preceding_property else ()


def _node_page_query(spec: ScopeSpec) -> str:
    fields = dict.fromkeys((*spec.text_fields, spec.name_field, spec.shown_field, *_preceding(spec)))
    columns = ", ".join(f"collect(coalesce(n.{name}, '')) AS text_{name}" for name in fields)
    return NODE_PAGE.format(
        memory=kinds.MEMORY_LABEL,
        label=spec.label,
        text_columns=columns,
        vector=spec.vector_property,
        model=vector_model_of("n"),
    )


NODE_PAGES = {spec.name: _node_page_query(spec) for spec in SCOPES.values() if not spec.is_fact}


def _pages(ids: Sequence[str]) -> Iterator[list[str]]:
    size = PAGE_ITEMS  # read at each call, so a test can make a small group span many pages
    for start in range(0, len(ids), size):
        yield list(ids[start : start + size])


def _columns(query: str, **parameters: Any) -> Any:
    """One record of columns; a vector of another model than the configured one reads as none (never compared)."""
    return driver.read_records(query, **parameters, **vector_model_parameters(configured_model_id()))[0]


def _optional(value: str) -> str | None:
    return value or None


def _stamp(value: str) -> str | None:
    """A transaction time, interned: a batch's facts share one, so a view keeps one string for them."""
    return sys.intern(value) if value else None


def _vectors(raw: list[list[float]]) -> np.ndarray | list[np.ndarray | None]:
    """A page's vectors as float32: one matrix, converted in one call, when every item has one of the same size."""
    if raw and all(raw) and len({len(vector) for vector in raw}) == 1:
        return np.asarray(raw, dtype=np.float32)
    return [np.asarray(vector, dtype=np.float32) if vector else None for vector in raw]


def _indexed_texts(spec: ScopeSpec, record: Any, position: int) -> dict[str, str]:
    texts = {name: str(record[f"text_{name}"][position]) for name in spec.text_fields}
    for name in _preceding(spec):
        texts[spec.shown_field] = with_preceding(texts[spec.shown_field], str(record[f"text_{name}"][position]))
    return texts


def _node_page(spec: ScopeSpec, record: Any) -> ItemPage:
    names, shown = record[f"text_{spec.name_field}"], record[f"text_{spec.shown_field}"]
    items = [
        Item(
            id=item_id,
            name=str(names[position]),
            text=str(shown[position]),
            texts=_indexed_texts(spec, record, position),
        )
        for position, item_id in enumerate(record["ids"])
    ]
    return ItemPage(items, _vectors(record["vectors"]))


def _fact_page(record: Any) -> ItemPage:
    columns = zip(
        record["ids"],
        record["relations"],
        record["facts"],
        record["triples"],
        record["sources"],
        record["targets"],
        record["valid_ats"],
        record["invalid_ats"],
        record["created_ats"],
        record["expired_ats"],
        strict=True,
    )
    items = [
        Item(
            id=fact_id,
            name=str(relation),
            text=str(fact),
            texts={"fact": str(fact), "triple": str(triple)},
            source=source,
            target=target,
            valid_at=_optional(valid_at),
            invalid_at=_optional(invalid_at),
            created_at=_stamp(created_at),
            expired_at=_stamp(expired_at),
        )
        for fact_id, relation, fact, triple, source, target, valid_at, invalid_at, created_at, expired_at in columns
    ]
    return ItemPage(items, _vectors(record["vectors"]))


def _page_reader(spec: ScopeSpec, query: str, group: str) -> Callable[[list[str]], ItemPage]:
    """Read and convert one page: the conversion runs in the reading thread, so a page's Python floats are
    freed there and then, and only float32 matrices wait for the view."""
    to_page = _fact_page if spec.is_fact else partial(_node_page, spec)
    return in_context(lambda ids: to_page(_columns(query, ids=ids, group=group)))


def scope_pages(spec: ScopeSpec, *, group: str) -> Iterator[ItemPage]:
    """Every item of the scope in the group, page by page; PAGE_WORKERS pages are in flight at once (the
    server streams the next while this process decodes one), never more, so memory holds a few pages only."""
    if spec.is_fact:
        node_ids = _columns(GROUP_NODE_IDS, group=group)["ids"]
        read = _page_reader(spec, FACTS_OUT_PAGE, group)
    else:
        node_ids = _columns(LABEL_NODE_IDS.format(label=spec.label), group=group)["ids"]
        read = _page_reader(spec, NODE_PAGES[spec.name], group)
    pages = _pages(node_ids)
    with ThreadPoolExecutor(max_workers=PAGE_WORKERS, thread_name_prefix="memoria-view") as pool:
        in_flight = deque(pool.submit(read, ids) for ids in islice(pages, PAGE_WORKERS))
        while in_flight:
            page = in_flight.popleft().result()
            ids = next(pages, None)
            if ids is not None:
                in_flight.append(pool.submit(read, ids))
            yield page


def pages_touching(spec: ScopeSpec, *, group: str, node_ids: Sequence[str]) -> Iterator[ItemPage]:
    """The scope's items as stored now among `node_ids` (node scopes) or touching them (facts)."""
    query = FACTS_TOUCHING_PAGE if spec.is_fact else NODE_PAGES[spec.name]
    read = _page_reader(spec, query, group)
    for ids in _pages(sorted(set(node_ids))):
        yield read(ids)
