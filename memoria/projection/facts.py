"""What retrieval reads of each RELATES fact beyond the walk's weight: its id, relation, stored weight, tags and
validity, as columns aligned with the projection's edges.

Strings that repeat (relations, tags, timestamps) are interned into vocabularies with integer codes, so a
500k-fact group holds a few arrays instead of millions of small Python objects; tags keep their stored order and
repeats, since activation's tag similarity counts them as stored. A MENTIONS edge has empty values in every column.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

VALIDITY = ("valid_at", "invalid_at", "created_at", "expired_at")
# The EDGES query's columns read here; '' stands for a missing string (no write path stores an empty one).
FACT_COLUMNS = ("fact_ids", "relations", "stored_weights", "weightless", "tags", *VALIDITY)


@dataclass(frozen=True)
class FactColumns:
    ids: tuple[str, ...]  # '' for an edge without one (MENTIONS)
    id_ranks: np.ndarray  # int32: rank of the id among all ids — Cypher's `ORDER BY r.id`, as integers
    relations: InternedStrings
    stored_weights: np.ndarray  # float64: r.weight as stored (0 where none is stored)
    weight_stored: np.ndarray  # bool: a number is stored as r.weight
    tag_vocabulary: tuple[str, ...]
    tag_index: dict[str, int]  # tag → its entry in tag_vocabulary
    tag_indptr: np.ndarray  # int64, edges + 1: the tags of edge e are tag_codes[tag_indptr[e]:tag_indptr[e+1]]
    tag_codes: np.ndarray  # int32: entries in tag_vocabulary, in stored order
    validity: dict[str, InternedStrings]  # VALIDITY name → each edge's stored timestamp string

    def relation(self, edge: int) -> str | None:
        return self.relations.value(edge)

    def weight(self, edge: int) -> float | None:
        return float(self.stored_weights[edge]) if self.weight_stored[edge] else None

    def tags(self, edge: int) -> tuple[str, ...]:
        codes = self.tag_codes[self.tag_indptr[edge] : self.tag_indptr[edge + 1]].tolist()
        return tuple(self.tag_vocabulary[code] for code in codes)

    def memory_bytes(self) -> int:
        arrays = (self.id_ranks, self.stored_weights, self.weight_stored, self.tag_indptr, self.tag_codes)
        strings = sum(sys.getsizeof(text) for text in (*self.ids, *self.tag_vocabulary)) + sys.getsizeof(self.ids)
        interned = self.relations.memory_bytes() + sum(column.memory_bytes() for column in self.validity.values())
        return sum(a.nbytes for a in arrays) + strings + interned


@dataclass(frozen=True)
class InternedStrings:
    """A column of strings or None with few distinct values (relations; timestamps written in batches)."""

    vocabulary: tuple[str | None, ...]
    codes: np.ndarray  # int32 per edge: entry in vocabulary

    def value(self, edge: int) -> str | None:
        return self.vocabulary[self.codes[edge]]

    def memory_bytes(self) -> int:
        return self.codes.nbytes + sum(sys.getsizeof(text) for text in self.vocabulary)


def _interned(values: list[str], rows: np.ndarray) -> InternedStrings:
    """Codes through C-level dict lookups (a Python loop per value cost seconds at 500k facts); '' is None."""
    vocabulary = list(dict.fromkeys(values))
    index = {value: code for code, value in enumerate(vocabulary)}
    codes = np.fromiter(map(index.__getitem__, values), dtype=np.int32, count=len(values))
    return InternedStrings(tuple(value or None for value in vocabulary), codes[rows])


def _tag_csr(tag_lists: list[list[str]], rows: np.ndarray) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """The tags of the projected edges as CSR over one vocabulary, flattened in read order and then gathered."""
    flat = list(chain.from_iterable(tag_lists))
    index = {tag: code for code, tag in enumerate(dict.fromkeys(flat))}
    codes = np.fromiter(map(index.__getitem__, flat), dtype=np.int32, count=len(flat))
    counts = np.fromiter(map(len, tag_lists), dtype=np.int64, count=len(tag_lists))
    starts = np.cumsum(counts) - counts
    kept_counts = counts[rows]
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(kept_counts, out=indptr[1:])
    gathered = np.repeat(starts[rows] - indptr[:-1], kept_counts) + np.arange(indptr[-1], dtype=np.int64)
    return index, indptr, codes[gathered]


def _id_ranks(ids: tuple[str, ...]) -> np.ndarray:
    """Python's own string order (Cypher's for these ids), sorted by timsort: 2.5× numpy's object argsort here."""
    ranks = np.empty(len(ids), dtype=np.int32)
    ranks[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids), dtype=np.int32)
    return ranks


def fact_columns(columns: dict[str, list[Any]], rows: np.ndarray) -> FactColumns:
    """The fact columns of the projected edges, `rows` giving each projected edge's row in the columns as read."""
    read_ids = columns["fact_ids"]
    ids = tuple(read_ids[row] for row in rows.tolist())
    tag_index, tag_indptr, tag_codes = _tag_csr(columns["tags"], rows)
    return FactColumns(
        ids=ids,
        id_ranks=_id_ranks(ids),
        relations=_interned(columns["relations"], rows),
        stored_weights=np.asarray(columns["stored_weights"], dtype=np.float64).reshape(-1)[rows],
        weight_stored=~np.asarray(columns["weightless"], dtype=bool).reshape(-1)[rows],
        tag_vocabulary=tuple(tag_index),
        tag_index=tag_index,
        tag_indptr=tag_indptr,
        tag_codes=tag_codes,
        validity={name: _interned(columns[name], rows) for name in VALIDITY},
    )


