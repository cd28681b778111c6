"""One scope of one group in memory: its items, a BM25 index of their texts and a matrix of their vectors."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from memoria.readmodel.name_index import NameIndex
from memoria.readmodel.scopes import Item, ItemPage, ScopeSpec
from memoria.readmodel.text_index import TextIndex
from memoria.readmodel.vector_index import VectorIndex

ITEM_OVERHEAD_BYTES = 400  # the Item, its dict and strings' headers, the id maps (measured order of magnitude)
TEXT_INDEX_FACTOR = 2  # a RAM tantivy index holds about twice its texts' bytes (postings, positions, store)
INDEX_OVERHEAD_BYTES = 2 * 1024**2  # an empty RAM tantivy index, once a writer has been and gone (measured 1.8 MiB)


class ScopeView:
    """Not thread-safe by itself: the group view's lock guards reads against changes."""

    def __init__(self, spec: ScopeSpec, *, dimensions: int) -> None:
        self.spec = spec
        self.items: dict[str, Item] = {}
        self.text = TextIndex(spec.text_fields)
        self.vectors = VectorIndex(dimensions)
        # Names by their words, for search-as-you-type's prefixes: node scopes only (a fact's name is its relation).
        self.names = None if spec.is_fact else NameIndex()
        self._by_node: dict[str, set[str]] = defaultdict(set)  # facts: node id → ids of facts touching it
        self._text_bytes = 0

    def __len__(self) -> int:
        return len(self.items)

    @property
    def nbytes(self) -> int:
        texts = (TEXT_INDEX_FACTOR + 1) * self._text_bytes + INDEX_OVERHEAD_BYTES
        names = self.names.nbytes if self.names is not None else 0
        return self.vectors.nbytes + texts + names + ITEM_OVERHEAD_BYTES * len(self.items)

    def put(self, pages: Iterable[ItemPage]) -> int:
        """Add or replace items, page by page as they stream in; searchable after `commit`. A build (an empty
        scope) holds its pages' vector matrices to the end, then copies them once into a matrix of their size."""
        count = 0
        building = not self.items
        held: list[tuple[list[str], np.ndarray]] = []
        for page in pages:
            for item in page.items:
                self._forget(item.id)
                self.items[item.id] = item
                self._text_bytes += item.text_bytes
                if self.names is not None:
                    self.names.put(item.id, item.name)
                if item.source is not None and item.target is not None:
                    self._by_node[item.source].add(item.id)
                    self._by_node[item.target].add(item.id)
            keys = [item.id for item in page.items]
            if isinstance(page.vectors, np.ndarray) and building:
                held.append((keys, page.vectors))
            elif isinstance(page.vectors, np.ndarray):
                self.vectors.put_rows(keys, page.vectors)
            else:
                for key, vector in zip(keys, page.vectors, strict=True):
                    self.vectors.put(key, vector)
            self.text.put((item.id, item.texts) for item in page.items)
            count += len(page)
        self.vectors.reserve(sum(len(keys) for keys, _ in held))
        while held:
            keys, matrix = held.pop(0)  # each page's matrix is freed once copied
            self.vectors.put_rows(keys, matrix)
        return count

    def remove(self, ids: Iterable[str]) -> int:
        gone = [item_id for item_id in ids if item_id in self.items]
        for item_id in gone:
            self._forget(item_id)
        self.text.remove(gone)
        return len(gone)

    def ids_touching(self, node_ids: Sequence[str]) -> set[str]:
        """Items that a change of these nodes may have changed: the nodes themselves, or facts touching them."""
        if self.spec.is_fact:
            return {fact for node in node_ids for fact in self._by_node.get(node, ())}
        return {node for node in node_ids if node in self.items}

    def commit(self) -> None:
        self.text.commit()

    def _forget(self, item_id: str) -> None:
        old = self.items.pop(item_id, None)
        if old is None:
            return
        self._text_bytes -= old.text_bytes
        if self.names is not None:
            self.names.remove(item_id, old.name)
        self.vectors.remove(item_id)
        for node in (old.source, old.target):
            if node is not None:
                touching = self._by_node.get(node)
                if touching is not None:
                    touching.discard(item_id)
                    if not touching:
                        del self._by_node[node]
