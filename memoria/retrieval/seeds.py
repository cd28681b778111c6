"""Seeds from a query now come from hybrid search (memoria.search.service.search_seeds).

Only the Lucene escaping is still imported from here (by memoria.ingest.resolve_entities); it lives in
memoria.search.methods, and this module goes once nothing imports it.
"""

from memoria.search.methods import lucene_query

__all__ = ["lucene_query"]
