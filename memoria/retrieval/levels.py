"""The seam between an Activation Energy exploration and the graph it reads: a level source answers, for one seed,
the seed's own node and each level's candidate rows, exactly as the seed's Cypher (section 6) would.

Two sources exist: Cypher over Bolt (memoria/retrieval/cypher_levels.py, the specification) and the group's
in-memory view (memoria/retrieval/view_levels.py). Everything else — selection, pruning, budget, events and
paths — lives once in memoria/retrieval/activation.py, so both give the same answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from memoria.retrieval.selection import Candidate


@dataclass(frozen=True)
class SeedNode:
    name: str | None
    labels: tuple[str, ...]  # as the server lists them, `Memory` included
    degree: int  # RELATES edges, both directions


@dataclass(frozen=True)
class LevelRow:
    """One parent's part of a level: EXPAND_LEVEL's row (or, pruned, OPEN_NEIGHBOURS')."""

    parent_id: str
    degree: int
    candidates: int | None  # unvisited neighbour edges, whatever their energy (None: not counted, pruned)
    above_count: int
    top: tuple[Candidate, ...]
    pruned: bool = False


@dataclass(frozen=True)
class LevelQuery:
    """One level to read: parents to expand (node id, activation, degree), pruned parents that only need to know whether
    they have an unvisited neighbour, the seed's visited nodes, each parent's row limit and the threshold."""

    expand: tuple[tuple[str, float, int], ...]
    pruned: tuple[str, ...]
    visited: set[str]
    limit: int
    min_threshold: float


@dataclass(frozen=True)
class LevelRead:
    """What one read of a level gives: rows of expanded parents that have at least one unvisited neighbour edge
    (EXPAND_LEVEL returns no row for the others), whether each pruned parent has an unvisited neighbour, and the
    RELATES degree of every neighbour shipped (a selected one's degree is its pruning bound next level)."""

    rows: tuple[LevelRow, ...] = ()
    open_neighbours: dict[str, bool] = field(default_factory=dict)
    neighbour_degrees: dict[str, int] = field(default_factory=dict)


class LevelSource(Protocol):
    """One seed's reads; `round_trips` counts those that went to the graph server (none for the view).

    A level is one call, expanded and pruned parents together, because the Cypher source answers both in one
    round trip; `limit` cuts each parent's above-threshold rows, which come in selection order (transfer energy
    descending, then neighbour id, then edge id).
    """

    round_trips: int
    in_memory: bool  # reads never wait on I/O: nothing for a deadline to cut off, so none is armed

    async def seed(self, seed_id: str) -> SeedNode | None:
        """The seed's node, or None when it is not a node of the retrieval's group."""
        ...

    async def read_level(self, query: LevelQuery) -> LevelRead:
        """Rows for the expanded parents and open-neighbour answers for the pruned ones."""
        ...
