"""Per-group read models: what retrieval reads, held in memory and derived from the graph server.

The graph server stays the store of record. A group's view is built lazily the
first time a search or an ingest asks for it, refreshed from the group's
version stamps (incrementally when the writers said which nodes they touched),
and dropped least recently used past a memory budget, so what one group costs
never depends on the size of the others.
"""

# Bytes of views (texts, BM25 indexes, vectors) one process keeps: MEMORIA_VIEW_MAX_BYTES.
DEFAULT_VIEW_MAX_BYTES = 2 * 1024**3
