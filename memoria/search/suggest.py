"""Search-as-you-type: the few entities a half-typed query finds, each told apart by kind, date, snippet and id.

Names that match what is typed come first: each typed word the start of a word of the name (so half-typed words
count), those matching more words whole first, then those starting with the text (the group view's name index,
memoria/readmodel/name_index.py). Then hybrid search's hits (BM25 and cosine over the group's entities, fused by
RRF: the recipe that finds retrieval seeds) that are good matches (memoria/search/relevance.py): so "Lyo" lists
Lyon's entities, not whatever its embedding lands near, and nonsense lists nothing, which the boxes say. Hybrid
rank orders name matches of the same kind. One indexed read per request adds what a list of names lacks: the
kind (UserRequest, Event, …), a date (the entity's first fact, else its own), and a snippet of its summary.
Same-named entities are marked so the boxes show their ids.
"""

from __future__ import annotations

import heapq
from dataclasses import asdict, dataclass
from typing import Any

from memoria.browse.records import node_kind
from memoria.graph import driver
from memoria.readmodel.cache import ViewTooLarge, view_cache
from memoria.readmodel.name_index import name_words
from memoria.search.recipes import recipe
from memoria.search.relevance import good_match
from memoria.search.service import search

SUGGEST_RECIPE = "entities_hybrid_rrf"
SNIPPET_CHARS = 120
SUGGESTION_DETAILS = """
UNWIND $ids AS id
MATCH (n:Memory {group_id: $group, id: id})
OPTIONAL MATCH (n)-[r:RELATES]-()
WITH n, min(r.valid_at) AS first_fact
RETURN n.id AS id, labels(n) AS labels, n.summary AS summary, first_fact, n.valid_at AS valid_at,
  n.created_at AS created_at
"""


@dataclass(frozen=True)
class Suggestion:
    id: str
    name: str
    kind: str  # the entity's type label (UserRequest, Event, …), or its kind when it has none
    date: str | None  # YYYY-MM-DD
    snippet: str
    same_name: bool  # another suggestion has this name (case-folded): show the id

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _snippet(text: str | None) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…"


def _name_matches(*, group: str, text: str, ranks: dict[str, int], limit: int) -> list[tuple[str, str]]:
    """(id, name) of the entities whose names hold a word starting with each typed word, best first: fewest typed
    words matched only as a prefix, then names starting with the text, then by hybrid rank, shorter names first.
    None past the view budget (the group's search then reads the server's indexes, which hold no name words)."""
    words = list(dict.fromkeys(name_words(text)))
    if not words:
        return []
    typed = " ".join(name_words(text))
    try:
        with view_cache().reading(group, "entities", catch_up=False) as (scopes, _state):
            scope = scopes["entities"]
            if scope.names is None:
                return []
            found = scope.names.with_prefix(words[-1])
            for word in words[:-1]:
                if not found:
                    break
                found &= scope.names.with_prefix(word)
            whole = [scope.names.with_word(word) for word in words]
            named = [(item_id, scope.items[item_id].name) for item_id in found if item_id in scope.items]
    except ViewTooLarge:
        return []

    def order(entry: tuple[str, str]) -> tuple[int, bool, int, int, str]:
        item_id, name = entry
        partial = sum(item_id not in holders for holders in whole)
        starts = " ".join(name_words(name)).startswith(typed)
        return (partial, not starts, ranks.get(item_id, len(ranks)), len(name), name)

    return heapq.nsmallest(limit, named, key=order)


def suggest(*, group: str, text: str, limit: int) -> list[Suggestion]:
    """The group's best entities for `text`, best first; none for blank text or when nothing matches well."""
    if not text.strip():
        return []
    hits = search(query=text, groups=[group], config=recipe(SUGGEST_RECIPE, limit=limit)).entities
    ranks = {hit.id: rank for rank, hit in enumerate(hits)}
    chosen: dict[str, str] = dict(_name_matches(group=group, text=text, ranks=ranks, limit=limit))
    for hit in hits:
        if len(chosen) >= limit:
            break
        if good_match(hit.scores):
            chosen.setdefault(hit.id, hit.name)
    return _described(group, chosen)


def _described(group: str, chosen: dict[str, str]) -> list[Suggestion]:
    """The chosen entities (id → name, in order) with their kind, date and snippet; one read for all."""
    details = {row["id"]: row for row in driver.read(SUGGESTION_DETAILS, ids=list(chosen), group=group)}
    names = [name.casefold() for name in chosen.values()]
    found = []
    for item_id, name in chosen.items():
        row = details.get(item_id)
        if row is None:  # deleted since the view was read
            continue
        kind, extra = node_kind(row["labels"])
        date = row["first_fact"] or row["valid_at"] or row["created_at"]
        found.append(
            Suggestion(
                id=item_id,
                name=name,
                kind=extra[0] if extra else kind,
                date=date[:10] if date else None,
                snippet=_snippet(row["summary"]),
                same_name=names.count(name.casefold()) > 1,
            )
        )
    return found
