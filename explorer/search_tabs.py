"""The search page's tabs: the good matches of each scope, and a count that says when it is a cap.

Each scope answers at most SEARCH_LIMIT hits, so "20" under a tab was the limit read as a total (issue 32): a full
tab now says "20+". Hits only cosine found, below the relevance floor (memoria/search/relevance.py), are left out
unless asked for (`weak=1`), and counted, so nonsense reads "no good match" instead of 60 confident results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memoria.search.relevance import good_match
from memoria.search.service import SearchHit, SearchResults

SCOPES = ("facts", "entities", "episodes", "communities")


@dataclass(frozen=True)
class SearchTab:
    name: str
    hits: tuple[SearchHit, ...]
    capped: bool  # the scope answered as many hits as asked: there may be more
    weak: int  # hits left out as weak matches

    @property
    def count(self) -> str:
        return f"{len(self.hits)}+" if self.capped and not self.weak else str(len(self.hits))


def search_tabs(found: SearchResults, *, limit: int, weak_shown: bool) -> list[SearchTab]:
    tabs = []
    for name in SCOPES:
        hits: Sequence[SearchHit] = getattr(found, name)
        kept = tuple(hits if weak_shown else (hit for hit in hits if good_match(hit.scores)))
        tabs.append(SearchTab(name=name, hits=kept, capped=len(hits) >= limit, weak=len(hits) - len(kept)))
    return tabs
