"""A group's memory graph in memory: nodes by position and their edges as CSR arrays, pulled from the server in bulk.

Rows come back as a few long integer-indexed columns per query (`collect` of
internal node ids, weights, categories) instead of one Bolt record per edge:
on ArcadeDB the per-record cost dominates (measured 7.7 s for 50k edges as
records, 1.3 s as columns). Edges are fetched in pages of source nodes, named
by explicit id lists so pages never overlap or miss, and two pages run at
once so both cores of the server work. Edge ends are mapped to positions with
one vectorised search over the sorted internal ids.

Nodes are ordered by their `id`, so positions are the same in every process
and after every reload of unchanged data. Beside the walk's columns, each edge
carries what Activation Energy (and time-aware retrieval) reads of a RELATES
fact (memoria/projection/facts.py), and each node its labels and RELATES degree.

A projection also keeps each node's internal id and the version stamps it was
read at: with them, memoria/projection/update.py brings it up to date after
small writes by re-reading only the nodes they touched, through the pieces of
the load below (`node_rows`, `edge_columns`, `edge_rows`).
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import neo4j
import numpy as np

from memoria.graph import driver, kinds
from memoria.graph.asof import AsOf, FactIntervals
from memoria.graph.versions import group_stamps
from memoria.observability import in_context
from memoria.projection.facts import FACT_COLUMNS, VALIDITY, FactColumns, fact_columns
from memoria.projection.incidence import FactIncidence, fact_incidence
from memoria.projection.transition import TransitionGraph, WalkPattern, walk_pattern

RELATES_LINK = 0
MENTIONS_LINK = 1
LINKS = (kinds.RELATES, kinds.MENTIONS)
NO_CATEGORY = -1
# How central an entity is to an episode that mentions it (MARA-RAG's entity–passage relations), read from an
# optional `role` property of MENTIONS. Category codes index CATEGORIES: the facts' five, then these three.
MENTION_ROLES = ("PRIMARY", "SECONDARY", "PERIPHERAL")
CATEGORIES = (*kinds.RELATION_CATEGORIES, *MENTION_ROLES)
# HippoRAG's synonymy edges weigh as attributions (seed 003).
CATEGORY_ALIASES = {"SYNONYMY": "ATTRIBUTION"}
MASKED_WALKS = 2  # walks kept for masks other than "every fact": a default `as_of` of now repeats its mask
PAGE_NODES = 20_000
PAGE_WORKERS = 2

FULL = "full"  # how a projection was made: read whole from the server
INCREMENTAL = "incremental"  # or from the previous one and a re-read of the nodes its writes touched

NODE_COLUMNS = f"""
RETURN collect(id(n)) AS keys, collect(n.id) AS ids, collect(labels(n)) AS labels,
       collect(coalesce(n.name, '')) AS names, collect(n.name IS NULL) AS unnamed,
       collect(COUNT {{ (n)-[:{kinds.RELATES}]-() }}) AS degrees
"""
NODES = f"MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group}})" + NODE_COLUMNS
# The rows of some nodes, named by id: what an incremental update re-reads of the nodes its writes touched.
NODES_NAMED = (
    f"""
UNWIND $ids AS node_id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: node_id}})"""
    + NODE_COLUMNS
)
# collect() skips nulls, so every collected column is made non-null: the columns must stay aligned.
EDGES = f"""
UNWIND $keys AS key
MATCH (a)-[r:{kinds.RELATES}|{kinds.MENTIONS}]->(b)
WHERE id(a) = key
RETURN collect(key) AS sources, collect(id(b)) AS targets,
       collect(coalesce(r.relation_category, r.role, '')) AS categories,
       collect(CASE type(r) WHEN '{kinds.MENTIONS}' THEN {MENTIONS_LINK} ELSE {RELATES_LINK} END) AS links,
       collect(coalesce(r.id, '')) AS fact_ids, collect(coalesce(r.relation, '')) AS relations,
       collect(coalesce(toFloat(r.weight), 0.0)) AS stored_weights, collect(toFloat(r.weight) IS NULL) AS weightless,
       collect(coalesce(r.tags, [])) AS tags,
       collect(coalesce(r.valid_at, '')) AS valid_at, collect(coalesce(r.invalid_at, '')) AS invalid_at,
       collect(coalesce(r.created_at, '')) AS created_at, collect(coalesce(r.expired_at, '')) AS expired_at
