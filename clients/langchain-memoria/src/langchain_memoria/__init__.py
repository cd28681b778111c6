"""LangChain integration for Memoria: `MemoriaRetriever`, a `BaseRetriever` over Memoria's search."""

from langchain_memoria.retriever import MemoriaRetriever

__all__ = ["MemoriaRetriever"]
