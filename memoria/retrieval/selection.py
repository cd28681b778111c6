"""The per-level selection rule, pinned so results are reproducible.

Rows are taken in descending transfer energy (ties: parent id, neighbour id,
edge id, ascending); a row is selected when its neighbour is unclaimed at this
level and its parent has fewer than MAX_BRANCHES selections.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

BELOW_THRESHOLD = "below_threshold"
CLAIMED = "claimed"
BRANCH_LIMIT = "branch_limit"


class Candidate(NamedTuple):
    """One edge from a frontier node (parent) to an unvisited neighbour, with its energy breakdown.

    Immutable as a named tuple: a level makes hundreds, and a frozen dataclass took twice as long to make."""

    parent_id: str
    neighbor_id: str
    edge_id: str
    outgoing: bool  # the stored edge points parent → neighbour
    relation: str | None
    weight: float | None
    degree: int
    tag_similarity: float
    shared_tags: tuple[str, ...]
    transfer_energy: float
    neighbor_name: str | None = None
    neighbor_labels: tuple[str, ...] = ()


class Decision(NamedTuple):
    candidate: Candidate
    selected: bool
    reason: str | None = None  # why not selected
    claimed_by: str | None = None


def selection_order(candidate: Candidate) -> tuple[float, str, str, str]:
    return (-candidate.transfer_energy, candidate.parent_id, candidate.neighbor_id, candidate.edge_id)


def select_level(candidates: Iterable[Candidate], *, max_branches: int, min_activation: float) -> list[Decision]:
    """Decide every candidate of one level, in selection order."""
    claimed: dict[str, str] = {}
    taken: Counter[str] = Counter()
    decisions: list[Decision] = []
    for candidate in sorted(candidates, key=selection_order):
        if not candidate.transfer_energy > min_activation:
            decisions.append(Decision(candidate, False, BELOW_THRESHOLD))
        elif candidate.neighbor_id in claimed:
            decisions.append(Decision(candidate, False, CLAIMED, claimed[candidate.neighbor_id]))
        elif taken[candidate.parent_id] >= max_branches:
            decisions.append(Decision(candidate, False, BRANCH_LIMIT))
        else:
            claimed[candidate.neighbor_id] = candidate.parent_id
            taken[candidate.parent_id] += 1
            decisions.append(Decision(candidate, True))
    return decisions
