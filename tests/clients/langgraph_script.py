"""Run by langgraph-memoria's scratch venv (tests/clients/test_langgraph_memoria.py), not by pytest: the installed
store against a running daphne; prints one JSON object of what it saw.

argv: base_url curator_token viewer_token group hidden_group
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from typing import Any

import langgraph_memoria
from langgraph.store.base import BaseStore, Item
from langgraph_memoria import MemoriaStore
from memoria_client import MemoriaError


def item(found: Item | None) -> dict | None:
    if found is None:
        return None
    shown = {"namespace": list(found.namespace), "key": found.key, "value": found.value}
    shown["created_at"] = found.created_at.isoformat()
    shown["score"] = getattr(found, "score", None)
    return shown


def refusal(attempt: Callable[[], Any]) -> dict | None:
    try:
        attempt()
    except (MemoriaError, NotImplementedError, ValueError) as error:
        shown = {"class": type(error).__name__, "message": str(error)}
        if isinstance(error, MemoriaError):
            shown["status"] = error.status
        return shown
    return None


def main(base: str, curator: str, viewer: str, group: str, hidden: str) -> dict:
    store = MemoriaStore.from_url(base, curator)
    liv, oren = (group, "users", "liv"), (group, "users", "oren")
    seen: dict = {"module": langgraph_memoria.__file__, "is_store": isinstance(store, BaseStore)}
    trip = {"text": "Liv plans a sailing trip to Riga in June", "kind": "travel"}
    store.put(liv, "preferences", {"text": "Liv loves smoked salmon from the Tallinn market", "kind": "food"})
    store.put(liv, "trip", trip)
    asyncio.run(store.aput(oren, "preferences", {"text": "Oren prefers green tea over coffee", "kind": "drink"}))
    seen["got"] = item(store.get(liv, "trip"))
    seen["got_async"] = item(asyncio.run(store.aget(oren, "preferences")))
    seen["missing"] = item(store.get(liv, "nothing here"))
    seen["same_again"] = refusal(lambda: store.put(liv, "trip", dict(trip)))
    seen["overwrite"] = refusal(lambda: store.put(liv, "trip", {"text": "cancelled"}))
    seen["still"] = item(store.get(liv, "trip"))
    seen["delete"] = refusal(lambda: store.delete(liv, "trip"))
    seen["search_users"] = [item(found) for found in store.search((group, "users"), query="sailing trip to Riga")]
    seen["search_oren"] = [item(found) for found in store.search(oren, query="what does Oren drink")]
    seen["search_filtered"] = [
        item(found) for found in store.search((group,), query="Liv", filter={"kind": "travel"}, limit=5)
    ]
    seen["search_async"] = [item(found) for found in asyncio.run(store.asearch(liv, query="salmon"))]
    seen["search_operator"] = refusal(lambda: store.search((group,), query="Liv", filter={"kind": {"$ne": "x"}}))
    seen["no_query"] = refusal(lambda: store.search((group,)))
    seen["namespaces"] = refusal(lambda: store.list_namespaces())
    seen["no_group"] = refusal(lambda: store.search((), query="Liv"))
    reader = MemoriaStore.from_url(base, viewer)
    seen["viewer_reads"] = item(reader.get(liv, "trip"))
    seen["viewer_writes"] = refusal(lambda: reader.put(liv, "new", {"text": "x"}))
    seen["hidden_search"] = refusal(lambda: store.search((hidden,), query="Maren"))
    seen["hidden_put"] = refusal(lambda: store.put((hidden, "users"), "x", {"text": "x"}))
    seen["hidden_get"] = item(store.get((hidden, "users"), "x"))
    return seen


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:6])))