"""

Progress = Callable[[int, int], None]  # (pages done, pages in all)


@dataclass(frozen=True)
class MomentMask:
    """A moment's view of the projection: which edges count, and each node's RELATES degree counting only those
    (the server's count less the node's facts in the group that do not count)."""

    counting: np.ndarray  # bool per edge
    degrees: np.ndarray  # int64 per node


@dataclass(frozen=True)
class Projection:
    """Nodes `0..size-1` (sorted by id) and edges sorted by (source, target): CSR with `indptr`."""

    group: str
    version: int
    ids: tuple[str, ...]
    names: tuple[str, ...]
    kinds: np.ndarray  # int8: position in kinds.NODE_KINDS
    indptr: np.ndarray  # int64, size + 1: edges of node i are indptr[i]:indptr[i+1]
    targets: np.ndarray  # int32
    weights: np.ndarray  # float64, ≥ 0 (non-finite and negative stored weights are 0: never walked)
    categories: np.ndarray  # int8: position in CATEGORIES, or NO_CATEGORY
    links: np.ndarray  # int8: RELATES_LINK or MENTIONS_LINK
    facts: FactColumns  # per edge, as stored (empty for MENTIONS edges)
    label_sets: tuple[tuple[str, ...], ...]  # each distinct labels(n), in the server's order
    label_codes: np.ndarray  # int32 per node: its entry in label_sets
    unnamed: np.ndarray  # bool per node: n.name is null (names[i] is then '')
    relates_degrees: np.ndarray  # int32 per node: COUNT { (n)-[:RELATES]-() }, foreign ends included
    keys: np.ndarray  # int64 per node: its internal id, which the EDGES query names edge ends by
    stamps: Mapping[str, int]  # the version stamps read before the load (summing to `version`): its catch-up point
    loaded_at: float  # time.time() when the load finished
    load_seconds: float  # of the full load or incremental update that made it
    update: str = FULL  # FULL or INCREMENTAL
    _positions: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    _patterns: dict[tuple[bool, bool], WalkPattern] = field(default_factory=dict, repr=False, compare=False)
    _walks: dict[tuple[bool, bool], TransitionGraph] = field(default_factory=dict, repr=False, compare=False)
    _masked: dict[tuple[bool, bool, bytes], TransitionGraph] = field(default_factory=dict, repr=False, compare=False)
    _moments: dict[tuple[int, int], MomentMask | None] = field(default_factory=dict, repr=False, compare=False)
    _incidence: list[FactIncidence] = field(default_factory=list, repr=False, compare=False)
    _intervals: list[FactIntervals] = field(default_factory=list, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._positions.update((node_id, position) for position, node_id in enumerate(self.ids))

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def edge_count(self) -> int:
        return len(self.targets)

    @property
    def sources(self) -> np.ndarray:
        return np.repeat(np.arange(self.size, dtype=np.int32), np.diff(self.indptr))

    def position(self, node_id: str) -> int | None:
        return self._positions.get(node_id)

    def kind(self, position: int) -> str:
        return kinds.NODE_KINDS[self.kinds[position]]

    def name(self, position: int) -> str | None:
        return None if self.unnamed[position] else self.names[position]

    def labels(self, position: int) -> tuple[str, ...]:
        return self.label_sets[self.label_codes[position]]

    def incidence(self) -> FactIncidence:
        """The RELATES facts at each node, both directions, as activation walks them; built once and shared."""
        with self._lock:
            if not self._incidence:
                self._incidence.append(
                    fact_incidence(self.sources, self.targets, self.links == RELATES_LINK, self.size)
                )
            return self._incidence[0]

    def intervals(self) -> FactIntervals:
        """Each edge's validity as int64 seconds, which retrievals mask per moment (memoria/graph/asof.py):
        built once from the interned stamps and shared, so a new as_of never reloads anything."""
        with self._lock:
            if not self._intervals:
                validity = self.facts.validity
                self._intervals.append(
                    FactIntervals.from_interned(
                        {name: (validity[name].vocabulary, validity[name].codes) for name in VALIDITY}
                    )
                )
            return self._intervals[0]

    def memory_bytes(self) -> int:
        """About what this projection holds in memory (arrays, strings and the built walks), for budgets and reports."""
        arrays = (self.kinds, self.indptr, self.targets, self.weights, self.categories, self.links)
        node_arrays = (self.label_codes, self.unnamed, self.relates_degrees, self.keys)
        walks = sum(_walk_bytes(walk) for walk in (*self._walks.values(), *self._masked.values()))
        incidence = sum(built.memory_bytes() for built in self._incidence) + sum(
            built.memory_bytes() for built in self._intervals
        )
        strings = _strings_bytes(self.ids) + _strings_bytes(self.names)
        return sum(a.nbytes for a in (*arrays, *node_arrays)) + strings + self.facts.memory_bytes() + walks + incidence

    def chosen_edges(self, *, mentions: bool) -> np.ndarray | slice:
        """Which edges a walk uses: all, or the RELATES facts only."""
        return slice(None) if mentions else np.flatnonzero(self.links == RELATES_LINK)

    def at(self, moment: AsOf) -> MomentMask | None:
        """Which edges count at `moment` and each node's RELATES degree then; None when every edge counts (the
        projection as it is serves). Built once per distinct mask (moments between the same stored stamps share
        it: a default of now keeps one until a fact's time passes) and kept for the last few."""
        intervals = self.intervals()
        key = intervals.key(moment)
        if key is None:
            return None
        with self._lock:
            if key in self._moments:
                return self._moments[key]
        counting = intervals.mask(moment)
        assert counting is not None
        counting |= self.links != RELATES_LINK  # MENTIONS links are no facts: they always count
        built = None
        if not counting.all():
            incidence = self.incidence()
            uncounted = np.bincount(
                np.repeat(np.arange(self.size), np.diff(incidence.indptr))[~counting[incidence.edges]],
                minlength=self.size,
            )
            built = MomentMask(counting, (self.relates_degrees - uncounted).astype(np.int64))
        with self._lock:
            while len(self._moments) >= MASKED_WALKS:
                self._moments.pop(next(iter(self._moments)))
            self._moments[key] = built
        return built

    def counting(self, moment: AsOf, chosen: np.ndarray | slice) -> np.ndarray | None:
        """Which chosen edges count at `moment` (MENTIONS links always); None when all of them do, so the walk is
        the shared one."""
        at = self.at(moment)
        if at is None:
            return None
        mask = at.counting[chosen]
        return None if mask.all() else mask

    def walk(
        self,
        *,
        directed: bool,
        mentions: bool,
        multipliers: np.ndarray | None = None,
        counting: np.ndarray | None = None,
    ) -> TransitionGraph:
        """The PageRank walk over RELATES edges (plus MENTIONS if asked), built once and shared.

        `multipliers` (one per chosen edge) scale the stored weights for one query, as relation-aware
        PPR does; that walk is built from the cached pattern each time and not kept. `counting` (one flag per
        chosen edge, from `counting()`) leaves out the facts that do not count at a moment: their weight is 0,
        which the walk never takes. The last few masked walks are kept, keyed by their mask.
        """
        key = (directed, mentions)
        chosen = self.chosen_edges(mentions=mentions)
        masked_key = None
        if counting is not None and multipliers is None:
            masked_key = (*key, hashlib.blake2b(np.packbits(counting).tobytes(), digest_size=16).digest())
        with self._lock:
            pattern = self._patterns.get(key)
            if pattern is None:
                sources, targets = self.sources[chosen], self.targets[chosen]
                pattern = walk_pattern(size=self.size, sources=sources, targets=targets, directed=directed)
                self._patterns[key] = pattern
            if masked_key is not None:
                built = self._masked.get(masked_key)
            elif multipliers is not None or counting is not None:
                built = None
            else:
                built = self._walks.get(key)
                if built is None:
                    built = self._walks[key] = pattern.walk(self.weights[chosen])
        if built is not None:
            return built
        weights = self.weights[chosen]
        if multipliers is not None:
            weights = weights * multipliers
        if counting is not None:
            weights = np.where(counting, weights, 0.0)
        built = pattern.walk(weights)
        if masked_key is not None:
            with self._lock:
                while len(self._masked) >= MASKED_WALKS:
                    self._masked.pop(next(iter(self._masked)))
                self._masked[masked_key] = built
        return built


def mention_counts(projection: Projection) -> np.ndarray:
    """How many episodes mention each node: PPR's seed weights and the query lexicon's IDF both divide by it."""
    return np.bincount(projection.targets[projection.links == MENTIONS_LINK], minlength=projection.size)


def kind_codes(labels: list[list[str]]) -> np.ndarray:
    codes = np.full(len(labels), kinds.NODE_KINDS.index(kinds.ENTITY), dtype=np.int8)
    for position, node_labels in enumerate(labels):
        for code, kind in enumerate(kinds.NODE_KINDS):
            if kind in node_labels:
                codes[position] = code
                break
    return codes


def _label_codes(labels: list[list[str]]) -> tuple[tuple[tuple[str, ...], ...], np.ndarray]:
    interned: dict[tuple[str, ...], int] = {}
    codes = np.fromiter(
        (interned.setdefault(tuple(node_labels), len(interned)) for node_labels in labels), np.int32, len(labels)
    )
    return tuple(interned), codes


def _walk_bytes(walk: TransitionGraph) -> int:
    """The walk's own arrays; its halves are views of them."""
    matrices = [m for m in (walk.forward, walk.backward, walk.symmetric) if m is not None]
    arrays = [walk.slot, walk.node, walk.dangling, walk.degree]
    if walk.sqrt_degree is not None:
        arrays.append(walk.sqrt_degree)
    return sum(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes for m in matrices) + sum(a.nbytes for a in arrays)


def _strings_bytes(strings: tuple[str, ...]) -> int:
    return sys.getsizeof(strings) + sum(sys.getsizeof(text) for text in strings)


def _category_codes(categories: list[str]) -> np.ndarray:
    if not categories:
        return np.zeros(0, dtype=np.int8)
    names, inverse = np.unique(np.asarray(categories, dtype=object), return_inverse=True)
    canonical = [CATEGORY_ALIASES.get(str(name).upper(), str(name).upper()) for name in names]
    known = np.array([CATEGORIES.index(n) if n in CATEGORIES else NO_CATEGORY for n in canonical], dtype=np.int8)
    return known[inverse]


def _pages(keys: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(keys), size):
        yield keys[start : start + size]


def _positions_of(raw: Any, sorted_keys: np.ndarray, key_order: np.ndarray) -> np.ndarray:
    """Positions of internal ids, -1 for ids that are not the group's nodes."""
    wanted = np.asarray(raw, dtype=np.int64)
    if not len(sorted_keys):
        return np.full(len(wanted), -1, dtype=np.int64)
    found = np.searchsorted(sorted_keys, wanted).clip(max=len(sorted_keys) - 1)
    return np.where(sorted_keys[found] == wanted, key_order[found], -1)


def read_columns(query: str, **parameters: Any) -> neo4j.Record:
    """One record of long columns, as the driver decoded them: `driver.read`'s `record.data()` would walk
    every list element in Python (measured 7.5 s of a 27 s load at 500k edges)."""
    return driver.read_records(query, **parameters)[0]


def _edge_page(keys: list[int]) -> neo4j.Record:
    return read_columns(EDGES, keys=keys)


@dataclass(frozen=True)
class NodeRows:
    """Rows of the NODES columns, sorted by id (the order of positions)."""

    keys: np.ndarray  # int64
    ids: tuple[str, ...]
    names: tuple[str, ...]
    labels: list[list[str]]
    unnamed: np.ndarray  # bool
    degrees: np.ndarray  # int32


def node_rows(record: neo4j.Record) -> NodeRows:
    nodes = dict(zip(record.keys(), record.values(), strict=True))  # a Record looks a key up anew at each use
    order = np.argsort(np.asarray(nodes["ids"], dtype=object), kind="stable")
    positions = order.tolist()
    return NodeRows(
        keys=np.asarray(nodes["keys"], dtype=np.int64)[order] if order.size else np.zeros(0, np.int64),
        ids=tuple(nodes["ids"][i] for i in positions),
        names=tuple(nodes["names"][i] for i in positions),
        labels=[nodes["labels"][i] for i in positions],
        unnamed=np.asarray(nodes["unnamed"], dtype=bool)[order] if order.size else np.zeros(0, dtype=bool),
        degrees=np.asarray(nodes["degrees"], dtype=np.int32)[order] if order.size else np.zeros(0, np.int32),
    )


def edge_columns(
    keys: np.ndarray, *, page_nodes: int = PAGE_NODES, workers: int = PAGE_WORKERS, progress: Progress | None = None
) -> dict[str, list[Any]]:
    """The EDGES columns of the edges leaving the nodes of these internal ids, read in pages."""
    pages = list(_pages(keys.tolist(), page_nodes))
    columns: dict[str, list[Any]] = {name: [] for name in ("sources", "targets", "categories", "links", *FACT_COLUMNS)}
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="memoria-projection") as pool:
        for done, page in enumerate(pool.map(in_context(_edge_page), pages), start=1):
            for name, values in columns.items():
                values.extend(page[name])
            if progress:
                progress(done, len(pages))
    return columns


