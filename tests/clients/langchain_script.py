"""Run by langchain-memoria's scratch venv (tests/clients/test_langchain_memoria.py), not by pytest: the installed
retriever against a running daphne, sync and async; prints one JSON object of what it saw.

argv: base_url token group hidden_group
"""

from __future__ import annotations

import asyncio
import json
import sys

import langchain_memoria
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_memoria import MemoriaRetriever
from memoria_client import MemoriaError


def shown(documents: list[Document]) -> list[dict]:
    return [{"class": type(d).__name__, "text": d.page_content, "metadata": d.metadata, "id": d.id} for d in documents]


def main(base: str, token: str, group: str, hidden: str) -> dict:
    retriever = MemoriaRetriever.from_url(base, token, group=group, k=5)
    seen: dict = {"module": langchain_memoria.__file__, "is_retriever": isinstance(retriever, BaseRetriever)}
    seen["sync"] = shown(retriever.invoke("Where does Maren live?"))
    seen["async"] = shown(asyncio.run(retriever.ainvoke("Where does Maren live?")))
    then = MemoriaRetriever.from_url(base, token, group=group, scopes=("facts",), valid_at="2024-05-01T00:00:00Z")
    seen["in_may"] = shown(then.invoke("Where does Maren live?"))
    for name, attempt in {
        "hidden": lambda: MemoriaRetriever.from_url(base, token, group=hidden).invoke("Maren"),
        "hidden_async": lambda: asyncio.run(MemoriaRetriever.from_url(base, token, group=hidden).ainvoke("Maren")),
    }.items():
        try:
            attempt()
            seen[name] = None
        except MemoriaError as error:
            seen[name] = {"class": type(error).__name__, "status": error.status, "detail": error.detail}
    try:
        MemoriaRetriever.from_url(base, token, group=group, k=0)
        seen["k0"] = None
    except ValueError as error:  # pydantic's ValidationError is a ValueError
        seen["k0"] = type(error).__name__
    return seen


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:5])))
