"""What retrieval reads of each RELATES fact beyond the walk's weight: its id, relation, stored weight, tags and
validity, as columns aligned with the projection's edges.

Strings that repeat (relations, tags) are interned into vocabularies with integer codes, so a 500k-fact group
holds a few arrays instead of millions of small Python objects; tags keep their stored order and repeats, since
activation's tag similarity counts them as stored. A MENTIONS edge has empty values in every column.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

VALIDITY = ("valid_at", "invalid_at", "created_at", "expired_at")
# The EDGES query's columns read here; '' stands for a missing string (no write path stores an empty one).
FACT_COLUMNS = ("fact_ids", "relations", "stored_weights", "weightless", "tags", *VALIDITY)
NO_RELATION = -1


@dataclass(frozen=True)
class FactColumns:
    ids: tuple[str, ...]  # '' for an edge without one (MENTIONS)
    id_ranks: np.ndarray  # int32: rank of the id among all ids — Cypher's `ORDER BY r.id`, as integers
    relation_vocabulary: tuple[str, ...]
    relation_codes: np.ndarray  # int32: entry in relation_vocabulary, or NO_RELATION
    stored_weights: np.ndarray  # float64: r.weight as stored (0 where none is stored)
    weight_stored: np.ndarray  # bool: r.weight is not null
    tag_vocabulary: tuple[str, ...]
    tag_index: dict[str, int]  # tag → its entry in tag_vocabulary
    tag_indptr: np.ndarray  # int64, edges + 1: the tags of edge e are tag_codes[tag_indptr[e]:tag_indptr[e+1]]
    tag_codes: np.ndarray  # int32: entries in tag_vocabulary, in stored order
    validity: dict[str, tuple[str | None, ...]]  # VALIDITY name → the stored timestamp string of each edge

    def relation(self, edge: int) -> str | None:
        code = self.relation_codes[edge]
        return None if code == NO_RELATION else self.relation_vocabulary[code]

    def weight(self, edge: int) -> float | None:
        return float(self.stored_weights[edge]) if self.weight_stored[edge] else None

    def tags(self, edge: int) -> tuple[str, ...]:
        return tuple(
            self.tag_vocabulary[code] for code in self.tag_codes[self.tag_indptr[edge] : self.tag_indptr[edge + 1]]
        )

    def memory_bytes(self) -> int:
        arrays = (self.id_ranks, self.relation_codes, self.stored_weights, self.weight_stored, self.tag_indptr)
        strings = sum(sys.getsizeof(text) for text in (*self.ids, *self.relation_vocabulary, *self.tag_vocabulary))
        validity = sum(
            sys.getsizeof(column) + sum(sys.getsizeof(text) for text in column if text is not None)
            for column in self.validity.values()
        )
        return sum(a.nbytes for a in arrays) + self.tag_codes.nbytes + strings + sys.getsizeof(self.ids) + validity


def _interned(values: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray]:
    """Distinct non-empty strings in first-seen order, and each value's code (NO_RELATION for '')."""
    vocabulary: dict[str, int] = {"": NO_RELATION}
    codes = np.fromiter(
        (vocabulary.setdefault(value, len(vocabulary) - 1) for value in values), dtype=np.int32, count=len(values)
    )
    del vocabulary[""]
    return tuple(vocabulary), codes


def _tag_csr(tag_lists: Sequence[list[str]], rows: np.ndarray) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    vocabulary: dict[str, int] = {}
    counts = np.fromiter((len(tag_lists[row]) for row in rows), dtype=np.int64, count=len(rows))
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    codes = np.fromiter(
        (vocabulary.setdefault(tag, len(vocabulary)) for row in rows for tag in tag_lists[row]),
        dtype=np.int32,
        count=int(indptr[-1]),
    )
    return vocabulary, indptr, codes


def _id_ranks(ids: tuple[str, ...]) -> np.ndarray:
    ranks = np.empty(len(ids), dtype=np.int32)
    ranks[np.argsort(np.asarray(ids, dtype=object), kind="stable")] = np.arange(len(ids), dtype=np.int32)
    return ranks


def fact_columns(columns: dict[str, list[Any]], rows: np.ndarray) -> FactColumns:
    """The fact columns of the projected edges, `rows` giving each projected edge's row in the columns as read."""
    row_list = rows.tolist()
    ids = tuple(columns["fact_ids"][row] for row in row_list)
    relation_vocabulary, relation_codes = _interned([columns["relations"][row] for row in row_list])
    tag_index, tag_indptr, tag_codes = _tag_csr(columns["tags"], rows)
    validity = {name: tuple(value or None for value in (columns[name][row] for row in row_list)) for name in VALIDITY}
    return FactColumns(
        ids=ids,
        id_ranks=_id_ranks(ids),
        relation_vocabulary=relation_vocabulary,
        relation_codes=relation_codes,
        stored_weights=np.asarray(columns["stored_weights"], dtype=np.float64)[rows] if len(rows) else np.zeros(0),
        weight_stored=~np.asarray(columns["weightless"], dtype=bool)[rows] if len(rows) else np.zeros(0, dtype=bool),
        tag_vocabulary=tuple(tag_index),
        tag_index=tag_index,
        tag_indptr=tag_indptr,
        tag_codes=tag_codes,
        validity=validity,
    )
