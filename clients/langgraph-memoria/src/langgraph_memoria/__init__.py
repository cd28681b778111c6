"""LangGraph integration for Memoria: `MemoriaStore`, a `BaseStore` whose items are episodes of a Memoria group."""

from langgraph_memoria.store import MemoriaStore, episode_id

__all__ = ["MemoriaStore", "episode_id"]
