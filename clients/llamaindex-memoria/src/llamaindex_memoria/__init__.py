"""LlamaIndex integration for Memoria: `MemoriaRetriever`, a `BaseRetriever` over Memoria's search."""

from llamaindex_memoria.retriever import MemoriaRetriever

__all__ = ["MemoriaRetriever"]