@dataclass(frozen=True)
class EdgeRows:
    """The walk's columns of the edges read whose both ends are nodes of the projection, in read order."""

    rows: np.ndarray  # each one's row in the columns as read
    sources: np.ndarray  # int64 positions
    targets: np.ndarray  # int64 positions
    weights: np.ndarray  # float64
    categories: np.ndarray  # int8
    links: np.ndarray  # int8


def edge_rows(columns: dict[str, list[Any]], keys: np.ndarray) -> EdgeRows:
    """Edge ends mapped to positions in the nodes of these internal ids (in position order)."""
    key_order = np.argsort(keys)
    sorted_keys = keys[key_order]
    sources = _positions_of(columns["sources"], sorted_keys, key_order)
    targets = _positions_of(columns["targets"], sorted_keys, key_order)
    # The walk reads a missing weight as 1.0 (activation reads it as 0.01: the facts keep the stored one).
    weights = np.where(np.asarray(columns["weightless"], dtype=bool), 1.0, np.asarray(columns["stored_weights"], float))
    weights = np.where(np.isfinite(weights) & (weights > 0), weights, 0.0)
    rows = np.flatnonzero(
        (sources >= 0) & (targets >= 0)
    )  # an end outside the group (or written meanwhile) is left out
    return EdgeRows(
        rows=rows,
        sources=sources[rows],
        targets=targets[rows],
        weights=weights[rows],
        categories=_category_codes(columns["categories"])[rows],
        links=np.asarray(columns["links"], dtype=np.int8).reshape(-1)[rows],
    )