def _pruned(vocabulary: list[Any], codes: np.ndarray) -> tuple[list[Any], np.ndarray]:
    """Entries no edge uses any more are dropped, so a long run of updates does not grow the vocabularies."""
    used = np.bincount(codes, minlength=len(vocabulary)) > 0
    if used.all():
        return vocabulary, codes
    renumbered = (np.cumsum(used) - 1).astype(np.int32)
    return [entry for entry, keep in zip(vocabulary, used.tolist(), strict=True) if keep], renumbered[codes]


def _extended(vocabulary: list[Any], entries: tuple[Any, ...]) -> np.ndarray:
    """Append the entries `vocabulary` lacks; each entry's code in it."""
    index = {entry: code for code, entry in enumerate(vocabulary)}
    codes = np.zeros(len(entries), dtype=np.int32)
    for position, entry in enumerate(entries):
        if entry not in index:
            index[entry] = len(vocabulary)
            vocabulary.append(entry)
        codes[position] = index[entry]
    return codes


def _interned_merged(
    old: InternedStrings, kept: np.ndarray, new: InternedStrings, order: np.ndarray
) -> InternedStrings:
    vocabulary = list(old.vocabulary)
    new_codes = _extended(vocabulary, new.vocabulary)[new.codes]
    vocabulary, codes = _pruned(vocabulary, np.concatenate([old.codes[kept], new_codes])[order])
    return InternedStrings(tuple(vocabulary), codes)


def _tags_merged(
    old: FactColumns, kept: np.ndarray, new: FactColumns, order: np.ndarray
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """(vocabulary, indptr, codes) of the merged edges' tags: both CSRs gathered from one pool of codes."""
    vocabulary = list(old.tag_vocabulary)
    pool = np.concatenate([old.tag_codes, _extended(vocabulary, new.tag_vocabulary)[new.tag_codes]])
    counts = np.concatenate([np.diff(old.tag_indptr)[kept], np.diff(new.tag_indptr)])[order]
    starts = np.concatenate([old.tag_indptr[:-1][kept], new.tag_indptr[:-1] + len(old.tag_codes)])[order]
    indptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    gathered = np.repeat(starts - indptr[:-1], counts) + np.arange(indptr[-1], dtype=np.int64)
    vocabulary, codes = _pruned(vocabulary, pool[gathered].astype(np.int32))
    return tuple(vocabulary), indptr, codes


def _id_ranks_merged(
    old: FactColumns, kept: np.ndarray, new_ids: tuple[str, ...], order: np.ndarray, old_ids: np.ndarray
) -> np.ndarray:
    """The merged edges' id ranks without sorting them all again: the kept edges stay in their old rank order
    (ties, by edge position, too, since positions keep their order), and each new edge is placed among them
    by binary search on (id, position), as `_id_ranks` would order it."""
    final = np.empty(len(order), dtype=np.int64)
    final[order] = np.arange(len(order), dtype=np.int64)  # each merged row's edge position
    by_rank = np.argsort(old.id_ranks[kept], kind="stable")
    ranked_ids = old_ids[kept[by_rank]]
    ranked_positions = final[: len(kept)][by_rank]
    new_positions = final[len(kept) :].tolist()
    new_order = sorted(range(len(new_ids)), key=lambda j: (new_ids[j], new_positions[j]))
    sorted_new = np.asarray([new_ids[j] for j in new_order], dtype=object)
    low = np.searchsorted(ranked_ids, sorted_new, side="left").tolist()
    high = np.searchsorted(ranked_ids, sorted_new, side="right").tolist()
    before = np.fromiter(  # kept edges ranked before each new edge
        (
            lo + int(np.searchsorted(ranked_positions[lo:hi], new_positions[j])) if hi > lo else lo
            for lo, hi, j in zip(low, high, new_order, strict=True)
        ),
        dtype=np.int64,
        count=len(new_order),
    )
    ranks = np.empty(len(order), dtype=np.int32)
    ranks[by_rank] = np.arange(len(kept)) + np.searchsorted(before, np.arange(len(kept)), side="right")
    ranks[len(kept) + np.asarray(new_order, dtype=np.int64)] = before + np.arange(len(new_order))
    return ranks[order]


def fact_columns_merged(old: FactColumns, kept: np.ndarray, new: FactColumns, order: np.ndarray) -> FactColumns:
    """The columns of the edges `old[kept]` followed by all of `new`, arranged so that edge e is merged row
    `order[e]`: what an incremental update of a projection keeps. `kept` is increasing and `order` keeps the
    kept edges in their old relative order (the new ones go anywhere)."""
    old_ids = np.asarray(old.ids, dtype=object)
    ids = tuple(np.concatenate([old_ids[kept], np.asarray(new.ids, dtype=object)])[order].tolist())
    tag_vocabulary, tag_indptr, tag_codes = _tags_merged(old, kept, new, order)
    return FactColumns(
        ids=ids,
        id_ranks=_id_ranks_merged(old, kept, new.ids, order, old_ids),
        relations=_interned_merged(old.relations, kept, new.relations, order),
        stored_weights=np.concatenate([old.stored_weights[kept], new.stored_weights])[order],
        weight_stored=np.concatenate([old.weight_stored[kept], new.weight_stored])[order],
        tag_vocabulary=tag_vocabulary,
        tag_index={tag: code for code, tag in enumerate(tag_vocabulary)},
        tag_indptr=tag_indptr,
        tag_codes=tag_codes,
        validity={name: _interned_merged(old.validity[name], kept, new.validity[name], order) for name in VALIDITY},
    )
