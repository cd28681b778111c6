"""`recall`: a query in, pieces of memory out, each with its provenance — what the framework retrievers
(clients/langchain-memoria, clients/llamaindex-memoria) turn into their own document types.

One place for the mapping, so the frameworks cannot drift apart in what they call a fact's source or validity.
Search hits do not carry the episodes a fact was drawn from; with `provenance` on, each fact hit is read once more
(`GET .../edges/<id>`, one request a fact) for them. An episode is its own source.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from memoria_client.models import SearchHit
from memoria_client.rest import MemoriaClient

Scope = Literal["facts", "entities", "episodes", "communities"]
SCOPES: tuple[Scope, ...] = ("facts", "entities", "episodes", "communities")
KINDS: dict[Scope, str] = {"facts": "fact", "entities": "entity", "episodes": "episode", "communities": "community"}


@dataclass(frozen=True)
class Recalled:
    """One piece of memory found for a query: its text (a fact's sentence, an episode's content, a summary), its
    kind, the search score within its scope, validity (facts), and the ids of the episodes it came from."""

    group: str
    kind: str
    id: str
    name: str
    text: str
    score: float
    valid_at: str | None = None
    invalid_at: str | None = None
    episode_ids: tuple[str, ...] = ()

    def metadata(self) -> dict[str, Any]:
        """Flat, JSON-safe metadata as frameworks store it beside a document's text."""
        return {
            "id": self.id,
            "group": self.group,
            "kind": self.kind,
            "name": self.name,
            "score": self.score,
            "valid_at": self.valid_at,
            "invalid_at": self.invalid_at,
            "episode_ids": list(self.episode_ids),
        }


def recall(
    client: MemoriaClient,
    group: str,
    query: str,
    *,
    scopes: Iterable[Scope] = ("facts", "episodes"),
    limit: int = 5,
    valid_at: str | None = None,
    recipe: str | None = None,
    provenance: bool = True,
) -> list[Recalled]:
    """One search per scope (`limit` hits each, best first, scope by scope: scores of different scopes are not on
    one scale, so they are not interleaved). A group the token cannot see raises `NotFound`, as the search does."""
    wanted = tuple(scopes)
    unknown = [scope for scope in wanted if scope not in SCOPES]
    if unknown or not wanted:
        raise ValueError(f"scopes must be a non-empty subset of {SCOPES}, not {wanted!r}")
    found: list[Recalled] = []
    for scope in wanted:
        results = client.search(group, query, scope=scope, limit=limit, valid_at=valid_at, recipe=recipe)
        for hit in getattr(results, scope):
            found.append(_recalled(client, scope, hit, provenance=provenance))
    return found


def _recalled(client: MemoriaClient, scope: Scope, hit: SearchHit, *, provenance: bool) -> Recalled:
    episode_ids: tuple[str, ...] = ()
    if scope == "episodes":
        episode_ids = (hit.id,)
    elif scope == "facts" and provenance:
        episode_ids = client.fact(hit.group, hit.id).episode_ids
    return Recalled(
        group=hit.group,
        kind=KINDS[scope],
        id=hit.id,
        name=hit.name,
        text=hit.text,
        score=hit.score,
        valid_at=hit.valid_at,
        invalid_at=hit.invalid_at,
        episode_ids=episode_ids,
    )