def csr_indptr(sources: np.ndarray, size: int) -> np.ndarray:
    """CSR offsets of edges sorted by source."""
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(sources, minlength=size), out=indptr[1:])
    return indptr


def projection_load(
    *, group: str, page_nodes: int = PAGE_NODES, workers: int = PAGE_WORKERS, progress: Progress | None = None
) -> Projection:
    """Read the group's nodes and edges; labelled with the version read *before* them, so a write
    that lands during the load makes the projection stale, never wrongly current."""
    started = time.perf_counter()
    stamps = group_stamps(group=group)
    nodes = node_rows(read_columns(NODES, group=group))
    columns = edge_columns(nodes.keys, page_nodes=page_nodes, workers=workers, progress=progress)
    edges = edge_rows(columns, nodes.keys)
    edge_order = np.lexsort((edges.targets, edges.sources))
    label_sets, label_codes = _label_codes(nodes.labels)
    return Projection(
        group=group,
        version=sum(stamps.values()),
        ids=nodes.ids,
        names=nodes.names,
        kinds=kind_codes(nodes.labels),
        indptr=csr_indptr(edges.sources, len(nodes.ids)),
        targets=edges.targets[edge_order].astype(np.int32),
        weights=edges.weights[edge_order],
        categories=edges.categories[edge_order],
        links=edges.links[edge_order],
        facts=fact_columns(columns, edges.rows[edge_order]),  # each projected edge's row in the columns as read
        label_sets=label_sets,
        label_codes=label_codes,
        unnamed=nodes.unnamed,
        relates_degrees=nodes.degrees,
        keys=nodes.keys,
        stamps=stamps,
        loaded_at=time.time(),
        load_seconds=time.perf_counter() - started,
    )
