"""Search-as-you-type: the few entities a half-typed query finds, each told apart by kind, date, snippet and id.

The hits come from hybrid search (BM25 and cosine over the group's entities, fused by RRF: the recipe that finds
retrieval seeds), so the boxes list what a search would; one indexed read per request adds what a list of names
lacks: the kind (UserRequest, Event, …), a date (the entity's first fact, else its own), and a snippet of its
summary. Same-named entities are marked so the boxes show their ids.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from memoria.browse.records import node_kind
from memoria.graph import driver
from memoria.search.recipes import recipe
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


def suggest(*, group: str, text: str, limit: int) -> list[Suggestion]:
    """The group's best entities for `text`, best first; none for blank text."""
    if not text.strip():
        return []
    hits = search(query=text, groups=[group], config=recipe(SUGGEST_RECIPE, limit=limit)).entities
    details = {row["id"]: row for row in driver.read(SUGGESTION_DETAILS, ids=[hit.id for hit in hits], group=group)}
    names = [hit.name.casefold() for hit in hits]
    found = []
    for hit in hits:
        row = details.get(hit.id)
        if row is None:  # deleted since the view was read
            continue
        kind, extra = node_kind(row["labels"])
        date = row["first_fact"] or row["valid_at"] or row["created_at"]
        found.append(
            Suggestion(
                id=hit.id,
                name=hit.name,
                kind=extra[0] if extra else kind,
                date=date[:10] if date else None,
                snippet=_snippet(row["summary"]),
                same_name=names.count(hit.name.casefold()) > 1,
            )
        )
    return found
