"""Run by llamaindex-memoria's scratch venv (tests/clients/test_llamaindex_memoria.py), not by pytest: the installed
retriever against a running daphne, sync and async; prints one JSON object of what it saw.

argv: base_url token group hidden_group
"""

from __future__ import annotations

import asyncio
import json
import sys

import llamaindex_memoria
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import MetadataMode, NodeWithScore
from llamaindex_memoria import MemoriaRetriever
from memoria_client import MemoriaError


def shown(hits: list[NodeWithScore]) -> list[dict]:
    return [
        {
            "class": type(hit).__name__,
            "node": type(hit.node).__name__,
            "id": hit.node.node_id,
            "score": hit.score,
            "text": hit.node.get_content(),
            "llm_text": hit.node.get_content(metadata_mode=MetadataMode.LLM),
            "metadata": hit.node.metadata,
        }
        for hit in hits
    ]


def main(base: str, token: str, group: str, hidden: str) -> dict:
    retriever = MemoriaRetriever.from_url(base, token, group=group, k=5)
    seen: dict = {"module": llamaindex_memoria.__file__, "is_retriever": isinstance(retriever, BaseRetriever)}
    seen["sync"] = shown(retriever.retrieve("Where does Maren live?"))
    seen["async"] = shown(asyncio.run(retriever.aretrieve("Where does Maren live?")))
    then = MemoriaRetriever.from_url(base, token, group=group, scopes=("facts",), valid_at="2024-05-01T00:00:00Z")
    seen["in_may"] = shown(then.retrieve("Where does Maren live?"))
    for name, attempt in {
        "hidden": lambda: MemoriaRetriever.from_url(base, token, group=hidden).retrieve("Maren"),
        "hidden_async": lambda: asyncio.run(MemoriaRetriever.from_url(base, token, group=hidden).aretrieve("Maren")),
    }.items():
        try:
            attempt()
            seen[name] = None
        except MemoriaError as error:
            seen[name] = {"class": type(error).__name__, "status": error.status, "detail": error.detail}
    try:
        MemoriaRetriever.from_url(base, token, group=group, k=0)
        seen["k0"] = None
    except ValueError as error:
        seen["k0"] = str(error)
    return seen


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:5])))
