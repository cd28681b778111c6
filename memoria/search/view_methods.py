"""BM25 and cosine over the groups' in-memory views (memoria/readmodel): what every search runs by default.

Each group is searched in its own view, so a search costs what its groups
hold, whatever else the server holds; several groups' hits are merged by score.
The Cypher methods in memoria/search/methods.py stay for a group whose view
does not fit the memory budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from memoria.graph.asof import AsOf, valid_time
from memoria.readmodel.cache import view_cache
from memoria.readmodel.group_view import ViewState
from memoria.readmodel.scope_view import ScopeView
from memoria.readmodel.scopes import Item
from memoria.readmodel.text_index import query_terms
from memoria.search.methods import MAX_QUERY_WORDS, STOP_WORDS, Candidate

# With a valid_at, more hits than wanted are read and those that did not hold dropped; then every hit.
VALIDITY_OVERFETCH = 4


@dataclass
class ViewReport:
    """The views an answer was read from, by group (filled in as methods run)."""

    states: dict[str, ViewState] = field(default_factory=dict)
    prepared: set[str] = field(default_factory=set)  # groups caught up for this request already

    def prepare(
        self, groups: Sequence[str], scope_names: Sequence[str], stamps: Mapping[str, dict[str, int]] | None = None
    ) -> None:
        """Catch each group's view up once, loading the scopes the request reads, before its methods run
        (concurrently) without asking the server again; `stamps` are groups' stamps the request read already."""
        for group in groups:
            read = (stamps or {}).get(group)
            with view_cache().reading(group, *scope_names, stamps=read) as (_scopes, state):
                self.note(state)
            self.prepared.add(group)

    def note(self, state: ViewState) -> None:
        seen = self.states.get(state.group)
        if seen is None or state.version > seen.version or state.rebuilt or state.refreshed_items:
            self.states[state.group] = state


def _counts(moment: AsOf, item: Item) -> bool:
    """Whether a hit counts at search's moment, by the one definition (memoria/graph/asof.py); items of the
    scopes without validity (entities, episodes, communities) carry no times and always count."""
    return moment.counts(item.valid_at, item.invalid_at, item.created_at, item.expired_at)


def _candidate(item: Item, score: float, *, with_vector: ScopeView | None = None) -> Candidate:
    return Candidate(
        id=item.id,
        name=item.name,
        text=item.text,
        score=score,
        source=item.source,
        target=item.target,
        valid_at=item.valid_at,
        invalid_at=item.invalid_at,
        vector=with_vector.vectors.vector(item.id) if with_vector is not None else None,
    )


def _kept(
    scope: ScopeView,
    ranked: Callable[[int], list[tuple[str, float]]],
    *,
    limit: int,
    valid_at: str | None,
    allowed: frozenset[str] | None = None,
) -> list[tuple[Item, float]]:
    """The best `limit` hits that hold at valid_at (and are among `allowed`, a memory scope's items, when given):
    deeper reads only while filtering leaves too few, the whole scope at worst."""
    depth = limit if valid_at is None and allowed is None else VALIDITY_OVERFETCH * limit
    moment = valid_time(valid_at)
    while True:
        hits = ranked(depth)
        kept = [
            (scope.items[key], score)
            for key, score in hits
            if (allowed is None or key in allowed) and _counts(moment, scope.items[key])
        ]
        if len(kept) >= limit or len(hits) < depth or depth >= len(scope):
            return kept[:limit]
        depth = len(scope)


def _merged(per_group: list[list[Candidate]], limit: int) -> list[Candidate]:
    if len(per_group) == 1:
        return per_group[0][:limit]
    return sorted((c for hits in per_group for c in hits), key=lambda c: (-c.score, c.id))[:limit]


def _search_groups(
    scope_name: str,
    ranked: Callable[[ScopeView, int], list[tuple[str, float]]],
    *,
    groups: Sequence[str],
    limit: int,
    report: ViewReport,
    valid_at: str | None,
    with_vectors: bool,
    allowed: frozenset[str] | None = None,
) -> list[Candidate]:
    """`ranked` over each group's view of the scope (caught up unless this request did already), merged."""
    per_group = []
    for group in groups:
        with view_cache().reading(group, scope_name, catch_up=group not in report.prepared) as (scopes, state):
            report.note(state)
            scope = scopes[scope_name]
            hits = _kept(
                scope,
                lambda depth, scope=scope: ranked(scope, depth),
                limit=limit,
                valid_at=valid_at,
                allowed=allowed,
            )
            shown = scope if with_vectors else None
            per_group.append([_candidate(item, score, with_vector=shown) for item, score in hits])
    return _merged(per_group, limit)


def bm25(
    scope_name: str,
    *,
    text: str,
    groups: Sequence[str],
    limit: int,
    report: ViewReport,
    valid_at: str | None = None,
    allowed: frozenset[str] | None = None,
) -> list[Candidate]:
    """BM25 summed over the scope's text fields (Lucene's multi-field OR), best first."""
    terms = query_terms(text, stop_words=STOP_WORDS, max_terms=MAX_QUERY_WORDS)
    if not terms:
        return []
    return _search_groups(
        scope_name,
        lambda scope, depth: scope.text.search(terms, limit=depth),
        groups=groups,
        limit=limit,
        report=report,
        valid_at=valid_at,
        with_vectors=False,
        allowed=allowed,
    )


def cosine(
    scope_name: str,
    *,
    vector: Sequence[float],
    groups: Sequence[str],
    limit: int,
    report: ViewReport,
    min_similarity: float = -1.0,
    valid_at: str | None = None,
    allowed: frozenset[str] | None = None,
) -> list[Candidate]:
    """Exact cosine against every stored vector of the scope, above min_similarity, best first."""
    return _search_groups(
        scope_name,
        lambda scope, depth: scope.vectors.nearest(vector, limit=depth, min_similarity=min_similarity),
        groups=groups,
        limit=limit,
        report=report,
        valid_at=valid_at,
        with_vectors=True,
        allowed=allowed,
    )


def _caught_up_scopes(scope_name: str, groups: Sequence[str], report: ViewReport) -> Iterator[ScopeView]:
    """The scope in each group view this request caught up already, read without asking the server again; groups
    it did not catch up are skipped (their items are the caller's to read)."""
    for group in groups:
        if group in report.prepared:
            with view_cache().reading(group, scope_name, catch_up=False) as (scopes, _state):
                yield scopes[scope_name]


def stored_vectors(scope_name: str, *, ids: Sequence[str], groups: Sequence[str], report: ViewReport) -> dict:
    """The views' vectors of these items (for MMR), without asking the server; items not in a view are left out."""
    found: dict[str, list[float]] = {}
    for scope in _caught_up_scopes(scope_name, groups, report):
        found.update((item, vector) for item in ids if (vector := scope.vectors.vector(item)) is not None)
    return found


def shown_texts(scope_name: str, *, ids: Sequence[str], groups: Sequence[str], report: ViewReport) -> dict[str, str]:
    """The texts hits of these items show, from the views this request caught up, without asking the server;
    items not in a view are left out (the caller reads those)."""
    found: dict[str, str] = {}
    for scope in _caught_up_scopes(scope_name, groups, report):
        found.update((item, shown.text) for item in ids if (shown := scope.items.get(item)) is not None)
    return found
