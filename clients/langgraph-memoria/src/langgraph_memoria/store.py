"""`MemoriaStore`: LangGraph's long-term memory store over Memoria's REST API.

`namespace[0]` names the Memoria group; an item is one episode of it. The episode's id is derived from the whole
namespace and the key (`episode_id`), its name records them (`langgraph ["group", ..., "key"]`), its content is the
value as JSON (source `json`): so the item is ingested like any other memory — its entities and facts join the
group's graph — and found by Memoria's search.

What Memoria's REST API does not offer is refused, never imitated (issue 31, item 1, asks for the missing parts):
- episodes are immutable and REST has no delete of one, so putting another value under a stored key, and deleting
  an item (`put(..., None)`, `delete`), raise NotImplementedError;
- REST has no listing of episodes, so a search without a query and `list_namespaces` raise NotImplementedError.
Putting the same value again is accepted (it changes nothing).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from memoria_client import MemoriaClient, NotFound

NAME_PREFIX = "langgraph "
MAX_SEARCH_HITS = 100  # the search's own bound per scope: a search sees at most this many episodes
NO_DELETE = (
    "Memoria's REST API has no delete of an episode (issue 31, item 1: delete_episode), so a stored item cannot be "
    "deleted"
)
NO_UPDATE = (
    "Memoria episodes are immutable and its REST API has no delete of one (issue 31, item 1), so key {key!r} in "
    "{namespace!r}, already stored with another value, cannot be overwritten; put it under a new key"
)
NO_LISTING = (
    "Memoria's REST API has no listing of episodes (issue 31, item 1: list_episodes), so {what} is not supported; "
    "search with a query instead"
)


def episode_id(namespace: tuple[str, ...], key: str) -> str:
    """The stable episode id of an item: the same namespace and key always give the same id, any other a different
    one (a digest, so any characters of a namespace or key fit the id rules)."""
    digest = hashlib.sha256(json.dumps([list(namespace), key]).encode()).hexdigest()
    return f"lg-{digest[:40]}"


def episode_name(namespace: tuple[str, ...], key: str) -> str:
    return NAME_PREFIX + json.dumps([*namespace, key], ensure_ascii=False, separators=(",", ":"))


def _address(name: str) -> tuple[tuple[str, ...], str] | None:
    """The namespace and key an episode name records; None for an episode this store did not write."""
    if not name.startswith(NAME_PREFIX):
        return None
    try:
        parts = json.loads(name[len(NAME_PREFIX) :])
    except ValueError:
        return None
    if not isinstance(parts, list) or len(parts) < 2 or not all(isinstance(part, str) for part in parts):
        return None
    return tuple(parts[:-1]), parts[-1]


def _moment(value: Any) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    return datetime.now(UTC)


class MemoriaStore(BaseStore):
    """A `BaseStore` whose namespace's first label is a Memoria group and whose items are its episodes.

    Writing needs a curator's token for the group; reading and searching a viewer's. A group the token cannot see
    answers like a missing item to `get` (None: the server does not tell the two apart) and raises
    `memoria_client.NotFound` to `put` and `search`.
    """

    def __init__(self, client: MemoriaClient) -> None:
        self.client = client

    @classmethod
    def from_url(cls, base_url: str, token: str) -> MemoriaStore:
        """A store with its own `MemoriaClient` for `base_url`, authenticated by a Memoria API token."""
        return cls(MemoriaClient(base_url, token))

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """The same operations in a worker thread: the client is synchronous (http.client)."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            raise NotImplementedError(NO_LISTING.format(what="list_namespaces"))
        raise TypeError(f"unknown store operation {type(op).__name__}")

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        group = _group(namespace)
        try:
            detail = self.client.node(group, episode_id(namespace, key))
        except NotFound:
            return None
        if _address(str(detail.get("name", ""))) != (tuple(namespace), key):
            return None
        return _item(detail, namespace, key)

    def _put(self, op: PutOp) -> None:
        namespace, key = tuple(op.namespace), op.key
        if op.value is None:
            raise NotImplementedError(NO_DELETE)
        value = dict(op.value)
        episode = {
            "id": episode_id(namespace, key),
            "name": episode_name(namespace, key),
            "content": json.dumps(value, ensure_ascii=False, sort_keys=True),
            "source": "json",
            "source_description": "langgraph store item",
        }
        answer = self.client.episodes_add(_group(namespace), episode)
        if answer.get("added"):
            return None
        stored = self._get(namespace, key)  # already there: the same value is fine, another one is refused
        if stored is None or stored.value != value:
            raise NotImplementedError(NO_UPDATE.format(key=key, namespace=namespace))
        return None

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.query is None or not op.query.strip():
            raise NotImplementedError(NO_LISTING.format(what="a search without a query"))
        prefix = tuple(op.namespace_prefix)
        group = _group(prefix)
        unsupported = [name for name, wanted in (op.filter or {}).items() if _is_operator(wanted)]
        if unsupported:
            raise NotImplementedError(f"filter operators are not supported (only equality): {sorted(unsupported)}")
        results = self.client.search(group, op.query, scope="episodes", limit=MAX_SEARCH_HITS)
        found: list[SearchItem] = []
        for hit, namespace, key in _ours(results.episodes, prefix):
            if len(found) >= op.offset + op.limit:
                break
            item = self._get(namespace, key)
            if item is None or not _matches(item.value, op.filter):
                continue
            found.append(
                SearchItem(
                    namespace=namespace,
                    key=key,
                    value=item.value,
                    created_at=item.created_at,
                    updated_at=item.updated_at,
                    score=hit.score,
                )
            )
        return found[op.offset :]


def _group(namespace: tuple[str, ...]) -> str:
    if not namespace or not namespace[0]:
        raise ValueError("a Memoria store's namespace starts with the group's name: (group, ...)")
    return namespace[0]


def _ours(hits: Iterable[Any], prefix: tuple[str, ...]) -> Iterator[tuple[Any, tuple[str, ...], str]]:
    """The hits that are items of this store under the prefix, best first."""
    for hit in hits:
        address = _address(hit.name)
        if address is not None and address[0][: len(prefix)] == prefix:
            yield hit, address[0], address[1]


def _is_operator(wanted: Any) -> bool:
    return isinstance(wanted, dict) and any(str(name).startswith("$") for name in wanted)


def _matches(value: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    return all(value.get(name) == expected for name, expected in (wanted or {}).items())


def _item(detail: dict[str, Any], namespace: tuple[str, ...], key: str) -> Item | None:
    try:
        value = json.loads(detail.get("content") or "")
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    created = _moment(detail.get("created_at"))
    return Item(value=value, key=key, namespace=tuple(namespace), created_at=created, updated_at=created)
