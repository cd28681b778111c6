"""One scope of one group in memory: its items, a BM25 index of their texts and a matrix of their vectors."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from memoria.readmodel.scopes import Item, ScopeSpec
from memoria.readmodel.text_index import TextIndex
from memoria.readmodel.vector_index import VectorIndex

ITEM_OVERHEAD_BYTES = 400  # the Item, its dict and strings' headers, the id maps (measured order of magnitude)
TEXT_INDEX_FACTOR = 2  # a RAM tantivy index holds about twice its texts' bytes (postings, positions, store)


class ScopeView:
    """Not thread-safe by itself: the group view's lock guards reads against changes."""

    def __init__(self, spec: ScopeSpec, *, dimensions: int) -> None:
        self.spec = spec
        self.items: dict[str, Item] = {}
        self.text = TextIndex(spec.text_fields)
        self.vectors = VectorIndex(dimensions)
        self._by_node: dict[str, set[str]] = defaultdict(set)  # facts: node id → ids of facts touching it
        self._text_bytes = 0

    def __len__(self) -> int:
        return len(self.items)

    @property
    def nbytes(self) -> int:
        return self.vectors.nbytes + (TEXT_INDEX_FACTOR + 1) * self._text_bytes + ITEM_OVERHEAD_BYTES * len(self.items)

    def put(self, items: Iterable[Item]) -> int:
        """Add or replace items; searchable after `commit`."""
        items = list(items)
        for item in items:
            self._forget(item.id)
            self.items[item.id] = item
            self._text_bytes += item.text_bytes
            self.vectors.put(item.id, item.vector)
            if item.source is not None and item.target is not None:
                self._by_node[item.source].add(item.id)
                self._by_node[item.target].add(item.id)
        self.text.put((item.id, item.texts) for item in items)
        return len(items)

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
        self.vectors.remove(item_id)
        for node in (old.source, old.target):
            if node is not None:
                touching = self._by_node.get(node)
                if touching is not None:
                    touching.discard(item_id)
                    if not touching:
                        del self._by_node[node]
